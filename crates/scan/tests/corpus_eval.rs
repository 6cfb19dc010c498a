//! Corpus evaluation with floors a broken scanner fails: held-out recall and precision,
//! hard-benign false positives, and the blind sets written after the rules.
//! Measured (release and debug give the same numbers): see `examples/eval.rs`.

use std::path::Path;

use switchboard_scan::eval::{Case, Metrics, evaluate, parse_jsonl};

fn load(name: &str) -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_jsonl(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn summary(m: &Metrics) -> String {
    format!(
        "precision {:.3} recall {:.3} hard-benign FP {}/{} misclassified {:?}",
        m.precision,
        m.recall,
        m.hard_benign_flagged,
        m.hard_benign,
        m.misclassified.iter().map(|x| &x.0).collect::<Vec<_>>()
    )
}

#[test]
fn corpus_shape() {
    let tune = load("tune.jsonl");
    let held = load("heldout.jsonl");
    let count = |v: &[Case], poisoned: bool| v.iter().filter(|c| c.poisoned() == poisoned).count();
    let hard = |v: &[Case]| v.iter().filter(|c| !c.poisoned() && c.hard).count();
    assert!(count(&tune, true) + count(&held, true) >= 150);
    assert!(count(&tune, false) + count(&held, false) >= 150);
    assert!(hard(&tune) + hard(&held) >= 40);
    assert!(3 * count(&held, true) >= count(&tune, true) + count(&held, true));
    assert!(3 * count(&held, false) >= count(&tune, false) + count(&held, false));
    assert!(3 * hard(&held) >= hard(&tune) + hard(&held));
    let mut ids: Vec<&str> = tune.iter().chain(&held).map(|c| c.id.as_str()).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate ids");
}

#[test]
fn heldout_floors() {
    // Measured: precision 1.000, recall 0.984, hard-benign FP 0/33.
    let m = evaluate(&load("heldout.jsonl"));
    assert!(m.recall >= 0.90, "{}", summary(&m));
    assert!(m.precision >= 0.95, "{}", summary(&m));
    assert!(m.hard_benign_fp_rate <= 0.10, "{}", summary(&m));
}

#[test]
fn tune_floors() {
    // Measured: precision 1.000, recall 1.000.
    let m = evaluate(&load("tune.jsonl"));
    assert!(m.recall >= 0.95, "{}", summary(&m));
    assert!(m.precision >= 0.95, "{}", summary(&m));
}

#[test]
fn blind_sets_floors() {
    // fresh: measured recall 0.500 blind, 0.933 after one rule pass used it (the classifier was
    // trained on it). fresh2: written after the rule change before issue 39, never tuned on.
    // blind3: issue 39's blind set, written before any change for it. Measured with the
    // classifier (rules alone): fresh2 precision 1.000 (1.000), recall 0.800 (0.550); blind3
    // precision 1.000 (1.000), recall 0.776 (0.493).
    let learned = cfg!(feature = "classifier");
    let fresh = evaluate(&load("fresh.jsonl"));
    assert!(
        fresh.recall >= 0.85 && fresh.precision >= 0.9,
        "{}",
        summary(&fresh)
    );
    let fresh2 = evaluate(&load("fresh2.jsonl"));
    let floor = if learned { 0.75 } else { 0.45 };
    assert!(
        fresh2.recall >= floor && fresh2.precision >= 0.9,
        "{}",
        summary(&fresh2)
    );
    // Misses of blind3 are never printed: reading them would be tuning on it.
    let blind3 = evaluate(&load("blind3.jsonl"));
    let floor = if learned { 0.70 } else { 0.45 };
    assert!(
        blind3.recall >= floor && blind3.precision >= 0.95 && blind3.hard_benign_fp_rate <= 0.05,
        "blind3: precision {:.3} recall {:.3} hard-benign FP rate {:.3}",
        blind3.precision,
        blind3.recall,
        blind3.hard_benign_fp_rate
    );
}
