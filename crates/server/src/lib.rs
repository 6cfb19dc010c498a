//! The downstream faces of the gateway: one aggregated MCP endpoint over Streamable HTTP
//! (`/mcp`, plus `/healthz`, `/readyz` and the dashboard at `/`) and over stdio.

mod admission;
pub mod api;
mod auth;
mod dashboard;
mod fast_path;
mod gateway;
mod http;
mod in_flight;
mod live_sessions;
mod metrics_route;
mod oauth_callback;
mod ordered_sessions;
pub mod parking;
mod relay;
mod request_bounds;
mod resume;
mod session_limits;
mod sessions;
mod snapshots;
mod tokens;
mod traced;

pub use gateway::{
    AgentScope, CONVERSATION_META_KEY, CallerToken, Gateway, KIND_META_KEY, OrgCaller,
};
pub use http::{HttpOptions, router, serve_http};
pub use in_flight::InFlight;
pub use metrics_route::spawn_status_watch;
pub use request_bounds::{RequestBounds, RequestCaps};
pub use session_limits::{SessionCaps, SessionLimits};
pub use sessions::SharedSessions;
pub use snapshots::StoreSnapshots;
pub use switchboard_listener::{Bounds as ConnectionBounds, Connections};
pub use tokens::SealedTokens;

/// Serves `GET /oauth/callback/{server}` alone on `listener`, for a loopback listener that
/// waits for one browser (`switchboard auth login`).
pub async fn serve_oauth_callback(
    listener: tokio::net::TcpListener,
    registry: Registry,
) -> std::io::Result<()> {
    axum::serve(listener, oauth_callback::router(registry, None)).await
}

use switchboard_registry::Registry;

/// Serves the aggregated endpoint on this process's stdin/stdout until the client hangs up.
pub async fn serve_stdio(registry: Registry) -> Result<(), std::io::Error> {
    use rmcp::ServiceExt;
    let running = Gateway::new(registry)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}
