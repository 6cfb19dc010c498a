//! Search over tool, resource and prompt definitions: BM25 over weighted fields (name, title,
//! description, schema words, with name splitting, stemming and synonyms) fused with a static
//! embedding model's ranking. Deterministic: by score, then by the order documents were given.

#![forbid(unsafe_code)]

mod meaning;
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

impl Document {
    /// A tool's input schema as details: each property's name with its description.
    pub fn schema_details(schema: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
        let Some(serde_json::Value::Object(properties)) = schema.get("properties") else {
            return Vec::new();
        };
        properties
            .iter()
            .map(|(name, property)| {
                let description = property.get("description").and_then(|d| d.as_str());
                format!("{name} {}", description.unwrap_or_default())
            })
            .collect()
    }
}

/// One found document: its position in what the index was built from, and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub doc: usize,
    pub score: f32,
}

/// How a ranking weighs things: each field relative to the description, a synonym relative to
/// the word itself, BM25's saturation (`k1`) and length normalisation (`b`); and the meaning
/// ranking's weight in the fusion relative to the lexical one (`semantic`, 0 turns it off),
/// the fusion's rank constant (`fusion_k`) and the least similarity that counts (`floor`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    pub name: f32,
    pub title: f32,
    pub server: f32,
    pub description: f32,
    pub detail: f32,
    pub synonym: f32,
    pub k1: f32,
    pub b: f32,
    pub semantic: f32,
    pub fusion_k: f32,
    pub floor: f32,
}

impl Default for Weights {
    fn default() -> Self {
        Self {
            name: 2.0,
            title: 2.0,
            server: 1.5,
            description: 1.0,
            detail: 0.5,
            synonym: 0.5,
            k1: 1.2,
            b: 0.5,
            semantic: 0.75,
            fusion_k: 5.0,
            floor: 0.2,
        }
    }
}

/// An immutable index over a list of documents.
#[derive(Debug, Default)]
pub struct Index {
    /// term → (document, weighted frequency), documents ascending.
    postings: HashMap<String, Vec<(u32, f32)>>,
    /// Each document's weighted length over the average.
    relative_length: Vec<f32>,
    servers: Vec<String>,
    /// The distinct server names, as terms.
    server_terms: Vec<String>,
    /// Each document's embedding (none when the meaning ranking is off or knows no word).
    meanings: Vec<Option<meaning::Packed>>,
    weights: Weights,
}

impl Index {
    pub fn build<'a>(documents: impl IntoIterator<Item = &'a Document>) -> Self {
        Self::build_with(documents, Weights::default())
    }

    /// [`Index::build`] with other weights (for tuning them).
    pub fn build_with<'a>(documents: impl IntoIterator<Item = &'a Document>, w: Weights) -> Self {
        let mut postings: HashMap<String, Vec<(u32, f32)>> = HashMap::new();
        let mut lengths = Vec::new();
        let mut servers = Vec::new();
        let mut meanings = Vec::new();
        for (doc, d) in documents.into_iter().enumerate() {
            let mut weights: HashMap<String, f32> = HashMap::new();
            let mut add = |text: &str, weight: f32| {
                for term in text::terms(text) {
                    *weights.entry(term).or_default() += weight;
                }
            };
            add(&d.server, w.server);
            add(&d.name, w.name);
            add(d.title.as_deref().unwrap_or_default(), w.title);
            add(&d.description, w.description);
            for detail in &d.details {
                add(detail, w.detail);
            }
            lengths.push(weights.values().sum::<f32>());
            let mut terms: Vec<_> = weights.into_iter().collect();
            terms.sort_by(|a, b| a.0.cmp(&b.0));
            for (term, weight) in terms {
                postings.entry(term).or_default().push((doc as u32, weight));
            }
            servers.push(d.server.clone());
            meanings.push(if w.semantic > 0.0 {
                meaning::embed(&meaning::text(d))
            } else {
                None
            });
        }
        let average = lengths.iter().sum::<f32>() / lengths.len().max(1) as f32;
        let relative_length = lengths
            .iter()
            .map(|l| if average > 0.0 { l / average } else { 1.0 })
            .collect();
        let mut server_terms: Vec<String> = servers.iter().flat_map(|s| text::terms(s)).collect();
        server_terms.sort_unstable();
        server_terms.dedup();
        Self {
            postings,
            relative_length,
            servers,
            server_terms,
            meanings,
            weights: w,
        }
    }

    pub fn len(&self) -> usize {
        self.relative_length.len()
    }

    pub fn is_empty(&self) -> bool {
        self.relative_length.is_empty()
    }

    /// The best `limit` documents for `query` among those `admit` lets through (by position),
    /// best first: the lexical ranking fused with the meaning ranking (scores from 0 to 1,
    /// 1 for first in both), or the lexical ranking alone (BM25 scores) when `semantic` is 0.
    /// A query without a content word finds nothing; neither does a document that shares no
    /// term with the query and is less alike than the floor.
    pub fn search(&self, query: &str, limit: usize, admit: impl Fn(usize) -> bool) -> Vec<Hit> {
        let mut wanted: Vec<(String, f32)> = Vec::new();
        let mut want = |term: &str, weight: f32| match wanted.iter_mut().find(|(t, _)| t == term) {
            Some((_, w)) => *w = w.max(weight),
            None => wanted.push((term.to_string(), weight)),
        };
        let terms = text::terms(&synonyms::expand_phrases(query));
        if terms.is_empty() {
            return Vec::new();
        }
        for term in &terms {
            want(term, 1.0);
        }
        // A server named in part ("drive" for gdrive, "mongo" for mongodb) is named.
        for term in &terms {
            for server in &self.server_terms {
                let (long, short) = if server.len() > term.len() {
                    (server, term)
                } else {
                    (term, server)
                };
                if short.len() >= 4 && long != short && long.contains(short.as_str()) {
                    want(server, 1.0);
                }
            }
        }
        for term in &terms {
            for companion in synonyms::companions(term) {
                want(companion, self.weights.synonym);
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
                let Weights { k1, b, .. } = self.weights;
                let norm = k1 * (1.0 - b + b * self.relative_length[doc as usize]);
                *scores.entry(doc).or_default() += weight * idf * tf * (k1 + 1.0) / (tf + norm);
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
        hits.sort_by(meaning::best_first);
        let w = self.weights;
        let asked = (w.semantic > 0.0).then(|| meaning::embed(query)).flatten();
        let Some(asked) = asked else {
            hits.truncate(limit);
            return hits;
        };
        let candidates = limit.max(meaning::CANDIDATES);
        hits.truncate(candidates);
        let near = meaning::nearest(&asked, &self.meanings, candidates, w.floor, admit);
        meaning::fuse(&hits, &near, w.fusion_k, w.semantic, limit)
    }

    /// The server a document came from.
    pub fn server(&self, doc: usize) -> Option<&str> {
        self.servers.get(doc).map(String::as_str)
    }
}

#[cfg(test)]
mod tests;
