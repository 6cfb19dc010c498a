//! W3C trace context (`traceparent`, `tracestate`) in and out of the gateway's spans.

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry_http::{HeaderExtractor, HeaderInjector};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// Makes `span` a child of the trace the request's `traceparent` names, if it names one
/// (and traces are being recorded: without the OpenTelemetry layer this does nothing).
pub fn adopt_remote_parent(span: &tracing::Span, headers: &http::HeaderMap) {
    if span.is_disabled() || !headers.contains_key("traceparent") {
        return;
    }
    let parent = TraceContextPropagator::new().extract(&HeaderExtractor(headers));
    if parent.span().span_context().is_valid() {
        // Only fails when the span has already started a trace of its own.
        let _ = span.set_parent(parent);
    }
}

/// Request headers that carry a trace's context to another service.
pub type TraceHeaders = Vec<(http::HeaderName, http::HeaderValue)>;

/// The `traceparent` (and a non-empty `tracestate`) naming the current span, for a request
/// sent upstream on its behalf; empty, and allocation-free, when no trace is being recorded.
pub fn current_traceparent() -> TraceHeaders {
    let span = tracing::Span::current();
    if span.is_disabled() {
        return Vec::new();
    }
    let context = span.context();
    if !context.span().span_context().is_valid() {
        return Vec::new();
    }
    let mut headers = http::HeaderMap::new();
    TraceContextPropagator::new().inject_context(&context, &mut HeaderInjector(&mut headers));
    headers
        .into_iter()
        .filter_map(|(name, value)| Some((name?, value)))
        .filter(|(_, value)| !value.is_empty())
        .collect()
}
