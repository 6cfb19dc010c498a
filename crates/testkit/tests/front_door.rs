//! The front door is built once: `/mcp` and an agent endpoint refuse the same requests with
//! the same status, headers and body (no token, an unknown token, an org without the feature,
//! a body over the bound, a session past the caller's bound, and a live session's request
//! without its token: who calls is checked before the fast path answers) and admit the same ones.

mod common;

use common::token;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::sync::Arc;
use switchboard_core::Limits;
use switchboard_registry::{Registry, RegistryOptions};
use switchboard_server::{ControlPlane, HttpOptions, serve_http};
use switchboard_store::{AuditWriter, Chain, Sealer, SqlStore, Store};

/// What a refusal or an admission shows a client: status, the headers that matter, body.
#[derive(Debug, PartialEq)]
struct Answer {
    status: StatusCode,
    headers: Vec<(String, String)>,
    body: Value,
}

async fn post(url: &str, bearer: Option<&str>, body: Vec<u8>) -> Answer {
    post_in(url, None, bearer, body).await.0
}

/// POSTs `body` in `session` when given; the answer, and the session it opened.
async fn post_in(
    url: &str,
    session: Option<&str>,
    bearer: Option<&str>,
    body: Vec<u8>,
) -> (Answer, Option<String>) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body);
    if let Some(bearer) = bearer {
        request = request.bearer_auth(bearer);
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.expect("POST");
    let status = response.status();
    let opened = (response.headers().get("mcp-session-id"))
        .map(|id| id.to_str().expect("a session id").to_string());
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "date" | "mcp-session-id"))
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap_or("?").to_string()))
        .collect();
    if response.headers().contains_key("mcp-session-id") {
        headers.push(("mcp-session-id".into(), "<a session>".into()));
    }
    headers.sort();
    let text = response.text().await.expect("a body");
    let body = match status.is_success() {
        // An admitted handshake: its answer names the endpoint; that it answered is enough.
        true => Value::Null,
        false => serde_json::from_str(&text).unwrap_or(Value::String(text)),
    };
    let answer = Answer {
        status,
        headers,
        body,
    };
    (answer, opened)
}

/// A plain call a live session's fast path would answer at once.
fn list_tools() -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).unwrap()
}

/// The client's `notifications/initialized`, which makes a session live.
fn initialized() -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap()
}

fn initialize() -> Vec<u8> {
    serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "front-door-parity", "version": "1"}}}),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_and_an_agent_endpoint_refuse_and_admit_alike() {
    let data = tempfile::tempdir().unwrap();
    let store = Arc::new(SqlStore::open_sqlite(data.path()).await.unwrap());
    let sealer = Arc::new(Sealer::from_keys(vec![[7u8; 32]]));
    let (audit, _audit_task) =
        AuditWriter::start(store.clone(), Chain::new(sealer.audit_key()), 64);
    let registry = Registry::new(RegistryOptions::default().with_dev(true));
    let org = store
        .create_org("acme", &["mcp_external_servers".into()])
        .await
        .unwrap();
    let roles = ["integrations:manage", "integrations:view"];
    // One token per endpoint: each holds its own sessions.
    let tokens = [
        token(&store, &org.id, &roles).await,
        token(&store, &org.id, &roles).await,
    ];
    // An org without the integrations feature: its tokens are refused on both endpoints.
    let bare = store.create_org("bare", &[]).await.unwrap();
    let featureless = token(&store, &bare.id, &roles).await;
    let control = ControlPlane::new(registry.clone(), store.clone(), sealer, audit);

    let limits = Limits {
        max_request_bytes: 4096,
        max_sessions_per_token: 1,
        failed_auth_per_minute: 1000,
        ..Default::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let shutdown = tokio_util::sync::CancellationToken::new();
    let options = HttpOptions::default()
        .with_shutdown(shutdown.clone())
        .with_control_plane(control)
        .with_token(Some("the-operator's-token".into()))
        .with_limits(&limits);
    let server = tokio::spawn(serve_http(listener, registry, options));

    let endpoints = [format!("{base}/mcp"), format!("{base}/mcp/agents/helper")];
    let mut answers: Vec<Vec<(&str, Answer)>> = Vec::new();
    for (url, token) in endpoints.iter().zip(&tokens) {
        let oversized = [initialize(), vec![b' '; 4096]].concat();
        let mut seen = vec![
            ("no token", post(url, None, initialize()).await),
            (
                "an unknown org token",
                post(url, Some("sb_unknown"), initialize()).await,
            ),
            (
                "a token of no kind",
                post(url, Some("guess"), initialize()).await,
            ),
            (
                "an org without the feature",
                post(url, Some(&featureless), initialize()).await,
            ),
            (
                "a body over the bound",
                post(url, Some(token), oversized).await,
            ),
        ];
        let (first, session) = post_in(url, None, Some(token), initialize()).await;
        let session = session.expect("the first session is opened");
        let (live, _) = post_in(url, Some(&session), Some(token), initialized()).await;
        assert!(live.status.is_success(), "{live:?}");
        let on_session = |bearer| post_in(url, Some(&session), bearer, list_tools());
        seen.extend([
            ("the first session", first),
            (
                "a session past the token's bound",
                post(url, Some(token), initialize()).await,
            ),
            (
                "a live session's call without a token",
                on_session(None).await.0,
            ),
            (
                "a live session's call with an unknown token",
                on_session(Some("sb_unknown")).await.0,
            ),
            (
                "a live session's call with its token",
                on_session(Some(token)).await.0,
            ),
        ]);
        answers.push(seen);
    }
    let (mcp, agent) = (&answers[0], &answers[1]);
    for ((case, at_mcp), (_, at_agent)) in mcp.iter().zip(agent) {
        assert_eq!(
            at_mcp, at_agent,
            "{case}: /mcp and the agent endpoint differ"
        );
    }
    // And each is what it should be.
    let statuses: Vec<StatusCode> = mcp.iter().map(|(_, a)| a.status).collect();
    assert_eq!(
        statuses,
        [
            StatusCode::UNAUTHORIZED,
            StatusCode::UNAUTHORIZED,
            StatusCode::UNAUTHORIZED,
            StatusCode::FORBIDDEN,
            StatusCode::PAYLOAD_TOO_LARGE,
            StatusCode::OK,
            StatusCode::TOO_MANY_REQUESTS,
            StatusCode::UNAUTHORIZED,
            StatusCode::UNAUTHORIZED,
            StatusCode::OK,
        ]
    );
    for (case, answer) in mcp
        .iter()
        .filter(|(_, a)| a.status == StatusCode::UNAUTHORIZED)
    {
        assert!(
            answer
                .headers
                .contains(&("www-authenticate".into(), "Bearer".into())),
            "{case}: {answer:?}"
        );
        assert_eq!(answer.body["error"]["kind"], "unauthenticated", "{case}");
    }
    assert_eq!(
        mcp[6].1.body["error"]["data"]["limit"],
        "max_sessions_per_token"
    );
    // The operator's token is for /mcp only: an agent endpoint is an org's.
    let operator = Some("the-operator's-token");
    assert_eq!(
        post(&endpoints[0], operator, initialize()).await.status,
        StatusCode::OK
    );
    let at_agent = post(&endpoints[1], operator, initialize()).await;
    assert_eq!(
        at_agent, mcp[2].1,
        "the operator's token on an agent endpoint"
    );
    shutdown.cancel();
    server.await.unwrap().unwrap();
}
