//! Scan cost per tool over the labelled corpus: criterion over the whole corpus
//! (throughput in tools) plus the median of per-tool timings, printed once.

use std::path::Path;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use switchboard_scan::eval::{Case, parse_jsonl};
use switchboard_scan::{scan_text, scan_tool};

fn corpus() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    ["tune.jsonl", "heldout.jsonl"]
        .iter()
        .flat_map(|f| parse_jsonl(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap())
        .collect()
}

/// Per definition, the median of 15 timed runs of `f`; the medians sorted.
fn per_tool_medians(cases: &[Case], f: impl Fn(&Case)) -> Vec<f64> {
    let mut per_tool: Vec<f64> = (cases.iter())
        .map(|c| {
            let mut runs: Vec<f64> = (0..15)
                .map(|_| {
                    let t = Instant::now();
                    f(c);
                    t.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            runs.sort_by(f64::total_cmp);
            runs[runs.len() / 2]
        })
        .collect();
    per_tool.sort_by(f64::total_cmp);
    per_tool
}

fn median_per_tool(cases: &[Case]) {
    let per_tool = per_tool_medians(cases, |c| {
        let others: Vec<&str> = c.other_names.iter().map(String::as_str).collect();
        std::hint::black_box(scan_tool(std::hint::black_box(&c.tool), &others));
    });
    let n = per_tool.len();
    println!(
        "scan_tool over {n} corpus tools: median {:.1} µs, p90 {:.1} µs, max {:.1} µs",
        per_tool[n / 2],
        per_tool[n * 9 / 10],
        per_tool[n - 1]
    );
}

/// The classifier alone (its text and its score), per definition.
#[cfg(feature = "classifier")]
fn median_learned(cases: &[Case]) {
    use switchboard_scan::{definition_text, learned_score};
    let per_tool = per_tool_medians(cases, |c| {
        let text = definition_text(std::hint::black_box(&c.tool));
        std::hint::black_box(learned_score(&text));
    });
    let n = per_tool.len();
    println!(
        "the classifier alone over {n} corpus tools: median {:.1} µs, p90 {:.1} µs",
        per_tool[n / 2],
        per_tool[n * 9 / 10]
    );
}

fn bench(c: &mut Criterion) {
    let cases = corpus();
    median_per_tool(&cases);
    #[cfg(feature = "classifier")]
    median_learned(&cases);
    let mut g = c.benchmark_group("scan");
    g.throughput(Throughput::Elements(cases.len() as u64));
    g.bench_function("corpus", |b| {
        b.iter(|| {
            for case in &cases {
                let others: Vec<&str> = case.other_names.iter().map(String::as_str).collect();
                std::hint::black_box(scan_tool(&case.tool, &others));
            }
        })
    });
    // What `[policy.scan] calls = true` reads on each call of the lean bench's echo tool: its
    // arguments and its result.
    let args = r#"{"message":"hello from the bench"}"#;
    let result = r#"{"content":[{"type":"text","text":"hello from the bench"}],"isError":false}"#;
    g.throughput(Throughput::Elements(1));
    g.bench_function("call_texts", |b| {
        b.iter(|| {
            std::hint::black_box(scan_text(std::hint::black_box(args)));
            std::hint::black_box(scan_text(std::hint::black_box(result)));
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
