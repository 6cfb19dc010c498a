//! The OTLP export of the gateway's trace spans: a tracer provider with a batch exporter
//! (OTLP over HTTP, protobuf) and the tracing layer that feeds it.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use std::collections::HashMap;
use std::time::Duration;
use switchboard_core::trace::{SPAN_TARGET, STORE_SPAN_TARGET};
use tracing::subscriber::Interest;
use tracing::{Metadata, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// `[telemetry]`: where spans go and which are kept.
#[derive(Debug, Clone, PartialEq)]
pub struct TelemetrySettings {
    /// The collector's OTLP/HTTP base (`/v1/traces` is added), or the full traces URL.
    pub endpoint: String,
    /// `service.name` of the exported spans.
    pub service_name: String,
    /// The share of new traces kept (0.0–1.0); a request that arrives with a sampled
    /// `traceparent` is kept whatever this says.
    pub sample_ratio: f64,
    /// Headers sent with each export (a collector's API key, say).
    pub headers: Vec<(String, String)>,
}

#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error(
        "[telemetry] endpoint {0:?} is not an http(s) URL; write e.g. \"http://127.0.0.1:4318\""
    )]
    Endpoint(String),
    #[error(
        "the OTLP exporter cannot start: {0}; check [telemetry] endpoint and headers (names and values must be valid HTTP)"
    )]
    Exporter(String),
}

/// Spans being exported; dropping it sends what is still buffered.
pub struct Exporting {
    provider: SdkTracerProvider,
}

/// How long the last export may take when the gateway stops.
const FLUSH_ON_STOP: Duration = Duration::from_secs(5);

impl Exporting {
    /// Starts the exporter. Call it outside an async runtime: the export thread has its own
    /// blocking HTTP client.
    pub fn start(settings: &TelemetrySettings) -> Result<Self, TelemetryError> {
        let endpoint = traces_url(&settings.endpoint)?;
        let headers: HashMap<String, String> = settings.headers.iter().cloned().collect();
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(endpoint)
            .with_headers(headers)
            .build()
            .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
        let ratio = settings.sample_ratio.clamp(0.0, 1.0);
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
                ratio,
            ))))
            .with_resource(
                Resource::builder()
                    .with_service_name(settings.service_name.clone())
                    .build(),
            )
            .build();
        Ok(Self { provider })
    }

    /// Spans made and trace context forwarded, but nothing sent anywhere: for embedders that
    /// only propagate `traceparent`, and for measuring what recording costs.
    pub fn propagate_only() -> Self {
        let provider = SdkTracerProvider::builder()
            .with_sampler(Sampler::ParentBased(Box::new(Sampler::AlwaysOn)))
            .build();
        Self { provider }
    }

    /// The layer that turns the gateway's trace spans (and store spans inside a trace) into
    /// OpenTelemetry spans; log events are not attached to them.
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        let tracer = self.provider.tracer("switchboard");
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_location(false)
            .with_threads(false)
            .with_tracked_inactivity(false)
            .with_filter(
                tracing_subscriber::filter::dynamic_filter_fn(traced::<S>)
                    .with_callsite_filter(interest),
            )
    }
}

impl Drop for Exporting {
    fn drop(&mut self) {
        if let Err(e) = self.provider.shutdown_with_timeout(FLUSH_ON_STOP) {
            eprintln!("warning: the last spans were not all exported: {e}");
        }
    }
}

/// Which callsites the trace layer looks at, decided once per callsite: its spans always,
/// store spans when they run inside one, nothing else (log events stay out of traces).
fn interest(meta: &'static Metadata<'static>) -> Interest {
    match (meta.is_span(), meta.target()) {
        (true, SPAN_TARGET) => Interest::always(),
        (true, STORE_SPAN_TARGET) => Interest::sometimes(),
        _ => Interest::never(),
    }
}

/// Whether a callsite belongs in the trace: the gateway's trace spans, and store spans
/// within one.
fn traced<S>(meta: &Metadata<'_>, cx: &Context<'_, S>) -> bool
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    meta.is_span()
        && (meta.target() == SPAN_TARGET
            || (meta.target() == STORE_SPAN_TARGET && cx.lookup_current().is_some()))
}

/// The traces URL of an OTLP/HTTP endpoint given as its base or in full.
fn traces_url(endpoint: &str) -> Result<String, TelemetryError> {
    let trimmed = endpoint.trim_end_matches('/');
    let is_http = trimmed.starts_with("http://") || trimmed.starts_with("https://");
    if !is_http || trimmed.parse::<http::Uri>().is_err() {
        return Err(TelemetryError::Endpoint(endpoint.to_string()));
    }
    Ok(match trimmed.ends_with("/v1/traces") {
        true => trimmed.to_string(),
        false => format!("{trimmed}/v1/traces"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_given_as_base_or_in_full() {
        let url = |e| traces_url(e).unwrap();
        assert_eq!(
            url("http://127.0.0.1:4318"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            url("http://127.0.0.1:4318/"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            url("https://c.example/v1/traces"),
            "https://c.example/v1/traces"
        );
        assert!(traces_url("127.0.0.1:4318").is_err());
        assert!(traces_url("grpc://127.0.0.1:4317").is_err());
    }
}
