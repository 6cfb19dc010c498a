//! Lexical search over tool, resource and prompt definitions: BM25 over weighted fields
//! (name, title, description, schema words), with name splitting, stemming and synonyms.
//! Ranking is deterministic: by score, then by the order documents were given.

#![forbid(unsafe_code)]

mod synonyms;
pub mod text;

use std::collections::HashMap;

/// One searchable definition.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// The server that offers it (a query naming the server prefers its entries).
    pub server: String,
    /// Its name as the server gives it (`create_issue`, `listPullRequests`).
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    /// Further words: input schema property names and descriptions, a resource's URI.
    pub details: Vec<String>,
}

/// One found document: its position in what the index was built from, and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub doc: usize,
    pub score: f32,
}

/// How much a word counts in each field, relative to the description.
const NAME_WEIGHT: f32 = 3.0;
const TITLE_WEIGHT: f32 = 2.0;
const SERVER_WEIGHT: f32 = 1.5;
const DESCRIPTION_WEIGHT: f32 = 1.0;
const DETAIL_WEIGHT: f32 = 0.5;
/// How much a synonym of a query word counts, relative to the word itself.
const SYNONYM_WEIGHT: f32 = 0.5;
/// BM25's saturation and length normalisation.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// An immutable index over a list of documents.
#[derive(Debug, Default)]
pub struct Index {
    /// term → (document, weighted frequency), documents ascending.
    postings: HashMap<String, Vec<(u32, f32)>>,
    /// Each document's weighted length over the average.
    relative_length: Vec<f32>,
    servers: Vec<String>,
}

impl Index {
    pub fn build<'a>(documents: impl IntoIterator<Item = &'a Document>) -> Self {
        let mut postings: HashMap<String, Vec<(u32, f32)>> = HashMap::new();
        let mut lengths = Vec::new();
        let mut servers = Vec::new();
        for (doc, d) in documents.into_iter().enumerate() {
            let mut weights: HashMap<String, f32> = HashMap::new();
            let mut add = |text: &str, weight: f32| {
                for term in text::terms(text) {
                    *weights.entry(term).or_default() += weight;
                }
            };
            add(&d.server, SERVER_WEIGHT);
            add(&d.name, NAME_WEIGHT);
            add(d.title.as_deref().unwrap_or_default(), TITLE_WEIGHT);
            add(&d.description, DESCRIPTION_WEIGHT);
            for detail in &d.details {
                add(detail, DETAIL_WEIGHT);
            }
            lengths.push(weights.values().sum::<f32>());
            let mut terms: Vec<_> = weights.into_iter().collect();
            terms.sort_by(|a, b| a.0.cmp(&b.0));
            for (term, weight) in terms {
                postings.entry(term).or_default().push((doc as u32, weight));
            }
            servers.push(d.server.clone());
        }
        let average = lengths.iter().sum::<f32>() / lengths.len().max(1) as f32;
        let relative_length = lengths
            .iter()
            .map(|l| if average > 0.0 { l / average } else { 1.0 })
            .collect();
        Self {
            postings,
            relative_length,
            servers,
        }
    }

    pub fn len(&self) -> usize {
        self.relative_length.len()
    }

    pub fn is_empty(&self) -> bool {
        self.relative_length.is_empty()
    }

    /// The best `limit` documents for `query` among those `admit` lets through (by position),
    /// best first; documents that match no query term are not returned.
    pub fn search(&self, query: &str, limit: usize, admit: impl Fn(usize) -> bool) -> Vec<Hit> {
        let mut wanted: Vec<(String, f32)> = Vec::new();
        let mut want = |term: &str, weight: f32| match wanted.iter_mut().find(|(t, _)| t == term) {
            Some((_, w)) => *w = w.max(weight),
            None => wanted.push((term.to_string(), weight)),
        };
        let terms = text::terms(query);
        for term in &terms {
            want(term, 1.0);
        }
        for term in &terms {
            for companion in synonyms::companions(term) {
                want(companion, SYNONYM_WEIGHT);
            }
        }
        let total = self.len() as f32;
        let mut scores: HashMap<u32, f32> = HashMap::new();
        for (term, weight) in &wanted {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.len() as f32;
            let idf = (1.0 + (total - df + 0.5) / (df + 0.5)).ln();
            for &(doc, tf) in list {
                let norm = K1 * (1.0 - B + B * self.relative_length[doc as usize]);
                *scores.entry(doc).or_default() += weight * idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .filter(|&(doc, _)| admit(doc as usize))
            .map(|(doc, score)| Hit {
                doc: doc as usize,
                score,
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        hits.truncate(limit);
        hits
    }

    /// The server a document came from.
    pub fn server(&self, doc: usize) -> Option<&str> {
        self.servers.get(doc).map(String::as_str)
    }
}

#[cfg(test)]
mod tests;
