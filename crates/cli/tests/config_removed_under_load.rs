//! A config edit that removes a server while 100 calls are in flight on it (`serve --watch`):
//! every one of the 100 is answered (removal lets calls in flight finish), each leaves its
//! audit row, and the server's tools are gone for new calls.

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use switchboard_store::{AuditFilter, SqlStore, Store};
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const CALLS: usize = 100;
const SESSIONS: usize = 4;
const PATIENCE: Duration = Duration::from_secs(60);

fn write_config(path: &Path, servers: Value) {
    // Write then rename, as editors do.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, json!({ "mcpServers": servers }).to_string()).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Calls running or queued on `fx` now, from `/metrics`.
async fn fx_busy(base: &str) -> f64 {
    let running = kit::metric(
        base,
        None,
        "switchboard_calls_in_flight{server=\"fx\",org=\"\"}",
    )
    .await;
    let queued = kit::metric(
        base,
        None,
        "switchboard_calls_queued{server=\"fx\",org=\"\"}",
    )
    .await;
    running + queued
}

#[tokio::test(flavor = "multi_thread")]
async fn removing_a_server_with_100_calls_in_flight_answers_every_call() {
    let servers =
        json!({"fx": kit::misbehaving_entry(30_000), "keep": kit::misbehaving_entry(30_000)});
    let (dir, mcp_json) = kit::write_mcp_json(servers);
    // Room for all 100 at once on one server, so each is running when the edit lands.
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, "[limits]\nmax_concurrent_calls = 128\n").unwrap();
    let args = ["--dev", "--watch", "-c", toml.to_str().unwrap()];
    let gateway = kit::Gateway::start(Path::new(BIN), &args, dir.path(), &mcp_json, 2).await;
    let url = gateway.url.clone();
    let mut sessions = Vec::new();
    for _ in 0..SESSIONS {
        sessions.push(kit::open_session(&url).await);
    }

    let calls = (0..CALLS).map(|i| {
        let (url, session) = (url.clone(), sessions[i % SESSIONS].clone());
        tokio::spawn(async move {
            let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": "fx__slow", "arguments": {"count": 5000, "text": format!("call {i}")}}});
            let (_, body) = kit::post_mcp(&url, None, Some(&session), &call).await;
            kit::tool_outcome(&body)
        })
    });
    let calls: Vec<_> = calls.collect();
    // All 100 are in the gateway (running or queued on fx) before the edit.
    let all_in = tokio::time::timeout(PATIENCE, async {
        while fx_busy(gateway.base()).await < CALLS as f64 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(all_in.is_ok(), "100 calls in flight on fx");
    write_config(&mcp_json, json!({"keep": kit::misbehaving_entry(30_000)}));

    let mut answered = 0;
    for (i, call) in calls.into_iter().enumerate() {
        let done = tokio::time::timeout(PATIENCE, call).await;
        let outcome = done.expect("no call hangs").expect("the call's task");
        assert_eq!(outcome, Ok(format!("call {i}")), "call {i}");
        answered += 1;
    }
    assert_eq!(answered, CALLS);

    // The edit took effect: fx is gone for new calls, keep still answers.
    let gone = tokio::time::timeout(PATIENCE, async {
        loop {
            let call = json!({"jsonrpc": "2.0", "id": 1000, "method": "tools/call",
                "params": {"name": "fx__echo", "arguments": {"text": "x"}}});
            let (_, body) = kit::post_mcp(&url, None, Some(&sessions[0]), &call).await;
            if kit::tool_outcome(&body) == Err("tool_not_found".into()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(gone.is_ok(), "fx removed");
    let call = json!({"jsonrpc": "2.0", "id": 1001, "method": "tools/call",
        "params": {"name": "keep__echo", "arguments": {"text": "kept"}}});
    let (_, body) = kit::post_mcp(&url, None, Some(&sessions[1]), &call).await;
    assert_eq!(kit::tool_outcome(&body), Ok("kept".into()));

    // One audit row per call made on fx.
    let store = SqlStore::open_sqlite(&dir.path().join("data"))
        .await
        .unwrap();
    let filter = AuditFilter {
        action_id: Some("mcp.fx.slow".into()),
        limit: Some(10_000),
        ..Default::default()
    };
    let rows = tokio::time::timeout(PATIENCE, async {
        loop {
            let rows = store.audit(&filter).await.unwrap();
            if rows.len() >= CALLS {
                return rows;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the rows of 100 calls");
    assert_eq!(rows.len(), CALLS);
    assert!(rows.iter().all(|r| r.entry.outcome == "ok"));
}
