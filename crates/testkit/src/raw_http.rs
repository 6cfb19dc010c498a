//! Raw HTTP to a gateway, as a load balancer or a plain script would send it: JSON-RPC
//! messages POSTed to `/mcp` (from a chosen loopback address), sessions opened by hand, and
//! one metric read from `/metrics`.

use serde_json::Value;
use std::net::IpAddr;

/// A client whose connections come from `from` (a loopback address such as 127.0.0.2).
fn client_from(from: &str) -> reqwest::Client {
    let from: IpAddr = from.parse().expect("a loopback address");
    reqwest::Client::builder()
        .local_address(from)
        .build()
        .expect("an HTTP client")
}

/// POSTs `message` to the MCP endpoint `url` from `from`, with an optional bearer token and
/// session; the answer as it came, whatever its status.
pub async fn post_mcp_from(
    url: &str,
    from: &str,
    token: Option<&str>,
    session: Option<&str>,
    message: &Value,
) -> reqwest::Response {
    let mut request = client_from(from)
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .json(message);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await.expect("POST to the MCP endpoint")
}

/// POSTs an initialize to the MCP endpoint `url` bearing `token`; the status and the
/// `WWW-Authenticate` header (empty when none).
pub async fn initialize_with(url: &str, token: Option<&str>) -> (u16, String) {
    let response = post_mcp_from(url, "127.0.0.1", token, None, &crate::initialize_request()).await;
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap_or_default().to_string())
        .unwrap_or_default();
    (response.status().as_u16(), challenge)
}

/// One JSON-RPC message POSTed to an MCP endpoint over raw HTTP (no SDK, no GET stream), as a
/// load balancer would forward it, with an optional bearer token and session; panics on a
/// non-2xx answer. Returns the session id the answer names and its whole body.
pub async fn post_mcp(
    url: &str,
    token: Option<&str>,
    session: Option<&str>,
    message: &Value,
) -> (Option<String>, String) {
    let response = post_mcp_from(url, "127.0.0.1", token, session, message).await;
    let status = response.status();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().expect("session id").to_string());
    let text = response.text().await.expect("answer body");
    assert!(status.is_success(), "{message}: {status}: {text}");
    (session, text)
}

/// POSTs `message` in `session` with `extra` headers (a browser's `Origin`, say); panics on a
/// non-2xx answer. The answer's content type, and the response with its body unread.
pub async fn post_in_session(
    url: &str,
    session: &str,
    message: &Value,
    extra: &[(&str, &str)],
) -> (String, reqwest::Response) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session)
        .json(message);
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("POST");
    assert!(
        response.status().is_success(),
        "{message}: {}",
        response.status()
    );
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (kind, response)
}

/// The `initialize` request a raw client sends.
pub fn initialize_request() -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

/// A raw Streamable HTTP session on `url` (initialize, then initialized); its id.
pub async fn open_session(url: &str) -> String {
    let (session, _) = post_mcp(url, None, None, &initialize_request()).await;
    let session = session.expect("a session id");
    let done = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post_mcp(url, None, Some(&session), &done).await;
    session
}

/// The exposed tool names a new session (bearing `token`) lists on the MCP endpoint `url`.
pub async fn tool_names(url: &str, token: Option<&str>) -> Vec<String> {
    let (session, _) = post_mcp(url, token, None, &initialize_request()).await;
    let session = session.expect("a session id");
    let done = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post_mcp(url, token, Some(&session), &done).await;
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (_, body) = post_mcp(url, token, Some(&session), &list).await;
    let answer = rpc_answer(&body);
    let tools = answer["result"]["tools"].as_array();
    (tools.unwrap_or_else(|| panic!("no tools in {body}")).iter())
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The value of the `/metrics` line of the gateway at `base` that starts with `prefix`, read
/// from 127.0.0.2 (so it is never counted against a test's client on 127.0.0.1).
pub async fn metric(base: &str, token: Option<&str>, prefix: &str) -> f64 {
    let mut request = client_from("127.0.0.2").get(format!("{base}/metrics"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("GET /metrics");
    let text = response.text().await.expect("the metrics");
    let line = text.lines().find(|l| l.starts_with(prefix));
    let line = line.unwrap_or_else(|| panic!("no {prefix} in {text}"));
    let value = line.rsplit(' ').next().unwrap_or_default();
    value
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {line}"))
}

/// What a `tools/call` answer (JSON, or SSE whose response may follow notifications) says:
/// `Ok(text of its first block)`, or `Err(kind)` for an `isError` result (the kind from
/// `_meta["switchboard/error"]`). Panics on an answer that is neither.
pub fn tool_outcome(body: &str) -> Result<String, String> {
    let answer = rpc_answer(body);
    let result = &answer["result"];
    assert!(result.is_object(), "not a tool result: {answer}");
    if result["isError"] == true {
        let kind = result["_meta"]["switchboard/error"]["kind"].as_str();
        return Err(kind.unwrap_or("no kind").to_string());
    }
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    Ok(text.to_string())
}

/// A REST request bearing `token` (and a JSON body when given); the status and the JSON answer
/// (`null` when it is none).
pub async fn rest(method: &str, url: &str, token: &str, body: Option<Value>) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .request(method.parse().expect("an HTTP method"), url)
        .bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("a REST request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The JSON-RPC response in an answer (JSON, or SSE after other events).
pub fn response_in(body: &str) -> Value {
    (body.lines())
        .filter_map(|l| l.strip_prefix("data: "))
        .chain(std::iter::once(body))
        .find_map(|d| {
            serde_json::from_str::<Value>(d)
                .ok()
                .filter(|m| m.get("id").is_some())
        })
        .unwrap_or_else(|| panic!("no JSON-RPC response in {body}"))
}

/// Calls `tool` (no arguments) on the MCP endpoint `url` in a new raw session bearing `token`,
/// with `meta` as the request's `_meta` when given: the JSON its first text block holds, or
/// `"kind: message"` for a tool error (and the code and message of a JSON-RPC error).
pub async fn call_tool_as(
    url: &str,
    token: &str,
    tool: &str,
    meta: Option<Value>,
) -> Result<Value, String> {
    let answer = call_tool_answer(url, token, tool, meta).await;
    if let Some(error) = answer.get("error") {
        return Err(format!(
            "JSON-RPC error {}: {}",
            error["code"], error["message"]
        ));
    }
    let result = &answer["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    match result["isError"] == true {
        true => Err(format!(
            "{}: {text}",
            result["_meta"]["switchboard/error"]["kind"]
        )),
        false => Ok(serde_json::from_str(text).unwrap_or(Value::Null)),
    }
}

/// The JSON-RPC answer to one `tools/call` of `tool` (no arguments) on a new session at
/// `url`, opened with `token` (`_meta` as given).
pub async fn call_tool_answer(url: &str, token: &str, tool: &str, meta: Option<Value>) -> Value {
    let (session, _) = post_mcp(url, Some(token), None, &crate::initialize_request()).await;
    let mut params = serde_json::json!({"name": tool, "arguments": {}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let message =
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let (_, body) = post_mcp(url, Some(token), session.as_deref(), &message).await;
    response_in(&body)
}

/// Polls `check` (at most 10 s) until it holds: for what another process changes.
pub async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    for _ in 0..200 {
        if check().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{what} did not happen within 10 s");
}

/// The JSON-RPC response in an answer to a POST (plain JSON, or an SSE event of it).
pub fn rpc_answer(body: &str) -> Value {
    (body.lines())
        .filter_map(|l| l.strip_prefix("data: "))
        .chain(std::iter::once(body))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .find(|message| message.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC response in {body}"))
}
