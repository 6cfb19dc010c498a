//! Parked sessions woken together (issue 30): 64 sessions parked, then each sent its next
//! request at the same moment, each from its own connection, with its GET stream opened
//! beside it as SDK clients do. Every answer is 200 with that session's own result, and
//! nothing is logged at ERROR while they are restored.

use serde_json::json;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const SESSIONS: usize = 64;

/// Reads the gateway's log until every session in `sessions` has been parked once more; the
/// lines read on the way.
async fn until_parked(
    log: &mut tokio::sync::mpsc::Receiver<String>,
    sessions: &HashSet<String>,
) -> Vec<String> {
    let mut parked = HashSet::new();
    let mut lines = Vec::new();
    let wait = async {
        while let Some(line) = log.recv().await {
            if line.contains("parked an idle session")
                && let Some(id) = line
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("session="))
                && sessions.contains(id)
            {
                parked.insert(id.to_string());
            }
            lines.push(line);
            if parked.len() == sessions.len() {
                return;
            }
        }
        panic!("the gateway's log ended with {} parked", parked.len());
    };
    tokio::time::timeout(Duration::from_secs(120), wait)
        .await
        .expect("every session parked within two minutes");
    lines
}

/// A client of its own: its requests open their own connection.
fn own_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("an HTTP client")
}

#[tokio::test(flavor = "multi_thread")]
async fn parked_sessions_woken_at_the_same_moment_are_all_restored_and_answered() {
    let dir = tempfile::tempdir().unwrap();
    let settings = "[limits]\nsession_park_secs = 1\n";
    let config = kit::server_toml(dir.path(), settings, "ev", &kit::everything_stdio_entry());
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

    let mut sessions = Vec::new();
    for _ in 0..SESSIONS {
        sessions.push(kit::open_session(&url).await);
    }
    let all: HashSet<String> = sessions.iter().cloned().collect();
    until_parked(&mut gateway.log, &all).await;

    // Every session's next request at once, each on its own connection.
    let start = Arc::new(tokio::sync::Barrier::new(SESSIONS));
    let mut woken = Vec::new();
    for (i, session) in sessions.iter().enumerate() {
        let (start, url, session) = (start.clone(), url.clone(), session.clone());
        woken.push(tokio::spawn(async move {
            let client = own_client();
            let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": "ev__echo", "arguments": {"message": format!("s{i}")}}});
            start.wait().await;
            let post = client
                .post(&url)
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25")
                .header("mcp-session-id", &session)
                .json(&call)
                .send();
            // The SDK clients' GET stream, opened beside the call.
            let listen = client
                .get(&url)
                .header("accept", "text/event-stream")
                .header("mcp-protocol-version", "2025-11-25")
                .header("mcp-session-id", &session)
                .send();
            let (post, listen) = tokio::join!(post, listen);
            let (post, listen) = (post.expect("POST"), listen.expect("GET"));
            let status = (post.status().as_u16(), listen.status().as_u16());
            drop(listen);
            (status, post.text().await.expect("the answer"))
        }));
    }
    for (i, answer) in futures::future::join_all(woken)
        .await
        .into_iter()
        .enumerate()
    {
        let ((post, get), body) = answer.unwrap();
        assert_eq!((post, get), (200, 200), "session {i}: {body}");
        assert!(
            body.contains(&format!("Echo: s{i}\"")),
            "session {i}: {body}"
        );
    }

    // Each is parked again once idle: by then everything logged while they were restored
    // has been read.
    let lines = until_parked(&mut gateway.log, &all).await;
    let errors: Vec<&String> = lines.iter().filter(|l| l.contains(" ERROR ")).collect();
    assert!(errors.is_empty(), "logged at ERROR: {errors:#?}");
}
