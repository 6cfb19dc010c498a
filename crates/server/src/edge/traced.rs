//! One span per downstream HTTP request, continuing the caller's trace when its request
//! carries a W3C `traceparent`; MCP handlers find it in the request's extensions.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;
use tracing::field::Empty;

/// The span of the HTTP request a handler serves (in `http::request::Parts::extensions`).
#[derive(Clone)]
pub(crate) struct RequestSpan(pub tracing::Span);

/// Whether the process records traces (a subscriber takes the trace's spans): without, the
/// router leaves [`request_span`] out.
pub(crate) fn recording() -> bool {
    // Asked without making a span, which an exporter would send as a trace of its own.
    tracing::span_enabled!(target: switchboard_core::trace::SPAN_TARGET, tracing::Level::INFO)
}

/// Wraps the request in its span (continuing the caller's trace).
pub(crate) async fn request_span(mut request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let span = switchboard_core::trace_span!(
        "http.request",
        otel.name = Empty,
        otel.kind = "server",
        otel.status_code = Empty,
        http.request.method = %method,
        url.path = request.uri().path(),
        http.response.status_code = Empty,
    );
    if span.is_disabled() {
        return next.run(request).await;
    }
    span.record(
        "otel.name",
        format!("{method} {}", route_of(request.uri().path())),
    );
    switchboard_telemetry::adopt_remote_parent(&span, request.headers());
    request.extensions_mut().insert(RequestSpan(span.clone()));
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status();
    span.record("http.response.status_code", status.as_u16());
    if status.is_server_error() {
        span.record("otel.status_code", "ERROR");
    }
    response
}

/// A span name of few values: the endpoint, not the ids in its path.
fn route_of(path: &str) -> &str {
    let rest = path.get(1..).unwrap_or_default();
    match rest.find('/') {
        Some(i) => &path[..=i],
        None => path,
    }
}

/// The span `extensions`' request was served in, or the current one (stdio, tests).
pub(crate) fn span_of(extensions: &rmcp::model::Extensions) -> tracing::Span {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|p| p.extensions.get::<RequestSpan>())
        .map_or_else(tracing::Span::current, |s| s.0.clone())
}

#[cfg(test)]
mod tests {
    #[test]
    fn span_names_hold_the_endpoint_only() {
        assert_eq!(super::route_of("/mcp"), "/mcp");
        assert_eq!(super::route_of("/mcp/"), "/mcp");
        assert_eq!(super::route_of("/api/servers/abc"), "/api");
        assert_eq!(super::route_of("/"), "/");
    }
}
