//! The registry against real MCP servers: server-everything (stdio and Streamable HTTP) and
//! mcp-server-time, all on this machine.

use serde_json::json;
use switchboard_config::load;
use switchboard_core::ServerStatus;
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;

#[tokio::test(flavor = "multi_thread")]
async fn everything_over_stdio_and_http_and_time_are_discovered_and_callable() {
    let http = kit::EverythingHttp::start().await;
    let (_dir, path) = kit::write_mcp_json(json!({
        "everything": kit::everything_stdio_entry(),
        "remote": {"type": "http", "url": http.url},
        "time": kit::time_entry(),
    }));
    let config = load(&[path]).unwrap();
    let registry = Registry::new(RegistryOptions::default().with_dev(true));
    let servers = registry.apply_config(&config).await;
    for s in &servers {
        assert_eq!(s.status, ServerStatus::Ready, "{s:?}");
        assert!(s.tool_count > 0, "{s:?}");
        assert!(s.protocol_version.is_some());
    }

    let names: Vec<String> = registry
        .tools()
        .iter()
        .map(|t| t.exposed_name.clone())
        .collect();
    for expected in [
        "everything__get-sum",
        "remote__get-sum",
        "time__get_current_time",
    ] {
        assert!(
            names.contains(&expected.to_string()),
            "{expected} not in {names:?}"
        );
    }
    assert_eq!(
        registry.route("remote__echo"),
        Some(("remote".to_string(), "echo".to_string()))
    );

    for tool in ["everything__get-sum", "remote__get-sum"] {
        let result = registry
            .call_tool(tool, Some(json!({"a": 2, "b": 40})), CallOptions::default())
            .await
            .unwrap();
        assert!(kit::text(&result).contains("42"), "{tool}: {result:?}");
    }
    let now = registry
        .call_tool(
            "time__get_current_time",
            Some(json!({"timezone": "UTC"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(kit::text(&now).contains("UTC"), "{now:?}");

    // Both everything servers offer the same resource URIs: exposed prefixed, routed back.
    let catalog = registry.catalog();
    let resource = catalog
        .resources
        .iter()
        .find(|r| r.server.as_str() == "remote")
        .expect("a remote resource");
    assert!(resource.resource.uri.starts_with("switchboard://remote/"));
    let read = registry
        .read_resource(&resource.resource.uri, CallOptions::default())
        .await
        .unwrap();
    assert!(!read.contents.is_empty());

    let prompt = catalog
        .prompts
        .iter()
        .find(|p| {
            p.server.as_str() == "everything"
                && p.prompt
                    .arguments
                    .as_ref()
                    .is_none_or(|a| a.iter().all(|a| a.required != Some(true)))
        })
        .expect("a prompt without required arguments");
    let got = registry
        .get_prompt(&prompt.exposed_name, None, CallOptions::default())
        .await
        .unwrap();
    assert!(!got.messages.is_empty());

    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_from_upstream_reaches_the_caller() {
    let (_dir, path) = kit::write_mcp_json(json!({"everything": kit::everything_stdio_entry()}));
    let registry = Registry::new(RegistryOptions::default());
    registry.apply_config(&load(&[path]).unwrap()).await;
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let result = registry
        .call_tool(
            "everything__trigger-long-running-operation",
            Some(json!({"duration": 1, "steps": 4})),
            CallOptions::default().with_progress(tx),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let mut updates = Vec::new();
    while let Ok(p) = rx.try_recv() {
        updates.push(p);
    }
    assert!(
        updates.len() >= 3,
        "only {} progress updates",
        updates.len()
    );
    assert_eq!(updates.last().unwrap().total, Some(4.0));
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_cannot_start_is_reported_and_the_rest_carry_on() {
    let (_dir, path) = kit::write_mcp_json(json!({
        "broken": {"command": "/nonexistent/mcp-server"},
        "exits": {"command": kit::python(), "args": ["-c", "import sys; sys.stderr.write('boom: missing API key\\n'); sys.exit(2)"]},
        "time": kit::time_entry(),
    }));
    let registry = Registry::new(RegistryOptions::default());
    let servers = registry.apply_config(&load(&[path]).unwrap()).await;
    let by_name = |n: &str| servers.iter().find(|s| s.name == n).unwrap().clone();
    assert_eq!(by_name("broken").status, ServerStatus::Error);
    assert!(
        by_name("broken")
            .last_error
            .unwrap()
            .contains("/nonexistent/mcp-server")
    );
    assert_eq!(by_name("exits").status, ServerStatus::Error);
    assert_eq!(by_name("time").status, ServerStatus::Ready);
    let err = registry
        .call_tool("broken__anything", None, CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.kind, switchboard_core::ErrorKind::ToolNotFound);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn test_server_starts_discovers_and_stops_without_registering() {
    let (_dir, path) = kit::write_mcp_json(json!({"time": kit::time_entry()}));
    let config = load(&[path]).unwrap();
    let registry = Registry::new(RegistryOptions::default());
    let report = registry.test_server(&config.servers[0]).await;
    assert_eq!(report.status, ServerStatus::Ready, "{report:?}");
    assert_eq!(report.tools, 2);
    assert!(registry.servers().is_empty());
}
