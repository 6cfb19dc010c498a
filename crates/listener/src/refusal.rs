//! Answers for connections past a bound: each gets one HTTP/1.1 answer that names the limit
//! to its first request, then is closed.

use crate::{Bounds, Refused};
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

/// Refused connections answered at once; past this they are closed without an answer, so
/// a flood cannot hold more than this many descriptors beyond the bound.
const ANSWERING_AT_MOST: usize = 64;
/// How long a refused connection may take to send the request head it is refused.
const HEAD_WITHIN: Duration = Duration::from_secs(2);

/// The body of every refusal at the gateway's front door, read alike by REST clients
/// (`error.kind`, `error.message`) and MCP clients (a JSON-RPC error whose `data` names the
/// kind and the `[limits]` setting).
pub fn refusal_body(kind: &str, limit: &str, message: &str) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32000,
            "kind": kind,
            "message": message,
            "data": {"kind": kind, "limit": limit},
        },
    })
}

pub(crate) struct Refusals(Arc<Semaphore>);

impl Default for Refusals {
    fn default() -> Self {
        Self(Arc::new(Semaphore::new(ANSWERING_AT_MOST)))
    }
}

impl Refusals {
    /// Answers `tcp` with the refusal for `refused` and closes it, in the background.
    pub(crate) fn answer(&self, tcp: TcpStream, refused: Refused, bounds: Bounds) {
        let Ok(permit) = self.0.clone().try_acquire_owned() else {
            return;
        };
        let (status, retry, message) = match refused {
            Refused::Total => (
                503,
                5,
                format!(
                    "this gateway holds its limit of {} open connections; retry shortly, or raise [limits] max_connections",
                    bounds.max_connections
                ),
            ),
            Refused::Client => (
                429,
                5,
                format!(
                    "your address holds its limit of {} open connections; close idle ones (reuse connections), or raise [limits] max_connections_per_client",
                    bounds.max_connections_per_client
                ),
            ),
        };
        let body = refusal_body("rate_limited", refused.setting(), &message).to_string();
        tracing::debug!(limit = refused.setting(), "connection refused: {message}");
        let answer = move |_request| {
            let response = axum::response::Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .header("retry-after", retry)
                .body(axum::body::Body::from(body.clone()));
            std::future::ready(response)
        };
        tokio::spawn(async move {
            let _permit = permit;
            let mut http = hyper::server::conn::http1::Builder::new();
            http.keep_alive(false)
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_WITHIN);
            let served = http.serve_connection(TokioIo::new(tcp), service_fn(answer));
            let _ = tokio::time::timeout(HEAD_WITHIN * 2, served).await;
        });
    }
}
