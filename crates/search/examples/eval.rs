//! Recall of tool search on the labelled set in `evalset/`: recall@1, @5, @10 and MRR per
//! split (`tune`, `held_out`, `blind`), and the queries it missed (never a blind split's). A
//! query is found at k when any of its correct tools is among the first k answers.
//!
//! `cargo run --release -p switchboard-search --example eval [-- --json] [--misses SPLIT]
//! [--weights name=2,title=2,server=1.5,description=1,detail=0.5,synonym=0.5,k1=1.2,b=0.5,
//! semantic=0.35,fusion_k=5,floor=0.2]` (`semantic=0`: the lexical ranking alone)
//! (weights not given keep their defaults). `--dump FILE` writes each query's best 50 as
//! JSON lines (`{"id", "found": ["server/tool", …]}`) for experiments such as rank fusion.
//! `--set DIR` reads `tools.json` and `queries.json` from another folder of the same format.

#[path = "../tests/common/labelled.rs"]
mod labelled;

use labelled::{Query, ToolDef, read};
use serde_json::json;
use std::collections::HashMap;
use switchboard_search::{Document, Index, Weights};

#[derive(Default)]
struct Tally {
    queries: usize,
    at1: usize,
    at5: usize,
    at10: usize,
    reciprocal: f64,
}

/// The splits a set may have; `blind` queries are only ever counted.
const SPLITS: [&str; 3] = ["tune", "held_out", "blind"];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let as_json = args.iter().any(|a| a == "--json");
    let misses = value_of(&args, "--misses");
    assert!(
        misses.is_none_or(|m| m != "blind"),
        "a blind set's misses are never listed: reading them would be tuning on it"
    );
    let default = format!("{}/evalset", env!("CARGO_MANIFEST_DIR"));
    let set_arg = value_of(&args, "--set");
    let folder = set_arg.unwrap_or(&default);
    let tools: Vec<ToolDef> = read(folder, "tools.json");
    let queries: Vec<Query> = read(folder, "queries.json");
    let docs: Vec<Document> = tools.iter().map(ToolDef::document).collect();
    let mut weights = Weights::default();
    if let Some(list) = value_of(&args, "--weights") {
        for pair in list.split(',') {
            let (key, value) = pair.split_once('=').expect("key=value");
            let value: f32 = value.parse().expect("a number");
            match key {
                "name" => weights.name = value,
                "title" => weights.title = value,
                "server" => weights.server = value,
                "description" => weights.description = value,
                "detail" => weights.detail = value,
                "synonym" => weights.synonym = value,
                "k1" => weights.k1 = value,
                "b" => weights.b = value,
                "semantic" => weights.semantic = value,
                "fusion_k" => weights.fusion_k = value,
                "floor" => weights.floor = value,
                other => panic!("no weight {other}"),
            }
        }
    }
    let index = Index::build_with(&docs, weights);
    let key = |i: usize| tools[i].key();
    let mut tallies: HashMap<&str, Tally> = HashMap::new();
    let dump = value_of(&args, "--dump");
    let mut dumped = String::new();
    let mut times = Vec::new();
    for q in &queries {
        let started = std::time::Instant::now();
        let hits = index.search(&q.query, 50, |_| true);
        times.push(started.elapsed());
        if dump.is_some() {
            let found: Vec<String> = hits.iter().map(|h| key(h.doc)).collect();
            dumped.push_str(&json!({"id": q.id, "found": found}).to_string());
            dumped.push('\n');
        }
        let hits = &hits[..hits.len().min(10)];
        let rank = hits.iter().position(|h| q.targets.contains(&key(h.doc)));
        let tally = tallies.entry(q.split.as_str()).or_default();
        tally.queries += 1;
        tally.at1 += usize::from(rank == Some(0));
        tally.at5 += usize::from(rank.is_some_and(|r| r < 5));
        tally.at10 += usize::from(rank.is_some());
        tally.reciprocal += rank.map_or(0.0, |r| 1.0 / (r + 1) as f64);
        if misses == Some(&q.split) && rank.is_none_or(|r| r >= 5) {
            let top: Vec<String> = hits.iter().take(3).map(|h| key(h.doc)).collect();
            eprintln!(
                "{} {:?}\n  want {:?}\n  got  {:?}",
                q.id, q.query, q.targets, top
            );
        }
    }
    if let Some(path) = dump {
        std::fs::write(path, dumped).expect("write the dump");
    }
    times.sort();
    let median_us = times
        .get(times.len() / 2)
        .map_or(0, |t| t.as_micros() as u64);
    let mut report =
        json!({"tools": tools.len(), "queries": queries.len(), "search_p50_us": median_us});
    for split in SPLITS {
        let Some(t) = tallies.remove(split) else {
            continue;
        };
        let n = t.queries.max(1) as f64;
        report[split] = json!({
            "queries": t.queries,
            "recall_at_1": round(t.at1 as f64 / n),
            "recall_at_5": round(t.at5 as f64 / n),
            "recall_at_10": round(t.at10 as f64 / n),
            "mrr": round(t.reciprocal / n),
        });
    }
    if as_json {
        println!("{report:#}");
        return;
    }
    println!(
        "{} tools, {} queries, one search p50 {} us",
        report["tools"], report["queries"], report["search_p50_us"]
    );
    println!("split      queries  recall@1  recall@5  recall@10  MRR");
    for split in SPLITS.iter().filter(|s| report.get(**s).is_some()) {
        let r = &report[split];
        println!(
            "{split:<10} {:>7}  {:>8}  {:>8}  {:>9}  {}",
            r["queries"], r["recall_at_1"], r["recall_at_5"], r["recall_at_10"], r["mrr"]
        );
    }
}

/// The word after `flag` on the command line, if the flag is there.
fn value_of<'a>(args: &'a [String], flag: &str) -> Option<&'a String> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
