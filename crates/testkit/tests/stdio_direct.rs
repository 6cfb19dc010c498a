//! Tool calls to a stdio server go onto its stdin directly while rmcp writes its own requests
//! to the same pipe: with both at once, and lines larger than the pipe holds, every message
//! still arrives whole and every answer reaches its own caller.

use serde_json::json;
use std::time::Duration;
use switchboard_core::{ServerSlug, ServerSpec, StdioSpec, Transport};
use switchboard_upstream::{CallOptions, Connection};

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn direct_calls_and_rmcp_requests_share_the_pipe_without_mixing_lines() {
    let spec = ServerSpec::new(
        ServerSlug::parse("echo").unwrap(),
        Transport::Stdio(StdioSpec {
            command: common::ECHO.to_string(),
            args: Vec::new(),
            env: Default::default(),
            cwd: None,
            limits: Default::default(),
        }),
    );
    let conn = Connection::connect(&spec, &common::dev_connect_options())
        .await
        .unwrap();
    // Each argument is larger than a pipe's buffer (64 KiB), so its line is written in parts.
    let calls = (0..24).map(|i| {
        let text = format!("{i:03}-").repeat(40_000);
        let conn = &conn;
        async move {
            let arguments = json!({"text": text}).as_object().cloned();
            let result = conn
                .call_tool("echo", arguments, CallOptions::default())
                .await
                .unwrap_or_else(|e| panic!("call {i}: {e}"));
            let answered = serde_json::to_value(&result.content).unwrap();
            assert_eq!(
                answered[0]["text"],
                json!(text),
                "call {i} got another's answer"
            );
        }
    });
    // Meanwhile rmcp sends its own requests (the catalogue) on the same stdin.
    let discoveries = (0..8).map(|_| async {
        let snapshot = conn.discover(Duration::from_secs(30)).await.unwrap();
        assert!(snapshot.tools.iter().any(|t| t.name == "echo"));
    });
    tokio::join!(
        futures::future::join_all(calls),
        futures::future::join_all(discoveries)
    );
    // The connection is still in order afterwards.
    let arguments = json!({"text": "after"}).as_object().cloned();
    let result = conn
        .call_tool("echo", arguments, CallOptions::default())
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&result.content).unwrap()[0]["text"],
        "after"
    );
}
