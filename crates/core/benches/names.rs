//! Cost of naming a catalogue and of routing an exposed name back.

use criterion::{Criterion, criterion_group, criterion_main};
use switchboard_core::{NameTable, NamingTemplate, ServerSlug};

fn bench(c: &mut Criterion) {
    let servers: Vec<ServerSlug> = (0..20)
        .map(|i| ServerSlug::parse(&format!("server_{i}")).unwrap())
        .collect();
    let tools: Vec<String> = (0..50).map(|i| format!("tool_number_{i}")).collect();
    let entries: Vec<(&ServerSlug, &str)> = servers
        .iter()
        .flat_map(|s| tools.iter().map(move |t| (s, t.as_str())))
        .collect();
    let template = NamingTemplate::default();
    c.bench_function("name_table_build_1000_tools", |b| {
        b.iter(|| NameTable::build(&template, entries.iter().copied()))
    });
    let (table, _) = NameTable::build(&template, entries.iter().copied());
    c.bench_function("route_exposed_name", |b| {
        b.iter(|| table.route(std::hint::black_box("server_7__tool_number_33")))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
