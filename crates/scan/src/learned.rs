//! The learned classifier after the rules: logistic regression over hashed word unigrams and
//! bigrams (model/classifier.bin, trained by model/train.py on the training sets only).

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
    /// `2^bits - 1`: a gram's slot is its hash's low bits.
    mask: u64,
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
            mask: (1u64 << bits) - 1,
            bias: f32::from_le_bytes(word(1)),
            warn: f32::from_le_bytes(word(2)),
            high: f32::from_le_bytes(word(3)),
            idf: floats(header),
            weights: floats(header + 4 * size),
        }
    }

    fn slot(&self, hash: u64) -> usize {
        (hash & self.mask) as usize
    }

    /// The slot of every gram of `text`, in text order.
    fn slots(&self, text: &str) -> Vec<usize> {
        let mut slots = Vec::with_capacity(text.len() / 3);
        each_gram(text, |_, hash| slots.push(self.slot(hash)));
        slots
    }

    /// The probability that `text` is poisoned.
    fn score(&self, text: &str) -> f32 {
        let mut slots = self.slots(text);
        slots.sort_unstable();
        let (mut dot, mut norm2) = (0.0f32, 0.0f32);
        for run in slots.chunk_by(|a, b| a == b) {
            let slot = run[0];
            let v = (1.0 + (run.len() as f32).ln()) * self.idf[slot];
            dot += self.weights[slot] * v;
            norm2 += v * v;
        }
        let norm = if norm2 > 0.0 { norm2.sqrt() } else { 1.0 };
        1.0 / (1.0 + (-(self.bias + dot / norm)).exp())
    }

    /// The three grams of `text` that weigh most towards poisoned (for a finding's evidence).
    fn strongest(&self, text: &str) -> Vec<String> {
        let weight = |slot: usize| self.weights[slot] * self.idf[slot];
        let mut slots = self.slots(text);
        slots.sort_unstable();
        slots.dedup();
        slots.retain(|&s| weight(s) > 0.0);
        slots.sort_by(|&a, &b| weight(b).total_cmp(&weight(a)));
        slots.truncate(3);
        let mut named: Vec<Option<String>> = vec![None; slots.len()];
        each_gram(text, |gram, hash| {
            if let Some(i) = slots.iter().position(|&s| s == self.slot(hash)) {
                named[i].get_or_insert_with(|| gram.to_string());
            }
        });
        named.into_iter().flatten().collect()
    }
}

/// The classifier's score for a text (what `scan_text` reads, or a definition's text as
/// [`definition_text`] makes it), for tests and evaluation.
pub fn score(text: &str) -> f32 {
    CLASSIFIER.score(text)
}

/// Adds a `learned_poisoning` finding when the text scores at or above the warn threshold.
pub(crate) fn check(text: &str, location: &str, sink: &mut Sink) {
    let model = &*CLASSIFIER;
    let p = model.score(text);
    if p < model.warn {
        return;
    }
    let strongest = model.strongest(text);
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
    fn walk<'a>(value: &'a Value, key: &str, out: &mut Vec<&'a str>) {
        if key == "uiResource" || key == "_meta" {
            return;
        }
        match value {
            Value::String(s) if key != "type" => out.push(s),
            Value::Array(items) => items.iter().for_each(|v| walk(v, key, out)),
            Value::Object(map) => {
                for (k, v) in map {
                    if key == "properties" {
                        out.push(k);
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

/// Calls `f` with each gram of each line and its FNV-1a hash: `w <token>` for each token, then
/// `b <token> <token>` for each pair. The gram's text is only built when `f` asks for it.
fn each_gram(text: &str, mut f: impl FnMut(&Gram, u64)) {
    let mut norm = String::new();
    let mut words: Vec<(usize, usize)> = Vec::new();
    for line in text.split('\n') {
        tokens(line, &mut norm, &mut words);
        for &(s, e) in &words {
            let w = &norm[s..e];
            f(&Gram::Word(w), fnv1a(&[b"w ", w.as_bytes()]));
        }
        for pair in words.windows(2) {
            let (a, b) = (&norm[pair[0].0..pair[0].1], &norm[pair[1].0..pair[1].1]);
            let hash = fnv1a(&[b"b ", a.as_bytes(), b" ", b.as_bytes()]);
            f(&Gram::Pair(a, b), hash);
        }
    }
}

/// One gram, borrowed from the normalised line.
enum Gram<'a> {
    Word(&'a str),
    Pair(&'a str, &'a str),
}

impl std::fmt::Display for Gram<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Gram::Word(w) => f.write_str(w),
            Gram::Pair(a, b) => write!(f, "{a} {b}"),
        }
    }
}

/// NFKC, lower case; runs of letters, digits and marks; kana, CJK ideographs and Hangul one
/// character each (those scripts have no spaces). Writes the normalised line to `norm` and
/// each token's byte range in it to `words`.
fn tokens(line: &str, norm: &mut String, words: &mut Vec<(usize, usize)>) {
    norm.clear();
    words.clear();
    if line.is_ascii() {
        // NFKC leaves ASCII as it is: the same tokens, without the Unicode tables.
        norm.push_str(line);
        norm.make_ascii_lowercase();
        let bytes = norm.as_bytes();
        let mut start = None;
        for (at, b) in bytes.iter().enumerate() {
            match (b.is_ascii_alphanumeric(), start) {
                (true, None) => start = Some(at),
                (false, Some(s)) => {
                    words.push((s, at));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            words.push((s, bytes.len()));
        }
        return;
    }
    let mut start = None;
    for c in line.nfkc().flat_map(char::to_lowercase) {
        let at = norm.len();
        if single(c) {
            if let Some(s) = start.take() {
                words.push((s, at));
            }
            norm.push(c);
            words.push((at, norm.len()));
            continue;
        }
        let word = matches!(
            c.general_category_group(),
            GeneralCategoryGroup::Letter
                | GeneralCategoryGroup::Number
                | GeneralCategoryGroup::Mark
        );
        if word {
            start.get_or_insert(at);
        } else if let Some(s) = start.take() {
            words.push((s, at));
        }
        norm.push(c);
    }
    if let Some(s) = start {
        words.push((s, norm.len()));
    }
}

fn single(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// FNV-1a 64 of the parts, concatenated.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    (parts.iter().flat_map(|p| p.iter())).fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_scripts() {
        let split = |line: &str| {
            let (mut norm, mut words) = (String::new(), Vec::new());
            tokens(line, &mut norm, &mut words);
            (words.iter())
                .map(|&(s, e)| norm[s..e].to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            split("Send_Email to ＡＰＩ"),
            ["send", "email", "to", "api"]
        );
        assert_eq!(split("Send_Email to API"), ["send", "email", "to", "api"]);
        assert_eq!(
            split("東京タワー abc"),
            ["東", "京", "タ", "ワ", "ー", "abc"]
        );
        assert_eq!(split("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"]);
    }

    #[test]
    fn fnv_matches_the_reference() {
        // FNV-1a 64 of "a" (the published test vector).
        assert_eq!(fnv1a(&[b"a"]), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(&[b"w ", b"ab"]), fnv1a(&[b"w ab"]));
    }

    #[test]
    fn thresholds_are_ordered() {
        let m = &*CLASSIFIER;
        assert!(0.0 < m.warn && m.warn <= m.high && m.high < 1.0);
    }
}
