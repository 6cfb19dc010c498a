//! `--log-format json` (issue 14): every stderr line of `serve` is one JSON object, the
//! start-up lines people wait for included; at INFO one line per connected server, with no
//! dump of the upstream's instructions, and one per refused call.

use serde_json::{Value, json};
use std::process::Stdio;
use switchboard_testkit as kit;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

#[tokio::test(flavor = "multi_thread")]
async fn serve_logs_one_json_object_per_line() {
    let (dir, mcp_json) = kit::write_mcp_json(json!({"everything": kit::everything_stdio_entry()}));
    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--log-format",
            "json",
            "-c",
        ])
        .arg(&mcp_json)
        .env("SWITCHBOARD_DATA", dir.path().join("data"))
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut events = Vec::new();
    while let Some(line) = lines.next_line().await.expect("read the log") {
        let event: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not one JSON object: {line:?}: {e}"));
        let message = event["message"].as_str().unwrap_or_default().to_string();
        assert!(
            event["level"].is_string() && event["timestamp"].is_string(),
            "{event}"
        );
        events.push(event);
        if message.starts_with("switchboard ready: ") {
            break;
        }
    }
    let said = |text: &str| {
        events
            .iter()
            .any(|e| e["message"].as_str().is_some_and(|m| m.contains(text)))
    };
    assert!(
        said("switchboard listening on http://127.0.0.1:"),
        "{events:?}"
    );
    let connected: Vec<&Value> = events
        .iter()
        .filter(|e| e["message"] == "connected")
        .collect();
    assert_eq!(connected.len(), 1, "{events:?}");
    assert_eq!(connected[0]["server"], "everything");
    assert!(
        connected[0]["tools"].as_u64().unwrap() > 0,
        "{}",
        connected[0]
    );
    // The stdio server's process id is a number, not Rust's `Some(…)`.
    let started: Vec<&Value> = (events.iter())
        .filter(|e| e["message"] == "started stdio server")
        .collect();
    assert!(!started.is_empty(), "{events:?}");
    assert!(
        started
            .iter()
            .all(|e| e["pid"].as_u64().is_some_and(|p| p > 0)),
        "{started:?}"
    );
    // server-everything sends long instructions: they stay below DEBUG.
    let all = serde_json::to_string(&events).unwrap();
    assert!(!all.contains("instructions"), "{all}");

    // A call the policy refuses (the agent's action is off) is one INFO line.
    let (bin, data) = (std::path::Path::new(BIN), dir.path().join("data"));
    let token = kit::acme_integrator(bin, &data);
    let listening = events
        .iter()
        .filter_map(|e| e["message"].as_str())
        .find_map(|m| m.strip_prefix("switchboard listening on "))
        .unwrap()
        .trim_end_matches("/mcp")
        .to_string();
    let refused = reqwest::Client::new()
        .post(format!(
            "{listening}/api/agents/bot/actions/mcp.everything.echo/invoke"
        ))
        .bearer_auth(&token)
        .json(&json!({"arguments": {"message": "secret-argument"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    let refusal = loop {
        let line = lines.next_line().await.unwrap().expect("the log goes on");
        let event: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not one JSON object: {line:?}: {e}"));
        if event["message"] == "refused" {
            break event;
        }
    };
    assert_eq!(refusal["level"], "INFO", "{refusal}");
    assert_eq!(refusal["action"], "mcp.everything.echo", "{refusal}");
    assert_eq!(refusal["agent"], "bot", "{refusal}");
    assert_eq!(refusal["kind"], "policy_denied", "{refusal}");
    assert!(
        !refusal.to_string().contains("secret-argument"),
        "{refusal}"
    );
}
