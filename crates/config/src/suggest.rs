//! "Did you mean": the known word closest to a misspelt one.

/// The candidate nearest `word` by edit distance (case ignored), when it is near enough to be
/// a slip: at most one edit in a short word, two in a longer one.
pub(crate) fn closest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let word = word.to_ascii_lowercase();
    let limit = if word.chars().count() <= 4 { 1 } else { 2 };
    candidates
        .iter()
        .map(|c| {
            (
                strsim::damerau_levenshtein(&word, &c.to_ascii_lowercase()),
                *c,
            )
        })
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn slips_find_their_word_and_strangers_find_none() {
        let keys = ["command", "args", "env", "url", "headers", "timeout_ms"];
        assert_eq!(closest("arg", &keys), Some("args"));
        assert_eq!(closest("agrs", &keys), Some("args"));
        assert_eq!(closest("comand", &keys), Some("command"));
        assert_eq!(closest("Headers", &keys), Some("headers"));
        assert_eq!(closest("timeoutms", &keys), Some("timeout_ms"));
        assert_eq!(closest("colour", &keys), None);
        assert_eq!(closest("x", &keys), None);
    }
}
