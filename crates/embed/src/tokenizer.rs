//! BERT's uncased WordPiece tokeniser, as Hugging Face's `BertNormalizer`, `BertPreTokenizer`
//! and `WordPiece` do it (checked against them in tests/tokens.json).

use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// A word longer than this (in characters) is one unknown token.
const MAX_WORD_CHARS: usize = 100;

/// The vocabulary: token → id, the `[UNK]` id, and the longest token in characters (`##`
/// included), beyond which no piece needs looking up.
pub(crate) struct Vocab {
    pub ids: HashMap<&'static str, u32>,
    pub unknown: u32,
    pub longest: usize,
}

pub(crate) fn token_ids(text: &str, vocab: &Vocab) -> Vec<u32> {
    let mut ids = Vec::new();
    for word in words(&normalize(text)) {
        wordpiece(&word, vocab, &mut ids);
    }
    ids
}

/// Control characters dropped, white space made plain, CJK ideographs spaced apart, accents
/// stripped, lower case.
fn normalize(text: &str) -> String {
    if text.is_ascii() {
        // No accents, marks or ideographs to handle: only controls, white space and case.
        return text
            .chars()
            .filter(|&c| !is_control(c) && c != '\0')
            .map(|c| {
                if is_whitespace(c) {
                    ' '
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
    }
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            cleaned.push(' ');
        } else if is_cjk(c) {
            cleaned.extend([' ', c, ' ']);
        } else {
            cleaned.push(c);
        }
    }
    // Character by character, as Hugging Face does (no final-sigma rule).
    cleaned
        .nfd()
        .filter(|c| c.general_category() != GeneralCategory::NonspacingMark)
        .flat_map(char::to_lowercase)
        .collect()
}

/// Words split at white space; each punctuation character a word of its own.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if is_whitespace(c) || is_punctuation(c) {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            if is_punctuation(c) {
                out.push(c.to_string());
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The longest known pieces from the left (`##` before all but the first); a word that
/// cannot be cut into known pieces is one unknown token.
fn wordpiece(word: &str, vocab: &Vocab, ids: &mut Vec<u32>) {
    let unknown = vocab.unknown;
    let bounds: Vec<usize> = word
        .char_indices()
        .map(|(i, _)| i)
        .chain([word.len()])
        .collect();
    if bounds.len() - 1 > MAX_WORD_CHARS {
        ids.push(unknown);
        return;
    }
    let first = ids.len();
    let mut start = 0;
    let mut piece = String::new();
    while start < bounds.len() - 1 {
        let last = bounds.len().min(start + 1 + vocab.longest);
        let found = (start + 1..last).rev().find_map(|end| {
            piece.clear();
            if start > 0 {
                piece.push_str("##");
            }
            piece.push_str(&word[bounds[start]..bounds[end]]);
            vocab.ids.get(piece.as_str()).map(|&id| (id, end))
        });
        let Some((id, end)) = found else {
            ids.truncate(first);
            ids.push(unknown);
            return;
        };
        ids.push(id);
        start = end;
    }
}

fn is_whitespace(c: char) -> bool {
    c.is_whitespace()
}

/// Any "other" character (control, format, surrogate, private use, unassigned) but tab and
/// line ends.
fn is_control(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    }
    c.general_category_group() == GeneralCategoryGroup::Other
}

fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    c.general_category_group() == GeneralCategoryGroup::Punctuation
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}
