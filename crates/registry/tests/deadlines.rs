//! One deadline per call (issue 15): the time a call waits for a slot, or for its server's
//! restart backoff, comes out of its timeout; the upstream request gets only what is left.

use serde_json::json;
use std::time::Duration;
use switchboard_config::load;
use switchboard_core::ErrorKind;
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;

const TIMEOUT: Duration = Duration::from_millis(2_000);

async fn start(entry: serde_json::Value) -> (tempfile::TempDir, Registry) {
    let (dir, path) = kit::write_mcp_json(json!({ "fx": entry }));
    let registry = Registry::new(RegistryOptions::default());
    registry.apply_config(&load(&[path]).unwrap()).await;
    (dir, registry)
}

/// A call of `fx__slow` answering after `ms`, within `timeout` (none: the server's).
async fn slow(
    registry: &Registry,
    ms: u64,
    timeout: Option<Duration>,
) -> Result<String, switchboard_core::CallError> {
    let mut opts = CallOptions::default();
    if let Some(timeout) = timeout {
        opts = opts.with_timeout(timeout);
    }
    let args = json!({"text": "done", "count": ms});
    let result = registry.call_tool("fx__slow", Some(args), opts).await?;
    Ok(kit::text(&result))
}

#[tokio::test(flavor = "multi_thread")]
async fn time_spent_queued_comes_out_of_the_calls_timeout() {
    let mut entry = kit::misbehaving_entry(20_000);
    entry["max_concurrent_calls"] = json!(1);
    let (_dir, registry) = start(entry).await;
    // The one slot is busy for 1.5 s.
    let first = {
        let registry = registry.clone();
        tokio::spawn(async move { slow(&registry, 1_500, None).await })
    };
    while registry.servers()[0].calls_in_flight == 0 {
        tokio::task::yield_now().await;
    }
    // 1 s of work after ~1.5 s in the queue does not fit in 2 s: with the timeout applied
    // again to the request it would have (3.5 s in all).
    let second = slow(&registry, 1_000, Some(TIMEOUT)).await.unwrap_err();
    assert_eq!(second.kind, ErrorKind::Timeout, "{second}");
    assert!(
        second.message.contains("2s"),
        "names the call's timeout: {second}"
    );
    assert!(
        second.message.contains("waiting for a call slot"),
        "says where the time went and what to raise: {second}"
    );
    assert_eq!(first.await.unwrap().unwrap(), "done");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restarts_backoff_comes_out_of_the_calls_timeout() {
    let (_dir, registry) = start(kit::misbehaving_entry(20_000)).await;
    let crashed = registry
        .call_tool("fx__crash", None, CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(crashed.kind, ErrorKind::TransportError, "{crashed}");
    // The next call waits out the crash's backoff (~0.5 s) and the restart: 1.8 s of work no
    // longer fits in the 2 s, which the request alone would have had before.
    let after = slow(&registry, 1_800, Some(TIMEOUT)).await.unwrap_err();
    assert_eq!(after.kind, ErrorKind::Timeout, "{after}");
    // The server itself is back, for calls that fit.
    assert_eq!(slow(&registry, 10, None).await.unwrap(), "done");
    registry.shutdown().await;
}
