//! Search latency over large catalogues: the evaluation set's tools repeated under new
//! server names up to 10,000 (and 1,000) documents, one query per iteration.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use switchboard_search::{Document, Index};

fn catalogue(size: usize) -> Vec<Document> {
    let path = format!("{}/evalset/tools.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("evalset/tools.json");
    let tools: Vec<Value> = serde_json::from_str(&text).expect("tools.json parses");
    let field = |t: &Value, k: &str| t[k].as_str().unwrap_or_default().to_string();
    (0..size)
        .map(|i| {
            let t = &tools[i % tools.len()];
            let details = t["inputSchema"]
                .as_object()
                .map(Document::schema_details)
                .unwrap_or_default();
            Document {
                server: format!("{}{}", field(t, "server"), i / tools.len()),
                name: field(t, "name"),
                title: t["title"].as_str().map(String::from),
                description: field(t, "description"),
                details,
            }
        })
        .collect()
}

fn search(c: &mut Criterion) {
    for size in [1_000, 10_000] {
        let docs = catalogue(size);
        let index = Index::build(&docs);
        let queries = [
            "the refund for order 1182 went through twice, give the customer their money back",
            "who was paged for the checkout outage last night",
            "upload the signed contract to the legal folder",
        ];
        let mut next = 0;
        c.bench_function(&format!("search {size} tools"), |b| {
            b.iter(|| {
                next = (next + 1) % queries.len();
                index.search(queries[next], 10, |_| true)
            })
        });
        c.bench_function(&format!("build index {size} tools"), |b| {
            b.iter(|| Index::build(&docs))
        });
    }
}

criterion_group!(benches, search);
criterion_main!(benches);
