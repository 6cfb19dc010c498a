//! The fast path of `/mcp` (issue 13): a plain `tools/call` or `tools/list` on a live session
//! is answered as `application/json`; a call that has log lines, progress or requests for the
//! caller before its result is answered as a stream that carries them first; a request the fast
//! path does not take (here: a browser's, with an `Origin`) still gets rmcp's answer, and for
//! `tools/list` the very same answer; a client's `notifications/cancelled` reaches the
//! upstream; and a call whose client hangs up still finishes and is audited.

use futures::StreamExt;
use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// The JSON messages of an answer, whether it is one JSON body or SSE `data:` lines.
fn messages(body: &str) -> Vec<Value> {
    if let Ok(one) = serde_json::from_str::<Value>(body) {
        return vec![one];
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

/// A POST of `message` on `session`, as a plain client sends it.
fn post(url: &str, session: &str, message: &Value) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session)
        .json(message)
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": id}}})
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_answers_are_json_and_chatty_ones_a_stream() {
    let (dir, path, _http) = kit::relay_config(json!({})).await;
    let gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &path, 2).await;
    let url = gateway.url.as_str();
    let session = kit::open_session(url).await;

    for (id, tool) in [(1, "relay__pid"), (2, "relayh__pid")] {
        let (kind, response) =
            kit::post_in_session(url, &session, &call(id, tool, json!({})), &[]).await;
        let length = response.headers().get("content-length").cloned();
        let body = response.text().await.unwrap();
        assert_eq!(kind, "application/json", "{tool}: {body}");
        // Sent whole, with its length (not chunked).
        let length = length.and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
        assert_eq!(length, Some(body.len()), "{tool}: {body}");
        let answer: Value = serde_json::from_str(&body).expect("one JSON-RPC message");
        assert_eq!(answer["id"], id, "{body}");
        assert!(answer["result"]["content"][0]["text"].is_string(), "{body}");
    }

    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let (kind, response) = kit::post_in_session(url, &session, &list, &[]).await;
    let body = response.text().await.unwrap();
    assert_eq!(kind, "application/json", "{body}");
    let tools: Value = serde_json::from_str(&body).unwrap();
    assert!(
        tools["result"]["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "relay__chatty")),
        "{body}"
    );

    // Log lines and progress before the result: a stream, in the upstream's order.
    let chatty = call(4, "relay__chatty", json!({"count": 2}));
    let (kind, response) = kit::post_in_session(url, &session, &chatty, &[]).await;
    let body = response.text().await.unwrap();
    assert_eq!(kind, "text/event-stream", "{body}");
    let sent = messages(&body);
    let methods: Vec<&str> = sent
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("result"))
        .collect();
    assert_eq!(methods.last(), Some(&"result"), "{body}");
    assert!(methods.contains(&"notifications/message"), "{body}");

    // A browser's request (it carries an Origin) is rmcp's to check and answer.
    let browser = [("origin", "http://localhost:3000")];
    let (kind, response) =
        kit::post_in_session(url, &session, &call(5, "relay__pid", json!({})), &browser).await;
    let body = response.text().await.unwrap();
    assert_eq!(kind, "text/event-stream", "{body}");
    let answer = messages(&body).into_iter().find(|m| m["id"] == 5);
    assert!(answer.is_some_and(|a| a["result"].is_object()), "{body}");

    // The fast tools/list (built from each tool's ready-made JSON) is rmcp's answer exactly.
    let (kind, response) = kit::post_in_session(url, &session, &list, &browser).await;
    let body = response.text().await.unwrap();
    assert_eq!(kind, "text/event-stream", "{body}");
    let from_rmcp = messages(&body).into_iter().find(|m| m["id"] == 3);
    assert_eq!(from_rmcp.as_ref(), Some(&tools), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_cancel_reaches_the_upstream() {
    let (dir, path) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(120_000)}));
    // One thread runs it all: a cancel must not need a second one.
    let args = ["--dev", "--threads", "1"];
    let gateway = kit::Gateway::start(Path::new(BIN), &args, dir.path(), &path, 1).await;
    let url = gateway.url.as_str();
    let session = kit::open_session(url).await;

    // The fixture says it started (progress), so the call is a stream; the cancel follows.
    let (kind, response) =
        kit::post_in_session(url, &session, &call(7, "fx__hang", json!({})), &[]).await;
    assert_eq!(kind, "text/event-stream");
    let mut body = response.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("started") {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(20), body.next())
            .await
            .expect("the hang call says it started")
            .expect("more of the stream")
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "the user gave up"}});
    kit::post_mcp(url, None, Some(&session), &cancel).await;
    // A cancelled request gets no response: its stream ends without one.
    while let Some(chunk) = tokio::time::timeout(std::time::Duration::from_secs(20), body.next())
        .await
        .expect("the cancelled call's stream ends")
    {
        seen.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
    }
    assert!(
        messages(&seen).iter().all(|m| m.get("id").is_none()),
        "no response to a cancelled request: {seen}"
    );

    let (_, response) = kit::post_in_session(
        url,
        &session,
        &call(8, "fx__cancelled", json!({"count": 1})),
        &[],
    )
    .await;
    let text = response.text().await.unwrap();
    let answer = messages(&text)
        .into_iter()
        .find(|m| m["id"] == 8)
        .expect(&text);
    let listed = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let cancelled: Vec<String> = serde_json::from_str(listed).expect(listed);
    assert_eq!(cancelled.len(), 1, "the upstream saw the cancel: {answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_silent_long_call_is_streamed_and_a_closed_session_is_gone() {
    let (dir, path) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(120_000)}));
    let gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &path, 1).await;
    let url = gateway.url.as_str();
    let session = kit::open_session(url).await;

    // No progress asked for, so nothing comes before the result; it takes longer than the
    // fast path waits before it sends headers, so the answer is a stream all the same.
    let slow = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "fx__slow", "arguments": {"count": 1500, "text": "late"}}});
    let (kind, response) = kit::post_in_session(url, &session, &slow, &[]).await;
    let body = response.text().await.unwrap();
    assert_eq!(kind, "text/event-stream", "{body}");
    let answer = messages(&body)
        .into_iter()
        .find(|m| m["id"] == 1)
        .expect(&body);
    assert_eq!(answer["result"]["content"][0]["text"], "late", "{body}");

    // Once the client ends the session, its calls are refused as rmcp refuses them.
    let closed = reqwest::Client::new()
        .delete(url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert!(closed.status().is_success(), "DELETE: {}", closed.status());
    let late = post(url, &session, &call(2, "fx__echo", json!({"text": "x"})))
        .send()
        .await
        .unwrap();
    assert_eq!(late.status(), reqwest::StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_whose_client_hangs_up_still_finishes_and_is_audited() {
    let (dir, path) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(120_000)}));
    let gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &path, 1).await;
    let url = gateway.url.as_str();
    let session = kit::open_session(url).await;

    // The fast path runs the call in the request's own task; the client gives up long before
    // the answer (and before the fast path would turn it into a stream).
    let slow = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "fx__slow", "arguments": {"count": 600, "text": "late"}}});
    let gave_up = post(url, &session, &slow)
        .timeout(std::time::Duration::from_millis(150))
        .send()
        .await;
    assert!(
        gave_up.as_ref().is_err_and(|e| e.is_timeout()),
        "the client hung up before the answer: {gave_up:?}"
    );

    // The call went on without it: its row is written once it ends, with its outcome.
    let data = dir.path().join("data");
    let args = ["audit", "list", "--action", "mcp.fx.slow", "--json"];
    let mut rows = String::new();
    kit::eventually("the abandoned call's audit row", async || {
        let (code, out, err) = kit::run_cli(Path::new(BIN), &data, &args);
        assert_eq!(code, 0, "{err}");
        rows = out;
        !rows.trim().is_empty()
    })
    .await;
    let row: Value = serde_json::from_str(rows.lines().next().unwrap()).expect(&rows);
    assert_eq!(row["outcome"], "ok", "{rows}");
    assert!(
        row["duration_us"].as_i64().is_some_and(|us| us >= 600_000),
        "the row is of the finished call: {rows}"
    );
}
