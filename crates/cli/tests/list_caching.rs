//! A 2026-07-28 caller learns how long it may keep the gateway's lists (SEP-2549): the least
//! TTL of the servers merged, `public` only when every server says so and every caller of the
//! endpoint gets the same lists. Read with the official Python SDK 2.x client; the upstream is
//! tests/fixtures/modern_server.py (tools 60 s public, prompts 30 s private, resources no hint,
//! reads 10 s public).

use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// The lists' hints as the SDK 2.x client reads them through `switchboard stdio`.
async fn over_stdio(config: &Path, data: &Path) -> Value {
    let (config, data) = (config.to_str().unwrap(), data.to_str().unwrap());
    let args = [
        "lists-stdio",
        "--",
        BIN,
        "stdio",
        "--dev",
        "-c",
        config,
        "--data",
        data,
    ];
    kit::run_client_on(&kit::python2(), "relay_probe.py", &args).await
}

/// A TTL the fixture gave, counted down since discovery but not past it.
fn counted_down(hint: &Value, from_ms: u64) -> bool {
    hint["ttl_ms"]
        .as_u64()
        .is_some_and(|ttl| ttl > from_ms - 30_000 && ttl <= from_ms)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_lists_say_how_long_they_stay_fresh_and_who_may_share_them() {
    // One 2026-07-28 server behind switchboard stdio: its hints, counted down; every caller of
    // a stdio gateway is its operator, so a public list stays public.
    let (dir, path) = kit::write_mcp_json(json!({ "modern": kit::modern_entry() }));
    let seen = over_stdio(&path, &dir.path().join("data")).await;
    assert_eq!(seen["protocol"], "2026-07-28", "{seen}");
    assert!(counted_down(&seen["tools"], 60_000), "{seen}");
    assert_eq!(seen["tools"]["cache_scope"], "public", "{seen}");
    assert!(counted_down(&seen["prompts"], 30_000), "{seen}");
    assert_eq!(seen["prompts"]["cache_scope"], "private", "{seen}");
    // No hint from the server: stale at once.
    assert_eq!(
        seen["resources"],
        json!({"ttl_ms": 0, "cache_scope": "private"})
    );
    // A read keeps the server's hints.
    assert_eq!(seen["read"]["cache_scope"], "public", "{seen}");
    assert!(
        seen["read"]["ttl_ms"].as_u64().is_some_and(|t| t > 0),
        "{seen}"
    );

    // Beside a server on an older revision (no hints), the merged tools list is stale; the
    // prompts list too, since the older server offers prompts.
    let (dir, path) = kit::write_mcp_json(json!({
        "modern": kit::modern_entry(),
        "relay": kit::relay_entry(),
    }));
    let seen = over_stdio(&path, &dir.path().join("data")).await;
    assert_eq!(
        seen["tools"],
        json!({"ttl_ms": 0, "cache_scope": "private"}),
        "{seen}"
    );
    assert_eq!(seen["prompts"]["ttl_ms"], 0, "{seen}");

    // Over HTTP the endpoint also answers org tokens with other servers: private.
    let (dir, path) = kit::write_mcp_json(json!({ "modern": kit::modern_entry() }));
    let gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &path, 1).await;
    let seen =
        kit::run_client_on(&kit::python2(), "relay_probe.py", &["lists", &gateway.url]).await;
    assert!(counted_down(&seen["tools"], 60_000), "{seen}");
    assert_eq!(seen["tools"]["cache_scope"], "private", "{seen}");
    // A read too: the same URI may name another org's resource there.
    assert_eq!(seen["read"]["cache_scope"], "private", "{seen}");
    assert!(
        seen["read"]["ttl_ms"].as_u64().is_some_and(|t| t > 0),
        "{seen}"
    );
}
