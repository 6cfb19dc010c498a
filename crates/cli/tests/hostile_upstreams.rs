//! Hostile upstreams (the fault matrix's upstream rows): a Streamable HTTP server that answers
//! with invalid UTF-8, a JSON bomb, an SSE stream that never ends, a body that drips, 5xx
//! storms, or a catalogue of 100,000 tools. Each call fails with a kind within its timeout, the
//! hostile server's own good tool still answers afterwards, and the other server never notices.

use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
/// The hostile server's call timeout, and what a failure may take beyond it.
const TIMEOUT_MS: u64 = 2_000;
const GRACE: Duration = Duration::from_secs(3);

/// One `tools/call`: Ok(text) or Err(kind), and how long it took.
async fn call(url: &str, session: &str, tool: &str) -> (Result<String, String>, Duration) {
    let started = Instant::now();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {"text": "hi"}}});
    let (_, body) = kit::post_mcp(url, None, Some(session), &call).await;
    (kit::tool_outcome(&body), started.elapsed())
}

async fn hostile_gateway(extra_tools: usize) -> (tempfile::TempDir, kit::Gateway, kit::Served) {
    let hostile = kit::Served::start_with_env(
        &kit::python(),
        &[kit::hostile_http_server().to_str().unwrap()],
        &[("FIXTURE_TOOLS", extra_tools.to_string().as_str())],
    )
    .await;
    let servers = json!({
        "hostile": {"type": "http", "url": hostile.url, "timeout_ms": TIMEOUT_MS},
        "fx": kit::misbehaving_entry(30_000),
    });
    let (dir, mcp_json) = kit::write_mcp_json(servers);
    let gateway = kit::Gateway::start_any(Path::new(BIN), &["--dev"], dir.path(), &mcp_json).await;
    (dir, gateway, hostile)
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_answers_fail_with_a_kind_in_time_and_hurt_nobody_else() {
    let (_dir, gateway, _hostile) = hostile_gateway(0).await;
    let url = gateway.url.as_str();
    let session = kit::open_session(url).await;
    let kinds = ["transport_error", "server_error", "timeout"];
    let bound = Duration::from_millis(TIMEOUT_MS) + GRACE;
    for tool in [
        "invalid_utf8",
        "json_bomb",
        "never_ends",
        "drip",
        "error_500",
        "error_503",
    ] {
        let (outcome, took) = call(url, &session, &format!("hostile__{tool}")).await;
        let kind = outcome.expect_err(tool);
        assert!(kinds.contains(&kind.as_str()), "{tool}: {kind}");
        assert!(took < bound, "{tool} took {took:?}");
        println!("{tool}: {kind} in {took:?}");
    }
    // A 5xx storm: 50 calls at once, each refused quickly, none hanging.
    let storm = (0..50).map(|_| call(url, &session, "hostile__error_503"));
    for (outcome, took) in futures::future::join_all(storm).await {
        assert!(outcome.is_err() && took < bound, "{outcome:?} {took:?}");
    }
    // The hostile server's good tool, and the other server, still answer.
    let (echo, _) = call(url, &session, "hostile__echo").await;
    assert_eq!(echo, Ok("still here".to_string()));
    let (other, _) = call(url, &session, "fx__echo").await;
    assert_eq!(other, Ok("hi".to_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_catalogue_of_100000_tools_is_capped_and_the_gateway_serves_on() {
    let (_dir, gateway, _hostile) = hostile_gateway(100_000).await;
    let url = gateway.url.as_str();
    let session = kit::open_session(url).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (_, body) = kit::post_mcp(url, None, Some(&session), &list).await;
    let data = body
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or(&body);
    let answer: Value = serde_json::from_str(data).expect("a tools/list answer");
    let tools = answer["result"]["tools"].as_array().expect("tools");
    let hostile = tools
        .iter()
        .filter(|t| {
            t["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("hostile__"))
        })
        .count();
    assert_eq!(
        hostile, 1000,
        "[limits] max_tools_per_server keeps the first 1,000"
    );
    assert!(
        tools.iter().any(|t| t["name"] == "fx__echo"),
        "the other server is listed"
    );
    let (echo, _) = call(url, &session, "hostile__echo").await;
    assert_eq!(echo, Ok("still here".to_string()));
    let (other, _) = call(url, &session, "fx__echo").await;
    assert_eq!(other, Ok("hi".to_string()));
}
