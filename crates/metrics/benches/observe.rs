//! What metrics add to one call: the observer on a typical record (no allocation of the
//! record itself: the registry hands it over by reference).

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;
use switchboard_core::{CallObserver, CallRecord, Caller, Effect, Verdict};
use switchboard_metrics::{Metrics, Snapshot};

fn bench(c: &mut Criterion) {
    let metrics = Metrics::new();
    let record = CallRecord {
        caller: Caller::default(),
        end_user_id: None,
        action_id: "mcp.billing.create_invoice".into(),
        server: Some("billing".into()),
        server_org: Some("acme".into()),
        outcome: Ok(()),
        duration: Duration::from_micros(900),
        upstream: Some(Duration::from_micros(700)),
        request_bytes: 0,
        response_bytes: 0,
        verdicts: vec![Verdict::new("rules", Effect::Allow)],
    };
    c.bench_function("observe_one_call", |b| {
        b.iter(|| metrics.observe_shared(std::hint::black_box(&record)))
    });
    c.bench_function("render_20_servers", |b| {
        let now = Snapshot {
            servers: (0..20)
                .map(|i| switchboard_metrics::ServerGauges {
                    server: format!("server_{i}"),
                    org: String::new(),
                    status: "ready",
                    in_flight: 1,
                    queued: 0,
                    capability_sessions: 0,
                    end_user_sessions: 0,
                })
                .collect(),
            ..Snapshot::default()
        };
        b.iter(|| metrics.render(&now).len())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
