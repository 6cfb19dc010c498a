//! Idle downstream sessions leave memory (issue 13): a session with nothing open is parked after
//! `[limits] session_park_secs` and its next request restores it under the same id, while a
//! session with an open GET stream, or with state of its own (a log level), stays in memory.

use serde_json::{Value, json};
use std::collections::HashSet;
use std::time::Duration;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// The text `relay__pid` answers in `session` (the relay fixture's process id).
async fn pid(url: &str, session: &str, id: u64) -> String {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "relay__pid", "arguments": {}}});
    let (_, body) = kit::post_mcp(url, None, Some(session), &call).await;
    let answer = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .chain(std::iter::once(body.as_str()))
        .find_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .unwrap_or_else(|| panic!("no JSON-RPC answer in {body}"));
    let text = answer["result"]["content"][0]["text"].as_str();
    text.unwrap_or_else(|| panic!("no text in {answer}"))
        .to_string()
}

/// Reads the gateway's log until `session` is parked; every session parked by then.
async fn parked_until(log: &mut tokio::sync::mpsc::Receiver<String>, session: &str) -> Vec<String> {
    let mut parked = Vec::new();
    while let Some(line) = log.recv().await {
        if !line.contains("parked an idle session") {
            continue;
        }
        let id = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("session="))
            .expect("the parked session's id")
            .to_string();
        parked.push(id.clone());
        if id == session {
            return parked;
        }
    }
    panic!("the gateway's log ended before {session} was parked: {parked:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_sessions_are_parked_and_restored_where_nothing_is_open_or_held() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Two seconds: the test's own requests to one session are far closer together than that.
    let config = kit::relay_toml(dir.path(), "[limits]\nsession_park_secs = 2\n");
    let log = "info,switchboard_server::mcp::sessions::parking=debug";
    let mut gateway = kit::Gateway::start(
        std::path::Path::new(BIN),
        &["--log", log],
        dir.path(),
        &config,
        1,
    )
    .await;
    let url = gateway.url.clone();

    // A session listening on its GET stream, and one that asked for a log level.
    let listening = kit::open_session(&url).await;
    let stream = reqwest::Client::new()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", &listening)
        .send()
        .await
        .expect("GET stream");
    assert!(stream.status().is_success(), "{}", stream.status());
    let leveled = kit::open_session(&url).await;
    let level = json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
        "params": {"level": "warning"}});
    kit::post_mcp(&url, None, Some(&leveled), &level).await;

    // A session that made a call and then went quiet.
    let idle = kit::open_session(&url).await;
    let first = pid(&url, &idle, 1).await;

    let parked = tokio::time::timeout(
        Duration::from_secs(60),
        parked_until(&mut gateway.log, &idle),
    )
    .await
    .expect("the idle session is parked within a minute");
    // The other two were idle at least as long: only what they hold kept them.
    let parked: HashSet<_> = parked.into_iter().collect();
    assert!(
        !parked.contains(&listening),
        "parked under an open GET stream"
    );
    assert!(
        !parked.contains(&leveled),
        "parked with a log level of its own"
    );

    // The parked session answers its next call under the same id, restored from the store.
    assert_eq!(pid(&url, &idle, 2).await, first);
    assert_eq!(pid(&url, &leveled, 2).await, first);
    drop(stream);
}
