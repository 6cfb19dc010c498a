//! Ranking by meaning (the static embedding model) and its fusion with the lexical ranking.
//! Without the `meaning` feature no model is built in and nothing has a meaning: the ranking
//! is the lexical one alone.

use crate::{Document, Hit, text};
#[cfg(feature = "meaning")]
pub(crate) use switchboard_embed::Packed;

/// What `text` means, packed for comparison; `None` when the model knows none of its words.
#[cfg(feature = "meaning")]
pub(crate) fn embed(text: &str) -> Option<Packed> {
    switchboard_embed::embed(text).map(|e| Packed::new(&e))
}

/// Built without the model: nothing has a meaning.
#[cfg(not(feature = "meaning"))]
pub(crate) fn embed(_: &str) -> Option<Packed> {
    None
}

/// Built without the model, no meaning exists: this type has no values.
#[cfg(not(feature = "meaning"))]
#[derive(Debug, Clone)]
pub(crate) enum Packed {}

#[cfg(not(feature = "meaning"))]
impl Packed {
    pub(crate) fn similarity(&self, _: &Packed) -> f32 {
        match *self {}
    }
}

/// How many of each ranking's best take part in the fusion (or the limit asked for, if more).
pub(crate) const CANDIDATES: usize = 50;

/// What a document means, as the model reads it: its server, its name's words, title and
/// description (schema words made rankings worse on the tuning split).
pub(crate) fn text(d: &Document) -> String {
    format!(
        "{} {}. {} {}",
        d.server,
        text::words(&d.name).join(" "),
        d.title.as_deref().unwrap_or_default(),
        d.description
    )
}

/// The `count` admitted documents most alike `query` and at least `floor` alike, best first
/// (ties in document order).
pub(crate) fn nearest(
    query: &Packed,
    meanings: &[Option<Packed>],
    count: usize,
    floor: f32,
    admit: impl Fn(usize) -> bool,
) -> Vec<Hit> {
    let mut hits: Vec<Hit> = meanings
        .iter()
        .enumerate()
        .filter_map(|(doc, meaning)| {
            let score = meaning.as_ref()?.similarity(query);
            (score >= floor && admit(doc)).then_some(Hit { doc, score })
        })
        .collect();
    if hits.len() > count {
        hits.select_nth_unstable_by(count, best_first);
        hits.truncate(count);
    }
    hits.sort_by(best_first);
    hits
}

/// Reciprocal rank fusion: a document scores `1 / (k + rank)` for its place in the lexical
/// ranking plus `weight / (k + rank)` for its place in the meaning ranking (ranks from 0),
/// scaled so that first in both scores 1. The best `limit`, best first.
pub(crate) fn fuse(
    lexical: &[Hit],
    meaning: &[Hit],
    k: f32,
    weight: f32,
    limit: usize,
) -> Vec<Hit> {
    let top = (1.0 + weight) / k;
    let mut fused: Vec<Hit> = Vec::with_capacity(lexical.len() + meaning.len());
    for (list, share) in [(lexical, 1.0), (meaning, weight)] {
        for (rank, hit) in list.iter().enumerate() {
            let score = share / (k + rank as f32) / top;
            match fused.iter_mut().find(|f| f.doc == hit.doc) {
                Some(f) => f.score += score,
                None => fused.push(Hit {
                    doc: hit.doc,
                    score,
                }),
            }
        }
    }
    fused.sort_by(best_first);
    fused.truncate(limit);
    fused
}

/// Higher score first, then earlier document.
pub(crate) fn best_first(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc))
}
