//! The registry against our misbehaving fixture: bad names, hangs, crashes, huge results, _meta.

use serde_json::json;
use std::time::Duration;
use switchboard_config::load;
use switchboard_core::{ErrorKind, ServerStatus};
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;
use tokio_util::sync::CancellationToken;

async fn registry() -> (tempfile::TempDir, Registry) {
    let (dir, path) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(20_000)}));
    let registry = Registry::new(RegistryOptions::default());
    let servers = registry.apply_config(&load(&[path]).unwrap()).await;
    assert_eq!(servers[0].status, ServerStatus::Ready, "{servers:?}");
    (dir, registry)
}

/// Waits (inside the fixture, event-driven) until a hang call was cancelled upstream.
async fn cancelled_upstream(registry: &Registry, count: usize) -> Vec<String> {
    let result = registry
        .call_tool(
            "fx__cancelled",
            Some(json!({"count": count})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    serde_json::from_str(&kit::text(&result)).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_and_duplicate_names_are_dropped_and_the_rest_stay() {
    let (_dir, registry) = registry().await;
    let names: Vec<String> = registry
        .tools()
        .iter()
        .map(|t| t.exposed_name.clone())
        .collect();
    assert!(names.contains(&"fx__echo".to_string()));
    assert!(!names.iter().any(|n| n.contains("bad")));
    assert_eq!(names.iter().filter(|n| *n == "fx__echo").count(), 1);
    let echo = registry.catalog().tool("fx__echo").unwrap().clone();
    assert_eq!(echo.tool.description.as_deref(), Some("Echoes text back"));
    assert_eq!(registry.catalog().warnings.len(), 2);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_timeout_is_reported_as_timeout_and_the_upstream_is_told_to_cancel() {
    let (_dir, registry) = registry().await;
    let err = registry
        .call_tool(
            "fx__hang",
            None,
            CallOptions::default().with_timeout(Duration::from_millis(300)),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Timeout, "{err}");
    assert_eq!(cancelled_upstream(&registry, 1).await.len(), 1);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_caller_that_goes_away_cancels_the_upstream_call() {
    let (_dir, registry) = registry().await;
    let token = CancellationToken::new();
    let (started_tx, mut started) = tokio::sync::mpsc::channel(4);
    let call = {
        let registry = registry.clone();
        let opts = CallOptions::default()
            .with_cancel(token.clone())
            .with_progress(started_tx.clone());
        tokio::spawn(async move { registry.call_tool("fx__hang", None, opts).await })
    };
    // The server says the hang started: it is in flight upstream before the caller leaves.
    started.recv().await.expect("the hang call started");
    // A concurrent call still goes through meanwhile.
    let echo = registry
        .call_tool(
            "fx__echo",
            Some(json!({"text": "hi"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(kit::text(&echo), "hi");
    token.cancel();
    assert!(call.await.unwrap().is_err());
    assert_eq!(cancelled_upstream(&registry, 1).await.len(), 1);

    // Dropping the call future is the other way a caller goes away.
    let dropped = {
        let registry = registry.clone();
        let opts = CallOptions::default().with_progress(started_tx);
        tokio::spawn(async move { registry.call_tool("fx__hang", None, opts).await })
    };
    started.recv().await.expect("the second hang call started");
    registry
        .call_tool(
            "fx__echo",
            Some(json!({"text": "again"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    dropped.abort();
    let _ = dropped.await;
    let cancelled = cancelled_upstream(&registry, 2).await;
    assert_eq!(cancelled.len(), 2, "{cancelled:?}");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crashing_tool_fails_that_call_only_and_the_next_call_reconnects() {
    let (_dir, registry) = registry().await;
    let err = registry
        .call_tool("fx__crash", None, CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::TransportError, "{err}");
    let echo = registry
        .call_tool(
            "fx__echo",
            Some(json!({"text": "back"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(kit::text(&echo), "back");
    assert_eq!(registry.servers()[0].status, ServerStatus::Ready);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_huge_result_arrives_whole() {
    let (_dir, registry) = registry().await;
    let result = registry
        .call_tool(
            "fx__huge",
            Some(json!({"size": 3_000_000})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(kit::text(&result).len(), 3_000_000);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_end_user_travels_upstream_in_meta() {
    let (_dir, registry) = registry().await;
    let result = registry
        .call_tool(
            "fx__meta",
            None,
            CallOptions::default().with_end_user("user-7"),
        )
        .await
        .unwrap();
    let meta: serde_json::Value = serde_json::from_str(&kit::text(&result)).unwrap();
    assert_eq!(meta["bound_end_user_id"], "user-7");
    let without = registry
        .call_tool("fx__meta", None, CallOptions::default())
        .await
        .unwrap();
    let meta: serde_json::Value = serde_json::from_str(&kit::text(&without)).unwrap();
    assert!(meta.get("bound_end_user_id").is_none());
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn non_object_arguments_are_an_invalid_request() {
    let (_dir, registry) = registry().await;
    let err = registry
        .call_tool("fx__echo", Some(json!([1, 2])), CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidRequest);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn stopping_a_server_kills_its_whole_process_group() {
    let mut entry = kit::misbehaving_entry(20_000);
    entry["env"] = json!({"FIXTURE_GRANDCHILD": "1"});
    let (_dir, path) = kit::write_mcp_json(json!({"fx": entry}));
    let registry = Registry::new(RegistryOptions::default());
    registry.apply_config(&load(&[path]).unwrap()).await;
    let result = registry
        .call_tool("fx__grandchild_pid", None, CallOptions::default())
        .await
        .unwrap();
    let pid: i32 = kit::text(&result).parse().unwrap();
    assert!(pid > 0);
    assert!(
        !kit::wait_for_exit(pid, 0),
        "the grandchild runs while the server does"
    );
    registry.shutdown().await;
    assert!(
        kit::wait_for_exit(pid, 10_000),
        "grandchild {pid} outlived its server"
    );
}
