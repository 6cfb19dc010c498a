//! Streamable HTTP upstreams: headers and bearer tokens (with placeholders) reach the server,
//! every page of a paginated list is discovered, URLs are checked against --dev, an
//! upstream session that expired (the server restarted) is re-initialized transparently, and
//! a call whose response stream breaks is resumed where it broke.

use serde_json::{Value, json};
use std::path::Path;
use switchboard_config::load_with_env;
use switchboard_core::ServerStatus;
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;

const ECHO: &str = env!("CARGO_BIN_EXE_echo-server");

fn env(name: &str) -> Option<String> {
    (name == "ECHO_TOKEN").then(|| "s3cret".to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn headers_and_bearer_token_reach_the_upstream_and_all_pages_are_listed() {
    let upstream = kit::Served::start(
        Path::new(ECHO),
        &["--http", "127.0.0.1:0", "--extra-tools", "25"],
    )
    .await;
    let (_dir, path) = kit::write_mcp_json(json!({
        "with_header": {"type": "http", "url": upstream.url, "headers": {"X-Test": "h-${ECHO_TOKEN}"}},
        "with_bearer": {"type": "http", "url": upstream.url, "auth": {"type": "bearer", "token": "{env:ECHO_TOKEN}"}},
        "with_key": {"type": "http", "url": upstream.url, "auth": {"type": "apiKey", "headerName": "X-Test", "valuePrefix": "Key ", "key": "${ECHO_TOKEN}"}},
        "key_in_authorization": {"type": "http", "url": upstream.url, "auth": {"type": "apiKey", "key": "${ECHO_TOKEN}"}},
    }));
    let config = load_with_env(&[path], &env).unwrap();
    let registry = Registry::new(RegistryOptions::default().with_dev(true));
    let servers = registry.apply_config(&config).await;
    for s in &servers {
        assert_eq!(s.status, ServerStatus::Ready, "{s:?}");
        assert_eq!(
            s.tool_count, 28,
            "three tools plus 25 extras over three pages"
        );
    }
    let seen = |tool: &'static str| {
        let registry = registry.clone();
        async move {
            let result = registry
                .call_tool(tool, None, CallOptions::default())
                .await
                .unwrap();
            serde_json::from_str::<Value>(&result.content[0].as_text().unwrap().text).unwrap()
        }
    };
    let header = seen("with_header__headers").await;
    assert_eq!(header["x_test"], "h-s3cret");
    assert_eq!(header["authorization"], Value::Null);
    let bearer = seen("with_bearer__headers").await;
    assert_eq!(bearer["authorization"], "Bearer s3cret");
    let key = seen("with_key__headers").await;
    assert_eq!(key["x_test"], "Key s3cret");
    let default_header = seen("key_in_authorization__headers").await;
    assert_eq!(
        default_header["authorization"], "s3cret",
        "Authorization, no prefix"
    );
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn loopback_and_plain_http_urls_are_refused_without_dev() {
    let (_dir, path) = kit::write_mcp_json(json!({
        "local": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
        "named": {"type": "http", "url": "https://localhost:9/mcp"},
    }));
    let config = load_with_env(&[path], &env).unwrap();
    let registry = Registry::new(RegistryOptions::default());
    for s in registry.apply_config(&config).await {
        assert_eq!(s.status, ServerStatus::Error, "{s:?}");
        assert!(s.last_error.as_deref().unwrap().contains("--dev"), "{s:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_upstream_session_is_reinitialized_and_the_call_retried() {
    let port = kit::free_port();
    let listen = format!("127.0.0.1:{port}");
    // Sessions are what this is about: the upstream speaks 2025-11-25 only (it answers the
    // gateway's server/discover with that, and is then initialized).
    let session_only = ["--http", &listen, "--versions", "2025-11-25"];
    let upstream = kit::Served::start(Path::new(ECHO), &session_only).await;
    let (_dir, path) = kit::write_mcp_json(json!({"echo": {"type": "http", "url": upstream.url}}));
    let registry = Registry::new(RegistryOptions::default().with_dev(true));
    registry
        .apply_config(&load_with_env(&[path], &env).unwrap())
        .await;
    let call = |text: &'static str| {
        let registry = registry.clone();
        async move {
            registry
                .call_tool(
                    "echo__echo",
                    Some(json!({"text": text})),
                    CallOptions::default(),
                )
                .await
        }
    };
    // Tool calls go straight to the session (ids rmcp's peer never uses): "sb-N".
    let sent_as = |registry: Registry| async move {
        let result = registry
            .call_tool("echo__headers", None, CallOptions::default())
            .await
            .expect("headers");
        let seen: Value = serde_json::from_str(&kit::text(&result)).unwrap();
        seen["request_id"].clone()
    };
    let direct = sent_as(registry.clone()).await;
    assert!(
        direct.as_str().is_some_and(|id| id.starts_with("sb-")),
        "{direct}"
    );
    assert_eq!(kit::text(&call("before").await.unwrap()), "before");
    // The server restarts and forgets every session: our session id now answers 404.
    upstream.stop().await;
    let _restarted = kit::Served::start(Path::new(ECHO), &session_only).await;
    let after = call("after")
        .await
        .expect("re-initialized and retried once");
    assert_eq!(kit::text(&after), "after");
    assert_eq!(registry.servers()[0].status, ServerStatus::Ready);
    // The new session takes calls directly again.
    let direct = sent_as(registry.clone()).await;
    assert!(
        direct.as_str().is_some_and(|id| id.starts_with("sb-")),
        "{direct}"
    );
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_whose_stream_breaks_is_resumed_where_it_broke() {
    // A stream is resumed on its session (2025-11-25: 2026-07-28 has none).
    let upstream = kit::Served::start(
        Path::new(ECHO),
        &[
            "--http",
            "127.0.0.1:0",
            "--interrupting",
            "--versions",
            "2025-11-25",
        ],
    )
    .await;
    let (_dir, path) = kit::write_mcp_json(json!({"echo": {"type": "http", "url": upstream.url}}));
    let registry = Registry::new(RegistryOptions::default().with_dev(true));
    registry
        .apply_config(&load_with_env(&[path], &env).unwrap())
        .await;
    for _ in 0..3 {
        let result = registry
            .call_tool("echo__interrupted", None, CallOptions::default())
            .await
            .expect("the answer, from the resumed stream");
        assert_eq!(kit::text(&result), "resumed");
    }
    registry.shutdown().await;
}

/// A server that also speaks 2026-07-28 is reached on it, and its tool calls are still sent
/// directly, without a session and with that revision's headers and `_meta` (rmcp's server
/// checks both): "sb-N" ids, never one of rmcp's peer.
#[tokio::test(flavor = "multi_thread")]
async fn a_2026_upstream_takes_its_calls_directly_without_a_session() {
    let upstream = kit::Served::start(Path::new(ECHO), &["--http", "127.0.0.1:0"]).await;
    let (_dir, path) = kit::write_mcp_json(json!({"echo": {"type": "http", "url": upstream.url}}));
    let registry = Registry::new(RegistryOptions::default().with_dev(true));
    registry
        .apply_config(&load_with_env(&[path], &env).unwrap())
        .await;
    let server = &registry.servers()[0];
    assert_eq!(
        server.protocol_version.as_deref(),
        Some("2026-07-28"),
        "{server:?}"
    );
    for _ in 0..2 {
        let result = registry
            .call_tool("echo__headers", None, CallOptions::default())
            .await
            .expect("headers");
        let seen: Value = serde_json::from_str(&kit::text(&result)).unwrap();
        let id = &seen["request_id"];
        assert!(
            id.as_str().is_some_and(|id| id.starts_with("sb-")),
            "{seen}"
        );
    }
    let echoed = registry
        .call_tool(
            "echo__echo",
            Some(json!({"text": "hi"})),
            CallOptions::default(),
        )
        .await
        .expect("echo");
    assert_eq!(kit::text(&echoed), "hi");
    registry.shutdown().await;
}
