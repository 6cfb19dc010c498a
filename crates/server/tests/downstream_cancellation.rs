//! A downstream client that cancels its call through `/mcp` makes the upstream cancel too; the
//! gateway is embedded as a library and served over real loopback TCP.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use switchboard_registry::{Registry, RegistryOptions};
use switchboard_server::{HttpOptions, serve_http};
use switchboard_testkit as kit;
use tokio_util::sync::CancellationToken;

/// A client that says when a call's progress arrives (the fixture's `hang` reports progress
/// once it runs, so the test knows the call reached the upstream).
#[derive(Clone)]
struct Started(tokio::sync::mpsc::Sender<()>);

impl rmcp::ClientHandler for Started {
    async fn on_progress(
        &self,
        _params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        let _ = self.0.try_send(());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_call_downstream_cancels_it_upstream() {
    let (_dir, path) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(30_000)}));
    let registry = Registry::new(RegistryOptions::default());
    registry
        .apply_config(&switchboard_config::load(&[path]).unwrap())
        .await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let server = tokio::spawn(serve_http(
        listener,
        registry.clone(),
        HttpOptions::default().with_shutdown(shutdown.clone()),
    ));

    let (started, mut progress) = tokio::sync::mpsc::channel(4);
    let client = Started(started)
        .serve(StreamableHttpClientTransport::from_uri(url))
        .await
        .unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "fx__hang"));

    let hang = client
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new(
                "fx__hang",
            ))),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    // The hang's progress shows it reached the upstream: a cancel sent before its request
    // arrived would be honoured before anything went upstream (nothing to cancel there).
    tokio::time::timeout(std::time::Duration::from_secs(20), progress.recv())
        .await
        .expect("the hang call reports progress")
        .expect("progress");
    let echo = client
        .call_tool(
            CallToolRequestParams::new("fx__echo")
                .with_arguments(json!({"text": "x"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(echo.content[0].as_text().unwrap().text, "x");
    hang.cancel(Some("user pressed stop".into())).await.unwrap();

    let cancelled = client
        .call_tool(
            CallToolRequestParams::new("fx__cancelled")
                .with_arguments(json!({"count": 1}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let ids: Vec<String> =
        serde_json::from_str(&cancelled.content[0].as_text().unwrap().text).unwrap();
    assert_eq!(ids.len(), 1);

    client.cancel().await.unwrap();
    shutdown.cancel();
    server.await.unwrap().unwrap();
    registry.shutdown().await;
}
