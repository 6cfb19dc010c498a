//! The front door's bounds through the real binary (issue 15): requests in flight per session
//! and per client address (a cancel still gets through at the limit), request bodies too large
//! or too slow, and wrong bearer tokens slowed per address while another address gets in —
//! each refusal an HTTP status, a JSON error naming the `[limits]` setting, and a metric.

use futures::StreamExt;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use switchboard_testkit as kit;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
/// A failure guard for what should happen at once.
const GUARD: Duration = Duration::from_secs(30);

/// The misbehaving fixture as `fx` (its `hang` tool never answers), with `settings`.
async fn gateway_with(settings: &str) -> (tempfile::TempDir, kit::Gateway) {
    let (dir, mcp_json) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(120_000)}));
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, settings).unwrap();
    let toml = toml.to_str().unwrap().to_string();
    let args = ["--dev", "-c", toml.as_str()];
    let gateway = kit::Gateway::start(Path::new(BIN), &args, dir.path(), &mcp_json, 1).await;
    (dir, gateway)
}

struct Answer {
    status: u16,
    retry: Option<String>,
    body: String,
}

impl Answer {
    /// The refusal's JSON body: its kind and the `[limits]` setting it names.
    fn refusal(&self) -> (String, String) {
        let body: Value = serde_json::from_str(&self.body).expect("a JSON refusal");
        let error = &body["error"];
        assert_eq!(error["kind"], error["data"]["kind"], "{body}");
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        (text(&error["kind"]), text(&error["data"]["limit"]))
    }
}

async fn answer(response: reqwest::Response) -> Answer {
    let header = |name: &str| {
        let value = response.headers().get(name);
        value.map(|v| v.to_str().unwrap().to_string())
    };
    let (status, retry) = (response.status().as_u16(), header("retry-after"));
    let body = response.text().await.unwrap();
    Answer {
        status,
        retry,
        body,
    }
}

fn list(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
}

/// Starts `fx__hang` in `session` and returns its open stream once the fixture says it
/// started (so the call is in flight).
async fn hanging_call(url: &str, session: &str, id: u64) -> reqwest::Response {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "fx__hang", "arguments": {}, "_meta": {"progressToken": id}}});
    let response = kit::post_mcp_from(url, "127.0.0.1", None, Some(session), &call).await;
    assert_eq!(response.status(), 200);
    response
}

async fn until_started(
    response: reqwest::Response,
) -> impl futures::Stream<Item = reqwest::Result<axum::body::Bytes>> {
    let mut stream = response.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("started") {
        let chunk = tokio::time::timeout(GUARD, stream.next()).await;
        let chunk = chunk.expect("the hang call says it started").expect("more");
        seen.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
    }
    stream
}

/// `/metrics` counts `(limit, refusals)` for each limit.
async fn refusals_counted(gateway: &kit::Gateway, token: Option<&str>, counts: &[(&str, f64)]) {
    for (limit, count) in counts {
        let line = format!("switchboard_http_refusals_total{{limit=\"{limit}\"}}");
        let counted = kit::metric(gateway.base(), token, &line).await;
        assert_eq!(counted, *count, "{limit}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_in_flight_are_bounded_per_session_and_per_address_and_a_cancel_gets_through() {
    let limits = "[limits]\nmax_concurrent_requests_per_session = 2\nmax_concurrent_requests_per_token = 3\n";
    let (_dir, gateway) = gateway_with(limits).await;
    let url = gateway.url.as_str();
    let first = kit::open_session(url).await;
    let one = until_started(hanging_call(url, &first, 1).await).await;
    let _two = until_started(hanging_call(url, &first, 2).await).await;

    // A third request in the same session is refused, naming the limit.
    let refused =
        answer(kit::post_mcp_from(url, "127.0.0.1", None, Some(&first), &list(3)).await).await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.retry.as_deref(), Some("1"));
    let limit = "max_concurrent_requests_per_session";
    assert_eq!(refused.refusal(), ("rate_limited".into(), limit.into()));

    // Another session of the same address gets one more in, then meets the address's bound.
    let second = kit::open_session(url).await;
    let _three = until_started(hanging_call(url, &second, 4).await).await;
    let refused =
        answer(kit::post_mcp_from(url, "127.0.0.1", None, Some(&second), &list(5)).await).await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    let limit = "max_concurrent_requests_per_token";
    assert_eq!(refused.refusal(), ("rate_limited".into(), limit.into()));

    // Another address is not held back.
    let other =
        answer(kit::post_mcp_from(url, "127.0.0.2", None, None, &kit::initialize_request()).await)
            .await;
    assert_eq!(other.status, 200, "{}", other.body);

    // At the limit a cancel (a notification) still gets through, and the cancelled call's
    // room comes back once its stream ends.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "reason": "enough"}});
    let cancelled = kit::post_mcp_from(url, "127.0.0.1", None, Some(&first), &cancel).await;
    assert!(cancelled.status().is_success(), "{}", cancelled.status());
    let ended = tokio::time::timeout(GUARD, one.count()).await;
    assert!(ended.is_ok(), "the cancelled call's stream ends");
    let listed = kit::post_mcp(url, None, Some(&second), &list(6)).await;
    assert!(listed.1.contains("fx__hang"), "{}", listed.1);

    let counts = [
        ("max_concurrent_requests_per_session", 1.0),
        ("max_concurrent_requests_per_token", 1.0),
    ];
    refusals_counted(&gateway, None, &counts).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bodies_too_large_or_too_slow_are_refused_naming_the_limit() {
    let limits = "[limits]\nmax_request_bytes = 2048\nbody_read_secs = 1\n";
    let (_dir, gateway) = gateway_with(limits).await;
    let url = gateway.url.as_str();
    let session = kit::open_session(url).await;
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "fx__echo", "arguments": {"text": "x".repeat(4096)}}});
    let refused =
        answer(kit::post_mcp_from(url, "127.0.0.1", None, Some(&session), &big).await).await;
    assert_eq!(refused.status, 413, "{}", refused.body);
    let limit = (
        "invalid_request".to_string(),
        "max_request_bytes".to_string(),
    );
    assert_eq!(refused.refusal(), limit);
    assert!(
        refused.body.contains("larger than 2048 bytes"),
        "{}",
        refused.body
    );

    // The REST API answers the same way, before it reads a token.
    let api = format!("{}/api/integrations/mcp/servers", gateway.base());
    let refused =
        answer(kit::post_mcp_from(&api, "127.0.0.1", Some("sb_x"), None, &big).await).await;
    assert_eq!((refused.status, refused.refusal()), (413, limit));

    // A body that stops arriving is answered 408 once body_read_secs have passed.
    let address = url.trim_start_matches("http://").split('/').next().unwrap();
    let mut slow = tokio::net::TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: {session}\r\ncontent-length: 100\r\n\r\n{{\"jsonrpc\""
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    let mut reply = Vec::new();
    let read = tokio::time::timeout(GUARD, slow.read_to_end(&mut reply)).await;
    assert!(read.is_ok(), "the slow request is answered and closed");
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("body_read_secs"), "{reply}");

    let counts = [("max_request_bytes", 2.0), ("body_read_secs", 1.0)];
    refusals_counted(&gateway, None, &counts).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_tokens_are_slowed_per_address_while_another_address_gets_in() {
    let settings = "[gateway]\ntoken = \"right-token\"\n[limits]\nfailed_auth_per_minute = 3\n";
    let (_dir, gateway) = gateway_with(settings).await;
    let url = gateway.url.as_str();
    for _ in 0..3 {
        let wrong = answer(
            kit::post_mcp_from(
                url,
                "127.0.0.1",
                Some("wrong"),
                None,
                &kit::initialize_request(),
            )
            .await,
        )
        .await;
        assert_eq!(wrong.status, 401, "{}", wrong.body);
    }
    // Out of attempts: even the right token waits now, and is told for how long.
    let slowed = answer(
        kit::post_mcp_from(
            url,
            "127.0.0.1",
            Some("right-token"),
            None,
            &kit::initialize_request(),
        )
        .await,
    )
    .await;
    assert_eq!(slowed.status, 429, "{}", slowed.body);
    assert_eq!(
        slowed.refusal(),
        ("rate_limited".into(), "failed_auth_per_minute".into())
    );
    // Three a minute: one attempt comes back within 20 s.
    let retry: u64 = slowed.retry.as_deref().unwrap().parse().unwrap();
    assert!((1..=20).contains(&retry), "Retry-After {retry}");

    let other = answer(
        kit::post_mcp_from(
            url,
            "127.0.0.2",
            Some("right-token"),
            None,
            &kit::initialize_request(),
        )
        .await,
    )
    .await;
    assert_eq!(other.status, 200, "{}", other.body);

    let token = Some("right-token");
    refusals_counted(&gateway, token, &[("failed_auth_per_minute", 1.0)]).await;
    assert_eq!(
        kit::metric(gateway.base(), token, "switchboard_http_failed_auth_total").await,
        3.0
    );
}
