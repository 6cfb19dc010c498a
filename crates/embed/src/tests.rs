use super::*;

#[test]
fn nothing_known_is_no_embedding() {
    assert!(embed("").is_none());
    assert!(embed("   \t").is_none());
    assert!(
        embed(&"x".repeat(101)).is_none(),
        "one over-long word is unknown"
    );
}

#[test]
fn embeddings_are_unit_length_and_alike_texts_are_closer() {
    let a = embed("delete the file").unwrap();
    let norm = similarity(&a, &a);
    assert!((norm - 1.0).abs() < 1e-4, "{norm}");
    let near = embed("remove a document").unwrap();
    let far = embed("what is the weather in Paris").unwrap();
    assert!(similarity(&a, &near) > similarity(&a, &far));
}

#[test]
fn the_same_text_embeds_the_same() {
    assert_eq!(embed("open a ticket"), embed("open a ticket"));
}

#[test]
fn packed_embeddings_compare_almost_as_the_originals() {
    let a = embed("delete the file").unwrap();
    for text in [
        "remove a document",
        "what is the weather in Paris",
        "delete the file",
    ] {
        let b = embed(text).unwrap();
        let exact = similarity(&a, &b);
        let packed = Packed::new(&b).similarity(&Packed::new(&a));
        assert!((exact - packed).abs() < 0.01, "{text}: {exact} vs {packed}");
    }
}
