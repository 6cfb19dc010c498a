//! What a call's trace costs the gateway: the spans one tool call makes (request, call,
//! policy stages, upstream) plus the `traceparent` it sends, under the `serve` subscriber
//! without `[telemetry]` (spans disabled) and with the OpenTelemetry layer recording them.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use switchboard_core::trace_span;
use switchboard_telemetry::{Exporting, adopt_remote_parent, current_traceparent};
use tracing::field::Empty;
use tracing_subscriber::prelude::*;

/// The spans of one call, nested as the gateway nests them; the headers sent upstream.
fn one_call(headers: &http::HeaderMap) -> bool {
    let request = trace_span!("http.request", otel.name = Empty, otel.kind = "server");
    if !request.is_disabled() {
        request.record("otel.name", "POST /mcp");
    }
    adopt_remote_parent(&request, headers);
    let _r = request.enter();
    let call = trace_span!("call", otel.name = Empty, error.type = Empty);
    if !call.is_disabled() {
        call.record(
            "otel.name",
            format!("tools/call {}", black_box("billing__refund")),
        );
    }
    let _c = call.enter();
    for stage in [
        trace_span!("policy.admit"),
        trace_span!("policy.load"),
        trace_span!("policy.rules"),
    ] {
        let _s = stage.enter();
    }
    let upstream = trace_span!("upstream", otel.name = Empty, otel.kind = "client");
    let _u = upstream.enter();
    let sent = current_traceparent();
    drop(_u);
    let _f = trace_span!("policy.finished").entered();
    sent.iter().any(|(name, _)| name == "traceparent")
}

fn spans(c: &mut Criterion) {
    let mut headers = http::HeaderMap::new();
    headers.insert(
        "traceparent",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            .parse()
            .unwrap(),
    );
    // As `serve` sets it up: one global filter, the trace's spans off without export.
    let log = || tracing_subscriber::fmt::layer().with_writer(std::io::sink);
    let filter = |exported| {
        let spans = switchboard_telemetry::span_directive(exported);
        tracing_subscriber::EnvFilter::new(format!("info,{spans}"))
    };
    let off = tracing_subscriber::registry()
        .with(filter(false))
        .with(log());
    tracing::subscriber::with_default(off, || {
        c.bench_function("one_call_without_telemetry", |b| {
            b.iter(|| one_call(black_box(&headers)))
        });
    });
    let exporting = Exporting::propagate_only();
    let on = tracing_subscriber::registry()
        .with(filter(true))
        .with(log())
        .with(exporting.layer());
    tracing::subscriber::with_default(on, || {
        assert!(one_call(&headers), "a traceparent is sent upstream");
        c.bench_function("one_call_recorded", |b| {
            b.iter(|| one_call(black_box(&headers)))
        });
    });
}

criterion_group!(benches, spans);
criterion_main!(benches);
