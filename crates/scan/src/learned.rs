//! The learned classifier after the rules: logistic regression over hashed word unigrams and
//! bigrams (model/classifier.bin, trained by model/train.py on the training sets only).

use std::collections::HashMap;
use std::sync::LazyLock;

use serde_json::Value;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

use crate::{Severity, Sink, rules};

const MODEL: &[u8] = include_bytes!("../model/classifier.bin");
const MAGIC: &[u8; 8] = b"SBSCAN1\0";

static CLASSIFIER: LazyLock<Classifier> = LazyLock::new(|| Classifier::parse(MODEL));

/// The model's weights and its two thresholds (probabilities).
struct Classifier {
    bits: u32,
    bias: f32,
    warn: f32,
    high: f32,
    idf: Vec<f32>,
    weights: Vec<f32>,
}

impl Classifier {
    fn parse(bytes: &[u8]) -> Classifier {
        assert_eq!(&bytes[..8], MAGIC, "classifier.bin: not a scanner model");
        let word = |i: usize| <[u8; 4]>::try_from(&bytes[8 + 4 * i..12 + 4 * i]).expect("4 bytes");
        let bits = u32::from_le_bytes(word(0));
        let size = 1usize << bits;
        let floats = |start: usize| -> Vec<f32> {
            bytes[start..start + 4 * size]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect()
        };
        let header = 8 + 16;
        assert_eq!(bytes.len(), header + 8 * size, "classifier.bin: truncated");
        Classifier {
            bits,
            bias: f32::from_le_bytes(word(1)),
            warn: f32::from_le_bytes(word(2)),
            high: f32::from_le_bytes(word(3)),
            idf: floats(header),
            weights: floats(header + 4 * size),
        }
    }

    /// The probability that `text` is poisoned, and its strongest grams (most poisoned first).
    fn score(&self, text: &str) -> (f32, Vec<String>) {
        let mask = (1u64 << self.bits) - 1;
        let mut counts: HashMap<usize, (u32, String)> = HashMap::new();
        each_gram(text, |gram| {
            let slot = (fnv1a(gram) & mask) as usize;
            counts
                .entry(slot)
                .or_insert_with(|| (0, gram.to_string()))
                .0 += 1;
        });
        let values: Vec<(usize, f32)> = (counts.iter())
            .map(|(&slot, &(n, _))| (slot, (1.0 + (n as f32).ln()) * self.idf[slot]))
            .collect();
        let norm = values.iter().map(|(_, v)| v * v).sum::<f32>().sqrt();
        let norm = if norm > 0.0 { norm } else { 1.0 };
        let mut parts: Vec<(f32, usize)> = (values.iter())
            .map(|&(slot, v)| (self.weights[slot] * v / norm, slot))
            .collect();
        let z = self.bias + parts.iter().map(|(c, _)| c).sum::<f32>();
        parts.sort_by(|a, b| b.0.total_cmp(&a.0));
        let strongest = (parts.iter().take(3))
            .filter(|(c, _)| *c > 0.0)
            .map(|(_, slot)| counts[slot].1[2..].to_string())
            .collect();
        (1.0 / (1.0 + (-z).exp()), strongest)
    }
}

/// The classifier's score for a text (what `scan_text` reads, or a definition's text as
/// [`definition_text`] makes it), for tests and evaluation.
pub fn score(text: &str) -> f32 {
    CLASSIFIER.score(text).0
}

/// Adds a `learned_poisoning` finding when the text scores at or above the warn threshold.
pub(crate) fn check(text: &str, location: &str, sink: &mut Sink) {
    let model = &*CLASSIFIER;
    let (p, strongest) = model.score(text);
    if p < model.warn {
        return;
    }
    let (severity, threshold) = if p >= model.high {
        (Severity::High, model.high)
    } else {
        (Severity::Medium, model.warn)
    };
    let words = strongest
        .iter()
        .map(|g| format!("'{g}'"))
        .collect::<Vec<_>>()
        .join(", ");
    sink.add(
        rules::LEARNED_POISONING,
        severity,
        location,
        &format!("score {p:.2} ≥ {threshold:.2}; strongest: {words}"),
    );
}

/// Every string a model reads in a definition, one per line, in document order: names,
/// descriptions, property names, enum values and defaults; not `type` words, not an MCP Apps
/// UI or `_meta`.
pub fn definition_text(tool: &Value) -> String {
    fn walk(value: &Value, key: &str, out: &mut Vec<String>) {
        if key == "uiResource" || key == "_meta" {
            return;
        }
        match value {
            Value::String(s) if key != "type" => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| walk(v, key, out)),
            Value::Object(map) => {
                for (k, v) in map {
                    if key == "properties" {
                        out.push(k.clone());
                    }
                    walk(v, k, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(tool, "", &mut out);
    out.join("\n")
}

/// Calls `f` with each gram of each line: `w <token>` then `b <token> <token>`.
fn each_gram(text: &str, mut f: impl FnMut(&str)) {
    let mut gram = String::new();
    for line in text.split('\n') {
        let words = tokens(line);
        for w in &words {
            gram.clear();
            gram.push_str("w ");
            gram.push_str(w);
            f(&gram);
        }
        for pair in words.windows(2) {
            gram.clear();
            gram.push_str("b ");
            gram.push_str(&pair[0]);
            gram.push(' ');
            gram.push_str(&pair[1]);
            f(&gram);
        }
    }
}

/// NFKC, lower case; runs of letters, digits and marks; kana, CJK ideographs and Hangul one
/// character each (those scripts have no spaces).
fn tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in line.nfkc().flat_map(char::to_lowercase) {
        if single(c) {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            out.push(c.to_string());
        } else if matches!(
            c.general_category_group(),
            GeneralCategoryGroup::Letter
                | GeneralCategoryGroup::Number
                | GeneralCategoryGroup::Mark
        ) {
            current.push(c);
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn single(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_scripts() {
        assert_eq!(
            tokens("Send_Email to ＡＰＩ"),
            ["send", "email", "to", "api"]
        );
        assert_eq!(
            tokens("東京タワー abc"),
            ["東", "京", "タ", "ワ", "ー", "abc"]
        );
        assert_eq!(tokens("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"]);
    }

    #[test]
    fn fnv_matches_the_reference() {
        // FNV-1a 64 of "a" (the published test vector).
        assert_eq!(fnv1a("a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn thresholds_are_ordered() {
        let m = &*CLASSIFIER;
        assert!(0.0 < m.warn && m.warn <= m.high && m.high < 1.0);
    }
}
