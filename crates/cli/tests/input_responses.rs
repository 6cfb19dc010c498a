//! A 2026-07-28 caller's `inputResponses` sent without the gateway's `requestState` handle reach
//! the upstream as they are (tests/fixtures/modern_server.py's `answers_seen` reports what its
//! call carried), over raw HTTP as any 2026-07-28 client sends them.

use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// One 2026-07-28 `tools/call` of `tool` with `params` added; its JSON-RPC answer (sent as
/// JSON or as the last event of an SSE stream).
async fn call_2026(url: &str, tool: &str, params: Value) -> Value {
    let mut body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": tool, "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            },
        },
    });
    for (key, value) in params.as_object().unwrap() {
        body["params"][key] = value.clone();
    }
    let text = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let json = (text.lines())
        .rev()
        .find_map(|l| l.strip_prefix("data:"))
        .unwrap_or(&text);
    serde_json::from_str(json.trim()).unwrap_or_else(|_| panic!("not JSON-RPC: {text}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn answers_without_the_gateways_handle_reach_the_server_as_they_are() {
    let (dir, path) = kit::write_mcp_json(json!({ "modern": kit::modern_entry() }));
    let mut gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &path, 1).await;
    gateway.ignore_log();
    // No server behind it declares tasks or skills: the gateway offers neither.
    let how = kit::Request2026 {
        capabilities: json!({}),
        end_user: None,
    };
    let discover = kit::rpc_2026(&gateway.url, "server/discover", json!({}), &how).await;
    let extensions = &discover["result"]["capabilities"]["extensions"];
    for extension in [
        "io.modelcontextprotocol/tasks",
        "io.modelcontextprotocol/skills",
    ] {
        assert!(extensions.get(extension).is_none(), "{discover}");
    }
    let refused = kit::rpc_2026(&gateway.url, "tasks/get", json!({"taskId": "task_1"}), &how).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    let answers = json!({"who": {"action": "accept", "content": {"name": "Zed"}}});
    let answer = call_2026(
        &gateway.url,
        "modern__answers_seen",
        json!({"inputResponses": answers}),
    )
    .await;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let seen: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{answer}"));
    assert_eq!(
        seen,
        json!({"responses": answers, "state": null}),
        "{answer}"
    );
    // A handle the gateway never gave is refused, never passed on.
    let forged = json!({"inputResponses": answers, "requestState": "rq_forged"});
    let answer = call_2026(&gateway.url, "modern__answers_seen", forged).await;
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("requestState is unknown or expired")),
        "{answer}"
    );
}
