//! Several writers on one SQLite store in normal use (issue 30): short sessions that
//! initialize, call and close one after another through `serve`, on several connections, while a second process
//! creates orgs and tokens in the same store. Nothing is logged at ERROR by either, and every
//! call has its audit row in a chain that verifies.

use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
/// Short sessions one after another on each of several connections at once.
const SESSIONS: usize = 25;
const PARALLEL: usize = 8;
const ORGS: usize = 12;

/// Runs `switchboard ARGS…` on the store under `data`; its stdout and stderr.
fn switchboard(data: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("SWITCHBOARD_DATA", data)
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .output()
        .expect("run switchboard");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "switchboard {args:?}: {stderr}");
    (stdout, stderr)
}

/// One short session: initialize, a call, DELETE.
async fn short_session(url: &str, i: usize) {
    let session = kit::open_session(url).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "ev__echo", "arguments": {"message": format!("m{i}")}}});
    let (_, body) = kit::post_mcp(url, None, Some(&session), &call).await;
    assert!(body.contains(&format!("Echo: m{i}")), "{body}");
    let closed = reqwest::Client::new()
        .delete(url)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .expect("DELETE the session");
    assert!(closed.status().is_success(), "{}", closed.status());
}

#[tokio::test(flavor = "multi_thread")]
async fn short_sessions_beside_a_second_writer_log_no_error_and_lose_no_row() {
    let dir = tempfile::tempdir().unwrap();
    let entry = kit::everything_stdio_entry();
    let config = dir.path().join("mcp.json");
    std::fs::write(&config, json!({"mcpServers": {"ev": entry}}).to_string()).unwrap();
    let mut gateway = kit::Gateway::start(Path::new(BIN), &[], dir.path(), &config, 1).await;
    let data: PathBuf = dir.path().join("data");

    // The second writer: orgs and their tokens, one command after another.
    let admin = {
        let data = data.clone();
        tokio::task::spawn_blocking(move || {
            let mut logged = String::new();
            for i in 0..ORGS {
                let org = format!("org{i}");
                logged += &switchboard(&data, &["org", "create", &org]).1;
                let token = [
                    "token",
                    "create",
                    "--org",
                    &org,
                    "--role",
                    "integrations:view",
                ];
                logged += &switchboard(&data, &token).1;
            }
            logged
        })
    };
    let mut clients = Vec::new();
    for c in 0..PARALLEL {
        let url = gateway.url.clone();
        clients.push(tokio::spawn(async move {
            for i in 0..SESSIONS {
                short_session(&url, c * SESSIONS + i).await;
            }
        }));
    }
    for client in clients {
        client.await.unwrap();
    }
    let admin_log = admin.await.unwrap();
    assert!(
        !admin_log.contains("ERROR"),
        "the second writer logged: {admin_log}"
    );

    // Stopped, the gateway commits its last rows and ends its log: every line is read.
    // SAFETY: signalling our own child process.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(gateway.child.id().unwrap() as i32, libc::SIGTERM)
    };
    let mut errors = Vec::new();
    while let Some(line) = gateway.log.recv().await {
        if line.contains(" ERROR ") {
            errors.push(line);
        }
    }
    gateway.child.wait().await.unwrap();
    assert!(errors.is_empty(), "the gateway logged: {errors:#?}");

    // A row for every call and every org and token made, in one chain.
    let (verified, _) = switchboard(&data, &["audit", "verify", "--json"]);
    let verified: serde_json::Value = serde_json::from_str(&verified).unwrap();
    assert_eq!(verified["ok"], true, "{verified}");
    assert_eq!(
        verified["rows"],
        SESSIONS * PARALLEL + 2 * ORGS,
        "{verified}"
    );
}
