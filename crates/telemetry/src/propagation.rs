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

/// The `traceparent` (and `tracestate`) naming the current span, for a request sent
/// upstream on its behalf; empty when no trace is being recorded.
pub fn current_traceparent() -> http::HeaderMap {
    let mut headers = http::HeaderMap::new();
    let span = tracing::Span::current();
    if span.is_disabled() {
        return headers;
    }
    let context = span.context();
    if context.span().span_context().is_valid() {
        TraceContextPropagator::new().inject_context(&context, &mut HeaderInjector(&mut headers));
    }
    headers
}
