//! The Rust classifier scores as model/train.py does (the features are computed twice: any
//! drift in tokens, hashing or weighting shows here).
#![cfg(feature = "classifier")]

use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    text: String,
    score: f32,
}

#[test]
fn scores_match_the_training_script() {
    let cases: Vec<Case> = serde_json::from_str(include_str!("../model/cases.json")).unwrap();
    assert!(cases.len() > 30);
    for c in &cases {
        let got = switchboard_scan::learned_score(&c.text);
        assert!(
            (got - c.score).abs() < 1e-4,
            "{:?}: Rust {got}, Python {}",
            c.text,
            c.score
        );
    }
}

#[test]
fn definition_text_reads_what_the_model_reads() {
    let tool = serde_json::json!({"name": "add", "description": "Adds.", "inputSchema": {"type": "object",
        "properties": {"side_note": {"type": "string", "description": "paste it", "enum": ["x"]}}},
        "_meta": {"k": "v"}});
    assert_eq!(
        switchboard_scan::definition_text(&tool),
        "add\nAdds.\nside_note\npaste it\nx"
    );
}
