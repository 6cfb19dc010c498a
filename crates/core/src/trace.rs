//! Where the gateway's trace spans are declared: the targets the tracing layers select on.
//!
//! Spans of [`SPAN_TARGET`] make a request's trace (downstream request, call, policy stages,
//! upstream request). They are on only while traces are exported (the log then shows them
//! as its lines' context); otherwise the filter switches them off. Spans of
//! [`STORE_SPAN_TARGET`] are store operations, exported only inside such a trace, so that
//! background work (audit commits, change feeds) does not start traces of its own.

/// The target of the spans that make a request's trace.
pub const SPAN_TARGET: &str = "switchboard::trace";

/// The target of store operations' spans.
pub const STORE_SPAN_TARGET: &str = "switchboard::trace::store";

/// A span of the request's trace: `trace_span!("name", field = value, …)`, at INFO.
#[macro_export]
macro_rules! trace_span {
    ($name:expr $(, $($fields:tt)*)?) => {
        ::tracing::info_span!(target: "switchboard::trace", $name $(, $($fields)*)?)
    };
}
