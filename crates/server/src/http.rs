//! The HTTP listener: `/mcp` (Streamable HTTP), `/healthz`, `/readyz`, with graceful shutdown.

use crate::Gateway;
use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::SocketAddr;
use std::sync::Arc;
use switchboard_core::ServerStatus;
use switchboard_registry::Registry;
use tokio_util::sync::CancellationToken;

/// How the HTTP listener behaves.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Extra `Host` values to accept besides loopback names (e.g. the public host name).
    pub allowed_hosts: Vec<String>,
    /// Cancelled to stop accepting and close every session.
    pub shutdown: CancellationToken,
}

impl HttpOptions {
    pub fn with_shutdown(mut self, shutdown: CancellationToken) -> Self {
        self.shutdown = shutdown;
        self
    }
    pub fn with_allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        self.allowed_hosts = hosts;
        self
    }
}

/// The gateway's routes, ready to be served or nested into a larger app.
pub fn router(registry: Registry, options: &HttpOptions) -> Router {
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(options.allowed_hosts.iter().cloned());
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_cancellation_token(options.shutdown.child_token());
    let factory_registry = registry.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(Gateway::new(factory_registry.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let ready_registry = registry.clone();
    Router::new()
        .nest_service("/mcp", mcp)
        .route("/healthz", get(|| async { "ok" }))
        .route(
            "/readyz",
            get(move || {
                let servers = ready_registry.servers();
                async move {
                    let pending = servers
                        .iter()
                        .filter(|s| s.status == ServerStatus::Connecting)
                        .count();
                    if pending == 0 {
                        (StatusCode::OK, "ready".to_string())
                    } else {
                        (
                            StatusCode::SERVICE_UNAVAILABLE,
                            format!("{pending} server(s) still connecting"),
                        )
                    }
                }
            }),
        )
}

/// Serves [`router`] on `listener` until `options.shutdown` is cancelled.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    registry: Registry,
    options: HttpOptions,
) -> std::io::Result<()> {
    let shutdown = options.shutdown.clone();
    let app = router(registry, &options);
    let addr: Option<SocketAddr> = listener.local_addr().ok();
    tracing::info!(?addr, "listening: MCP endpoint at /mcp");
    // Responses are streamed (SSE): without TCP_NODELAY the event written after the headers
    // waits for the client's delayed ACK, adding ~40 ms to every call.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
}
