//! Traces of the gateway: W3C trace context taken from downstream requests and sent upstream,
//! and the optional OTLP export of the spans (`[telemetry]` in switchboard.toml).

mod export;
mod propagation;

pub use export::{Exporting, TelemetryError, TelemetrySettings};
pub use propagation::{TraceHeaders, adopt_remote_parent, current_traceparent};
pub use switchboard_core::trace::{SPAN_TARGET, STORE_SPAN_TARGET};
