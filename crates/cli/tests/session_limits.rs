//! Downstream sessions are bounded (issue 15): one client address at its share is refused with
//! a JSON-RPC error naming the limit while another address still gets in, sessions past the
//! memory bound are parked early and restored on use, and a closed session gives its room back.

use serde_json::{Value, json};
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// An `initialize` POSTed from `from`: (status, Retry-After, session id, body).
async fn initialize(url: &str, from: &str) -> (u16, Option<String>, Option<String>, String) {
    let init = kit::initialize_request();
    let response = kit::post_mcp_from(url, from, None, None, &init).await;
    let header = |name: &str| {
        let value = response.headers().get(name);
        value.map(|v| v.to_str().unwrap().to_string())
    };
    let (retry, session) = (header("retry-after"), header("mcp-session-id"));
    let status = response.status().as_u16();
    (status, retry, session, response.text().await.unwrap())
}

/// `tools/list` on `session` answers with the relay's tools.
async fn lists_tools(url: &str, session: &str) {
    let list = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    let (_, body) = kit::post_mcp(url, None, Some(session), &list).await;
    assert!(body.contains("relay__pid"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_at_its_share_is_refused_while_others_get_in_and_memory_stays_bounded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let limits = "[limits]\nmax_sessions_per_client = 3\nmax_sessions_in_memory = 2\n";
    let config = kit::relay_toml(dir.path(), limits);
    let gateway = kit::Gateway::start(std::path::Path::new(BIN), &[], dir.path(), &config, 1).await;
    let url = gateway.url.clone();
    let base = url.trim_end_matches("/mcp").to_string();

    let first = kit::open_session(&url).await;
    let second = kit::open_session(&url).await;
    let third = kit::open_session(&url).await;
    // Three sessions, two in memory: the longest idle was parked to make room.
    assert_eq!(
        kit::metric(&base, None, "switchboard_downstream_sessions ").await,
        2.0
    );
    assert_eq!(
        kit::metric(&base, None, "switchboard_downstream_sessions_held ").await,
        3.0
    );

    // The fourth from the same address is refused, naming the limit and when to retry.
    let (status, retry, session, body) = initialize(&url, "127.0.0.1").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(retry.as_deref(), Some("60"));
    assert_eq!(session, None);
    let error: Value = serde_json::from_str(&body).expect("a JSON-RPC error");
    assert_eq!(error["error"]["data"]["limit"], "max_sessions_per_client");
    assert_eq!(error["error"]["data"]["kind"], "rate_limited");
    assert_eq!(
        error["error"]["kind"], "rate_limited",
        "REST clients read the kind too"
    );
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("limit of 3 sessions"), "{message}");

    // A request of the sessionless 2026-07-28 revision opens no session: not refused.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let stateless = reqwest::Client::new()
        .post(&url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .json(&list)
        .send()
        .await
        .expect("POST tools/list");
    let status = stateless.status();
    let body = stateless.text().await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("relay__pid"), "{body}");

    // Another address is not held back by the first one's sessions.
    let (status, _, other, body) = initialize(&url, "127.0.0.2").await;
    assert_eq!(status, 200, "{body}");
    assert!(other.is_some(), "a session id for the second client");

    // The parked session is restored on use (parking another), and the rest still answer.
    for session in [&first, &second, &third] {
        lists_tools(&url, session).await;
    }
    assert!(kit::metric(&base, None, "switchboard_downstream_sessions ").await <= 2.0);

    // A closed session gives its room back.
    let closed = reqwest::Client::new()
        .delete(&url)
        .header("mcp-session-id", &second)
        .send()
        .await
        .unwrap();
    assert!(closed.status().is_success(), "{}", closed.status());
    let (status, _, _, body) = initialize(&url, "127.0.0.1").await;
    assert_eq!(status, 200, "{body}");
    let refused =
        "switchboard_downstream_session_refusals_total{limit=\"max_sessions_per_client\"}";
    assert_eq!(kit::metric(&base, None, refused).await, 1.0);
}
