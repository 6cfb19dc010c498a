//! Admits downstream sessions within the process's [`SessionLimits`]: a request that would
//! open a session past a bound is refused with a JSON-RPC error that names the limit.

use crate::mcp::sessions::limits::{Full, Owner};
use crate::mcp::sessions::ordered::OrderedSessions;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use std::net::SocketAddr;
use std::sync::Arc;

/// The middleware: runs the rest of the endpoint on `request` unless it opens a session past
/// a bound; then answers with the refusal. A session its client closes is forgotten. (A parked
/// session brought back makes its own room: see `OrderedSessions::restore_session`.)
pub(crate) async fn admit(
    State(sessions): State<Arc<OrderedSessions>>,
    request: Request,
    next: Next,
) -> Response {
    let has_session = request.headers().contains_key(HEADER_SESSION_ID);
    if request.method() == Method::DELETE && has_session {
        return closed(&sessions, request, next).await;
    }
    if has_session || request.method() != Method::POST || stateless(&request) {
        return next.run(request).await;
    }
    let limits = sessions.limits();
    let admitted = match limits.admit(owner(&request)) {
        Ok(admitted) => admitted,
        Err(full) => return refusal(&sessions, full),
    };
    if !limits.make_room().await {
        limits.refuse(Full::Memory);
        return refusal(&sessions, Full::Memory);
    }
    let response = next.run(request).await;
    if let Some(id) = response.headers().get(HEADER_SESSION_ID)
        && let Ok(id) = id.to_str()
    {
        admitted.created(sessions.scope(), id.into());
    }
    response
}

/// A client's `DELETE` of its session: once answered, the session's room is given back. The
/// answer is `204 No Content` (rmcp says `202 Accepted`, which the Python SDK reports as a
/// failed termination on every exit: it expects 200 or 204).
async fn closed(sessions: &OrderedSessions, request: Request, next: Next) -> Response {
    let id = request.headers().get(HEADER_SESSION_ID).cloned();
    let mut response = next.run(request).await;
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    if response.status().is_success()
        && let Some(id) = id.as_ref().and_then(|id| id.to_str().ok())
    {
        sessions.limits().forget(sessions.scope(), &id.into());
    }
    response
}

/// A request of the `2026-07-28` revision or later, which has no sessions (every request
/// carries its `MCP-Protocol-Version`; dates compare as text).
fn stateless(request: &Request) -> bool {
    request
        .headers()
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|version| version >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str())
}

/// Who is asking: the connection's address and the bearer token, when known.
pub(crate) fn owner(request: &Request) -> Owner {
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip());
    let token = crate::edge::callers::bearer(request.headers());
    Owner::new(client, token)
}

/// HTTP 429 for one client's or token's share, 503 for the replica's; the body the front
/// door's refusal (`switchboard_listener::refusal_body`), naming the limit.
fn refusal(sessions: &OrderedSessions, full: Full) -> Response {
    let caps = sessions.limits().caps();
    let expiry = caps.expire_after.as_secs();
    let setting = full.setting();
    let free = format!(
        "close sessions you no longer use (DELETE /mcp with their Mcp-Session-Id) or wait for unused ones to expire ({expiry} s), or raise [limits] {setting}"
    );
    let (status, retry, message) = match full {
        Full::Sessions => (
            StatusCode::SERVICE_UNAVAILABLE,
            60,
            format!(
                "this gateway holds its limit of {} sessions; {free}",
                caps.total
            ),
        ),
        Full::Client => (
            StatusCode::TOO_MANY_REQUESTS,
            60,
            format!(
                "your address holds its limit of {} sessions; {free}",
                caps.per_client
            ),
        ),
        Full::Token => (
            StatusCode::TOO_MANY_REQUESTS,
            60,
            format!(
                "this bearer token holds its limit of {} sessions; {free}",
                caps.per_token
            ),
        ),
        Full::Memory => (
            StatusCode::SERVICE_UNAVAILABLE,
            1,
            format!(
                "all {} sessions in memory are busy, none can be parked to make room; retry shortly, or raise [limits] {setting}",
                caps.in_memory
            ),
        ),
    };
    tracing::debug!(limit = setting, "session refused: {message}");
    let body = switchboard_listener::refusal_body("rate_limited", setting, &message);
    let mut response = (status, axum::Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry));
    response
}
