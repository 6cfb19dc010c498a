//! A clock jump (issue 15) leaves restart backoff alone: it runs on monotonic time, so the wall
//! clock set hours forward or back neither skips nor stretches it, and the monotonic clock
//! moving past it ends it. (Token expiry, which runs on wall time, is in testkit's
//! oauth_clock_jumps.)

use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use switchboard_config::load;
use switchboard_core::{ErrorKind, JumpableClock, SharedClock};
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;

const HOURS_10: Duration = Duration::from_secs(10 * 3_600);

/// The seconds a "restarting in 1.2s after: …" refusal names.
fn named_wait(message: &str) -> f64 {
    let after = message.split("restarting in ").nth(1).unwrap_or("");
    let value = after.split_whitespace().next().unwrap_or("");
    match value.strip_suffix("ms") {
        Some(ms) => ms.parse::<f64>().unwrap() / 1_000.0,
        None => value.trim_end_matches('s').parse().unwrap(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn restart_backoff_follows_the_monotonic_clock_not_the_wall_clock() {
    let jumpable = Arc::new(JumpableClock::default());
    let (_dir, path) = kit::write_mcp_json(json!({ "fx": kit::misbehaving_entry(20_000) }));
    let options = RegistryOptions::default().with_clock(SharedClock::new(jumpable.clone()));
    let registry = Registry::new(options);
    registry.apply_config(&load(&[path]).unwrap()).await;
    // Three crashes in a row: the backoff is now 2 s (±20 %), long enough that the real
    // clock cannot end it while this test looks.
    for _ in 0..3 {
        let crashed = registry
            .call_tool("fx__crash", None, CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(crashed.kind, ErrorKind::TransportError, "{crashed}");
    }
    let quick = || {
        let opts = CallOptions::default().with_timeout(Duration::from_millis(200));
        registry.call_tool("fx__echo", Some(json!({"text": "hi"})), opts)
    };
    let before = quick().await.unwrap_err();
    assert!(before.message.contains("restarting in"), "{before}");
    let waiting = named_wait(&before.message);
    assert!((1.0..=2.4).contains(&waiting), "{before}");
    // Ten hours forward (a suspend, an NTP step) and twenty back: the call with too little
    // time is still refused, naming no longer a wait than before.
    for forward in [true, false, false] {
        jumpable.jump_wall(HOURS_10, forward);
        let refused = quick().await.unwrap_err();
        assert_eq!(refused.kind, ErrorKind::TransportError, "{refused}");
        assert!(refused.message.contains("restarting in"), "{refused}");
        assert!(named_wait(&refused.message) <= waiting, "{refused}");
    }
    // The monotonic clock past the backoff: the server may start again at once.
    jumpable.advance_monotonic(Duration::from_secs(3));
    if let Err(e) = quick().await {
        assert!(!e.message.contains("restarting in"), "{e}");
    }
    let echoed = registry
        .call_tool(
            "fx__echo",
            Some(json!({"text": "back"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(kit::text(&echoed), "back");
    registry.shutdown().await;
}
