//! Traces of the gateway: W3C trace context taken from downstream requests and sent upstream,
//! and the optional OTLP export of the spans (`[telemetry]` in switchboard.toml).

mod export;
mod propagation;

pub use export::{Exporting, TelemetryError, TelemetrySettings};
pub use propagation::{TraceHeaders, adopt_remote_parent, current_traceparent};
pub use switchboard_core::trace::{SPAN_TARGET, STORE_SPAN_TARGET};

/// The filter directive for the trace's spans: on (`info`) while they are exported, off
/// otherwise, so that without export they are disabled callsites. Appended to the log filter.
pub fn span_directive(exported: bool) -> String {
    let level = if exported { "info" } else { "off" };
    format!("{SPAN_TARGET}={level}")
}
