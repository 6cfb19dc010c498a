//! The tokeniser and the int8 vectors against Hugging Face's own tokenizer and the float model
//! (tests/cases.json, written by model/make_cases.py).

use serde::Deserialize;
use switchboard_embed::{DIMENSIONS, embed, similarity, token_ids};

#[derive(Deserialize)]
struct Cases {
    tokens: Vec<TokenCase>,
    embeddings: Vec<EmbeddingCase>,
}

#[derive(Deserialize)]
struct TokenCase {
    text: String,
    ids: Vec<u32>,
}

#[derive(Deserialize)]
struct EmbeddingCase {
    text: String,
    vector: Vec<f32>,
}

fn cases() -> Cases {
    serde_json::from_str(include_str!("cases.json")).expect("cases.json parses")
}

#[test]
fn token_ids_are_hugging_faces() {
    for case in cases().tokens {
        assert_eq!(token_ids(&case.text), case.ids, "{:?}", case.text);
    }
}

#[test]
fn embeddings_match_the_float_model() {
    for case in cases().embeddings {
        let ours = embed(&case.text).expect("known words");
        let theirs: [f32; DIMENSIONS] = case.vector.try_into().expect("256 numbers");
        let cosine = similarity(&ours, &theirs);
        assert!(cosine > 0.999, "{:?}: cosine {cosine}", case.text);
    }
}
