//! The HTTP listener's plain routes, and the MCP endpoint's Host check, over real loopback TCP.

use switchboard_registry::{Registry, RegistryOptions};
use switchboard_server::{HttpOptions, serve_http};
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread")]
async fn health_readiness_and_foreign_hosts() {
    let registry = Registry::new(RegistryOptions::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let server = tokio::spawn(serve_http(
        listener,
        registry,
        HttpOptions::default().with_shutdown(shutdown.clone()),
    ));
    let http = reqwest::Client::new();

    let health = http.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().await.unwrap(), "ok");
    let ready = http.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);

    // A page on another origin that resolves its name to us (DNS rebinding) is turned away.
    let rebound = http
        .post(format!("{base}/mcp"))
        .header("Host", "attacker.example")
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .unwrap();
    assert!(rebound.status().is_client_error(), "{}", rebound.status());

    shutdown.cancel();
    server.await.unwrap().unwrap();
}
