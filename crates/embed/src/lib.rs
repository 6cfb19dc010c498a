//! Text into meaning vectors without a network: potion-base-8M (a Model2Vec static model by
//! Minish Lab, MIT) is compiled into the binary; a text's vector is the mean of its WordPiece
//! tokens' vectors, scaled to unit length, so two texts compare by their dot product.

#![forbid(unsafe_code)]

mod tokenizer;

use tokenizer::Vocab;

use std::collections::HashMap;
use std::sync::LazyLock;

/// Length of every embedding.
pub const DIMENSIONS: usize = 256;
/// Longest text, in tokens, that counts (as Model2Vec's own default).
const MAX_TOKENS: usize = 512;

const VOCAB: &str = include_str!("../model/vocab.txt");
const VECTORS: &[u8] = include_bytes!("../model/vectors.i8");
const SCALES: &[u8] = include_bytes!("../model/scales.f32");

/// The model, read from the binary the first time a text is embedded (a few milliseconds).
static MODEL: LazyLock<Model> = LazyLock::new(Model::load);

/// A unit-length embedding.
pub type Embedding = [f32; DIMENSIONS];

struct Model {
    vocab: Vocab,
    scales: Vec<f32>,
}

impl Model {
    fn load() -> Self {
        let ids: HashMap<&'static str, u32> = VOCAB
            .lines()
            .enumerate()
            .map(|(id, t)| (t, id as u32))
            .collect();
        let scales: Vec<f32> = SCALES
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(scales.len(), ids.len(), "model files disagree");
        assert_eq!(
            VECTORS.len(),
            ids.len() * DIMENSIONS,
            "model files disagree"
        );
        let vocab = Vocab {
            unknown: ids["[UNK]"],
            longest: ids.keys().map(|t| t.chars().count()).max().unwrap_or(1),
            ids,
        };
        Self { vocab, scales }
    }
}

/// The WordPiece token ids of `text` (BERT uncased: cleaned, accents stripped, lower-cased,
/// split at white space and punctuation), unknown words included as `[UNK]`.
pub fn token_ids(text: &str) -> Vec<u32> {
    tokenizer::token_ids(text, &MODEL.vocab)
}

/// `text`'s embedding, or `None` when it holds no token the model knows.
pub fn embed(text: &str) -> Option<Embedding> {
    let model = &*MODEL;
    let mut sum = [0f32; DIMENSIONS];
    let mut count = 0usize;
    let unknown = model.vocab.unknown;
    let ids = tokenizer::token_ids(text, &model.vocab);
    for id in ids.into_iter().filter(|&id| id != unknown).take(MAX_TOKENS) {
        let id = id as usize;
        let scale = model.scales[id];
        let row = &VECTORS[id * DIMENSIONS..(id + 1) * DIMENSIONS];
        for (total, &byte) in sum.iter_mut().zip(row) {
            *total += f32::from(byte as i8) * scale;
        }
        count += 1;
    }
    // The mean's direction is the sum's: scale the sum to unit length directly.
    let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
    if count == 0 || norm == 0.0 {
        return None;
    }
    sum.iter_mut().for_each(|x| *x /= norm);
    Some(sum)
}

/// How alike two embeddings are: their cosine, from -1 to 1.
pub fn similarity(a: &Embedding, b: &Embedding) -> f32 {
    // Eight running sums let the compiler use vector instructions.
    let mut lanes = [0f32; 8];
    for (a, b) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for i in 0..8 {
            lanes[i] += a[i] * b[i];
        }
    }
    lanes.iter().sum()
}

/// An embedding kept in a quarter of the memory: one signed byte per dimension and a scale.
/// Comparing a query with many stored texts reads them all, so their size is the cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Packed {
    scale: f32,
    values: [i8; DIMENSIONS],
}

impl Packed {
    pub fn new(e: &Embedding) -> Self {
        let largest = e.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
        let mut values = [0i8; DIMENSIONS];
        for (v, x) in values.iter_mut().zip(e) {
            *v = (x / scale).round().clamp(-127.0, 127.0) as i8;
        }
        Self { scale, values }
    }

    /// The cosine of two packed embeddings (within about 0.01 of the unpacked one): a sum of
    /// byte products in integers (a search over 10,000 tools took half the time it did with
    /// float queries).
    pub fn similarity(&self, other: &Packed) -> f32 {
        let mut lanes = [0i32; 16];
        for (a, b) in self
            .values
            .chunks_exact(16)
            .zip(other.values.chunks_exact(16))
        {
            for i in 0..16 {
                lanes[i] += i32::from(a[i]) * i32::from(b[i]);
            }
        }
        lanes.iter().sum::<i32>() as f32 * self.scale * other.scale
    }
}

#[cfg(test)]
mod tests;
