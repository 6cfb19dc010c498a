//! Cost of the egress checks done per call: URL parse + check, and checking resolved answers.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::net::IpAddr;
use switchboard_egress::EgressPolicy;

fn bench(c: &mut Criterion) {
    let policy = EgressPolicy::default();
    c.bench_function("check_url_https_name", |b| {
        b.iter(|| policy.check_url(black_box("https://mcp.example.com/v1/mcp")))
    });
    c.bench_function("check_url_ipv6_literal", |b| {
        b.iter(|| policy.check_url(black_box("https://[2606:4700::1111]/mcp")))
    });
    let answers: Vec<IpAddr> = vec![
        "93.184.216.34".parse().unwrap(),
        "2606:2800:220:1:248:1893:25c8:1946".parse().unwrap(),
    ];
    c.bench_function("check_resolved_two_answers", |b| {
        b.iter(|| policy.check_resolved(black_box("example.com"), black_box(&answers)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
