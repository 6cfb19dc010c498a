//! Corpus evaluation shared by `tests/corpus_eval.rs` and `examples/eval.rs`: parses the
//! labelled JSON Lines corpus and computes confusion counts, precision, recall, the
//! hard-benign false-positive rate and per-category recall. Parses text; reads no files.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ScanReport, Verdict, rules, scan_text, scan_tool, verdict_for};

/// One labelled tool definition.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    pub id: String,
    pub label: String,
    pub category: String,
    #[serde(default)]
    pub hard: bool,
    #[serde(default)]
    pub lang: Option<String>,
    #[serde(default)]
    pub other_names: Vec<String>,
    /// A tool definition, or (for call arguments and results) `text`.
    #[serde(default)]
    pub tool: Value,
    #[serde(default)]
    pub text: Option<String>,
}

impl Case {
    pub fn poisoned(&self) -> bool {
        self.label == "poisoned"
    }
}

/// Parses a JSON Lines corpus (blank lines skipped).
pub fn parse_jsonl(text: &str) -> Result<Vec<Case>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

/// Confusion counts at one threshold.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    pub tp: usize,
    pub fp: usize,
    pub fn_: usize,
    pub tn: usize,
}

impl Counts {
    pub fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }
    pub fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }
}

/// Results over one corpus split.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Metrics {
    /// Positive = verdict `warn` or worse.
    pub flagged: Counts,
    /// Positive = verdict `quarantine` or worse.
    pub quarantined: Counts,
    pub precision: f64,
    pub recall: f64,
    pub hard_benign: usize,
    pub hard_benign_flagged: usize,
    pub hard_benign_fp_rate: f64,
    /// category → (caught, total) for poisoned cases.
    pub per_category: BTreeMap<String, (usize, usize)>,
    /// language → (caught, total) for poisoned cases.
    pub per_lang: BTreeMap<String, (usize, usize)>,
    /// (id, verdict, first finding) of every misclassified case.
    pub misclassified: Vec<(String, Verdict, String)>,
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

/// Scans every case and tallies the results.
pub fn evaluate(cases: &[Case]) -> Metrics {
    evaluate_with(cases, true)
}

/// The scanner's report on one case; without `learned`, the rules' findings alone.
pub fn report(c: &Case, learned: bool) -> ScanReport {
    let mut report = match &c.text {
        Some(text) => {
            let findings = scan_text(text);
            ScanReport {
                name: c.id.clone(),
                verdict: verdict_for(&findings),
                findings,
            }
        }
        None => {
            let others: Vec<&str> = c.other_names.iter().map(String::as_str).collect();
            scan_tool(&c.tool, &others)
        }
    };
    if !learned {
        (report.findings).retain(|f| f.rule != rules::LEARNED_POISONING);
        report.verdict = verdict_for(&report.findings);
    }
    report
}

/// [`evaluate`], with or without the learned classifier's findings.
pub fn evaluate_with(cases: &[Case], learned: bool) -> Metrics {
    let mut m = Metrics::default();
    for c in cases {
        let report = report(c, learned);
        let flagged = report.verdict >= Verdict::Warn;
        let quarantined = report.verdict >= Verdict::Quarantine;
        tally(&mut m.flagged, c.poisoned(), flagged);
        tally(&mut m.quarantined, c.poisoned(), quarantined);
        if c.poisoned() {
            let e = m.per_category.entry(c.category.clone()).or_default();
            e.0 += usize::from(flagged);
            e.1 += 1;
            let lang = c.lang.clone().unwrap_or_else(|| "en".into());
            let e = m.per_lang.entry(lang).or_default();
            e.0 += usize::from(flagged);
            e.1 += 1;
        } else if c.hard {
            m.hard_benign += 1;
            m.hard_benign_flagged += usize::from(flagged);
        }
        if flagged != c.poisoned() {
            let first = report
                .findings
                .first()
                .map(|f| format!("{}: {}", f.rule, f.evidence))
                .unwrap_or_default();
            m.misclassified.push((c.id.clone(), report.verdict, first));
        }
    }
    m.precision = m.flagged.precision();
    m.recall = m.flagged.recall();
    m.hard_benign_fp_rate = ratio(m.hard_benign_flagged, m.hard_benign.max(1));
    if m.hard_benign == 0 {
        m.hard_benign_fp_rate = 0.0;
    }
    m
}

fn tally(c: &mut Counts, truth: bool, predicted: bool) {
    match (truth, predicted) {
        (true, true) => c.tp += 1,
        (false, true) => c.fp += 1,
        (true, false) => c.fn_ += 1,
        (false, false) => c.tn += 1,
    }
}
