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

#[tokio::test(flavor = "multi_thread")]
async fn a_configured_token_is_required_and_foreign_origins_are_refused() {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let registry = Registry::new(RegistryOptions::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let options = HttpOptions::default()
        .with_shutdown(shutdown.clone())
        .with_token(Some("let-me-in".into()));
    let server = tokio::spawn(serve_http(listener, registry, options));
    let http = reqwest::Client::new();
    let ping = |auth: Option<&'static str>, origin: Option<&'static str>| {
        let mut req = http
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
        if let Some(auth) = auth {
            req = req.header("Authorization", auth);
        }
        if let Some(origin) = origin {
            req = req.header("Origin", origin);
        }
        req.send()
    };
    let missing = ping(None, None).await.unwrap();
    assert_eq!(missing.status(), 401);
    assert!(missing.text().await.unwrap().contains("bearer token"));
    assert_eq!(
        ping(Some("Bearer wrong"), None).await.unwrap().status(),
        401
    );
    assert!(
        ping(Some("Bearer let-me-in"), None)
            .await
            .unwrap()
            .status()
            .is_success()
    );
    let foreign = ping(Some("Bearer let-me-in"), Some("https://evil.example"))
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    let local_page = ping(Some("Bearer let-me-in"), Some("http://localhost:3000"))
        .await
        .unwrap();
    assert!(local_page.status().is_success());

    // A real MCP client with the token gets through.
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
    config.auth_header = Some("let-me-in".into());
    let client = ()
        .serve(StreamableHttpClientTransport::with_client(
            reqwest::Client::new(),
            config,
        ))
        .await
        .unwrap();
    assert!(client.list_all_tools().await.unwrap().is_empty());
    client.cancel().await.unwrap();

    shutdown.cancel();
    server.await.unwrap().unwrap();
}
