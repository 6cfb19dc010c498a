//! Logging to stderr (text or JSON lines), the export of traces, and the rmcp lines that are
//! not errors of the gateway's.

use crate::args::{Cli, Command, LogFormat};
use std::io::IsTerminal;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer};

/// Starts logging (stderr) and, for `serve` and `stdio` with a `[telemetry]` section, the
/// export of traces; the returned exporter sends its last spans when dropped.
pub(crate) fn init_logging(cli: &Cli) -> Option<switchboard_telemetry::Exporting> {
    use tracing_subscriber::prelude::*;
    // rmcp logs each peer's whole `initialize` answer (instructions included) and every
    // keep-alive at INFO: below the gateway's own one line per event, so at WARN by default.
    let default = match cli.command {
        Command::Serve { .. } => "info,rmcp=warn",
        _ => "warn",
    };
    let filter = cli
        .global
        .log
        .clone()
        .or_else(|| std::env::var("RUST_LOG").ok())
        .unwrap_or_else(|| default.to_string());
    let (exporting, started) = match start_telemetry(cli) {
        Ok(Some(exporting)) => (Some(exporting), None),
        Ok(None) => (None, None),
        Err(e) => (None, Some(e)),
    };
    // One global filter, no per-layer filter on the log: tracing-subscriber's per-layer
    // filters drop events after a dynamic `enabled!` check that said no (sqlx makes those).
    // The trace's spans are on only when they are exported (then log lines carry them as
    // context); off, they are disabled callsites.
    let spans = switchboard_telemetry::span_directive(exporting.is_some());
    let filter = tracing_subscriber::EnvFilter::new(format!("{filter},{spans}"));
    // Logs go to stderr: stdout belongs to results and, for `stdio`, to the MCP stream.
    let log = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let log = match cli.global.log_format {
        LogFormat::Text => log.with_ansi(std::io::stderr().is_terminal()).boxed(),
        // One JSON object per line: timestamp, level, target, fields (message included).
        LogFormat::Json => log.json().flatten_event(true).boxed(),
    };
    let subscriber = (tracing_subscriber::registry().with(filter))
        .with(QuietDrain)
        .with(log);
    match &exporting {
        Some(exporting) => subscriber.with(exporting.layer()).init(),
        None => subscriber.init(),
    }
    if let Some(e) = started {
        tracing::warn!("traces are not exported: {e}");
    }
    exporting
}

/// The trace export `[telemetry]` asks for, for the commands that serve.
fn start_telemetry(
    cli: &Cli,
) -> Result<Option<switchboard_telemetry::Exporting>, switchboard_telemetry::TelemetryError> {
    if !matches!(cli.command, Command::Serve { .. } | Command::Stdio) {
        return Ok(None);
    }
    let paths = crate::setup::config_paths(&cli.global).unwrap_or_default();
    let env = |name: &str| std::env::var(name).ok();
    let Some(t) = switchboard_config::telemetry_of(&paths, &env) else {
        return Ok(None);
    };
    let settings = switchboard_telemetry::TelemetrySettings {
        endpoint: t.endpoint,
        service_name: t.service_name,
        sample_ratio: t.sample_ratio,
        headers: t.headers,
    };
    switchboard_telemetry::Exporting::start(&settings).map(Some)
}

/// What rmcp logs at ERROR when a response finds its caller gone: a 2026-07-28 client that
/// closes a `subscriptions/listen` stream (or any request's stream) ends the request's service,
/// whose handler still answers; the answer has nowhere to go. That is a normal disconnect,
/// not a gateway error, so the line is dropped (the caller asked for nothing more).
const CALLER_GONE: &str = "failed to send pending response during drain";

/// Drops rmcp's [`CALLER_GONE`] line; every other event passes.
struct QuietDrain;

impl<S: tracing::Subscriber> Layer<S> for QuietDrain {
    fn event_enabled(&self, event: &tracing::Event<'_>, _: Context<'_, S>) -> bool {
        let meta = event.metadata();
        if *meta.level() != tracing::Level::ERROR || !meta.target().starts_with("rmcp::") {
            return true;
        }
        let mut message = Message(false);
        event.record(&mut message);
        !message.0
    }
}

/// Whether an event's message is [`CALLER_GONE`].
struct Message(bool);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}") == CALLER_GONE;
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0 = value == CALLER_GONE;
        }
    }
}
