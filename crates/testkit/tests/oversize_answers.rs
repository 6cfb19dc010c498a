//! Oversize answers are refused without the gateway's memory growing by their size. One test
//! per binary, so the process's resident memory belongs to this test alone.

use serde_json::json;
use std::path::Path;
use switchboard_config::load;
use switchboard_core::{ErrorKind, Limits};
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;

const ECHO: &str = env!("CARGO_BIN_EXE_echo-server");

/// Peak resident memory of this process so far (VmHWM), in KiB.
fn peak_resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_oversize_http_answer_fails_the_call_without_buffering_it() {
    let upstream = kit::Served::start(Path::new(ECHO), &["--http", "127.0.0.1:0"]).await;
    let (_dir, path) = kit::write_mcp_json(
        json!({"big": {"type": "http", "url": upstream.url, "timeout_ms": 20000}}),
    );
    let limits = Limits {
        max_message_bytes: 1024 * 1024,
        ..Limits::default()
    };
    let registry = Registry::new(
        RegistryOptions::default()
            .with_dev(true)
            .with_limits(limits),
    );
    registry.apply_config(&load(&[path]).unwrap()).await;
    // Warm up allocator and connection with answers under the limit.
    for _ in 0..3 {
        registry
            .call_tool(
                "big__huge",
                Some(json!({"size": 500_000})),
                CallOptions::default(),
            )
            .await
            .unwrap();
    }
    let before = peak_resident_kib();
    let err = registry
        .call_tool(
            "big__huge",
            Some(json!({"size": 64_000_000})),
            CallOptions::default(),
        )
        .await
        .unwrap_err();
    let grown_mib = peak_resident_kib().saturating_sub(before) / 1024;
    eprintln!(
        "oversize answer refused as {}: {}; peak resident memory grew {grown_mib} MiB",
        err.kind, err.message
    );
    assert!(
        grown_mib < 32,
        "a 64 MB answer grew peak memory by {grown_mib} MiB"
    );
    assert_eq!(err.kind, ErrorKind::TransportError, "{err}");
    registry.shutdown().await;
}
