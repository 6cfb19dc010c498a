//! The spans of a call's trace: the call as the caller made it, its policy stages, and the
//! request sent upstream (whose span the upstream's `traceparent` names).

use std::future::Future;
use switchboard_core::{CallError, Caller, trace_span};
use tracing::field::Empty;
use tracing::{Instrument, Span};

/// The span of one call (`tools/call`, `resources/read`, `prompts/get`) of `name`.
pub(super) fn call_span(method: &'static str, name: &str, caller: &Caller) -> Span {
    let span = trace_span!(
        "call",
        otel.name = Empty,
        otel.status_code = Empty,
        mcp.method.name = method,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        switchboard.surface = caller.surface.map(switchboard_core::Surface::as_str),
        switchboard.agent = caller.agent_id.as_deref(),
        switchboard.action = Empty,
        switchboard.server = Empty,
        error.type = Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("{method} {name}"));
        if method == "tools/call" {
            span.record("gen_ai.operation.name", "execute_tool");
            span.record("gen_ai.tool.name", name);
        }
    }
    span
}

/// Notes on the current call's span which action of which server it reached.
pub(super) fn routed(action: &str, server: &str) {
    let span = Span::current();
    if !span.is_disabled() {
        span.record("switchboard.action", action);
        span.record("switchboard.server", server);
    }
}

/// Marks `span` failed with `kind` (an error kind, or `tool_error` for a result the tool
/// itself flagged as an error).
pub(super) fn failed(span: &Span, kind: &str) {
    span.record("error.type", kind);
    span.record("otel.status_code", "ERROR");
}

/// `work` in the span of one stage of the policy (`policy.admit`, `policy.finished`).
pub(super) fn stage<F: Future>(
    name: &'static str,
    work: F,
) -> tracing::instrument::Instrumented<F> {
    work.instrument(trace_span!("policy", otel.name = name))
}

/// `work` in the span of the request sent to `server` (its upstream's name for the item).
pub(super) fn to_upstream<F: Future>(
    method: &'static str,
    name: &str,
    server: &str,
    work: F,
) -> tracing::instrument::Instrumented<F> {
    let span = trace_span!(
        "upstream",
        otel.name = Empty,
        otel.kind = "client",
        mcp.method.name = method,
        switchboard.server = server,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("{method} {name}"));
    }
    work.instrument(span)
}

/// Runs a traced call: `work` in `span`, its failure (or the tool's error) noted.
pub(super) async fn traced<T>(
    span: Span,
    work: impl Future<Output = Result<T, CallError>>,
    tool_error: impl Fn(&T) -> bool,
) -> Result<T, CallError> {
    let outcome = work.instrument(span.clone()).await;
    if !span.is_disabled() {
        match &outcome {
            Err(e) if e.kind.is_failure() => failed(&span, e.kind.as_str()),
            // A leg that ended asking its caller for input did not fail.
            Err(_) => {}
            Ok(result) if tool_error(result) => failed(&span, "tool_error"),
            Ok(_) => {}
        }
    }
    outcome
}
