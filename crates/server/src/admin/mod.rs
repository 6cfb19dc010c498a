//! What operators use beside the MCP endpoint and the REST API: the dashboard at `/`,
//! `/metrics`, the OAuth callback that finishes an upstream's sign-in, and people's own
//! sign-in with the organisation's provider.

pub(crate) mod consent;
pub(crate) mod consent_oauth;
pub(crate) mod dashboard;
pub(crate) mod metrics;
pub(crate) mod oauth_callback;
pub(crate) mod sign_in;

use switchboard_registry::Registry;

/// Serves `GET /oauth/callback/{server}` alone on `listener`, for a loopback listener that
/// waits for one browser (`switchboard auth login`).
pub async fn serve_oauth_callback(
    listener: tokio::net::TcpListener,
    registry: Registry,
) -> std::io::Result<()> {
    axum::serve(listener, oauth_callback::router(registry, None)).await
}
