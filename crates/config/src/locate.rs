//! Finds the line a key sits on, so problems point at it even after parsing lost positions.

/// 1-based line of the first `path` segment sequence found in order in `text`: the first
/// segment's line, then the next segment on or after it, and so on. Best effort: `None` when
/// a segment is absent (e.g. the key is implied by a default).
pub(crate) fn line_of(text: &str, path: &[&str]) -> Option<usize> {
    let mut offset = 0;
    let mut found = None;
    for segment in path {
        if segment.is_empty() {
            continue;
        }
        let at = find_token(&text[offset..], segment)? + offset;
        offset = at + segment.len();
        found = Some(at);
    }
    found.map(|at| text[..at].matches('\n').count() + 1)
}

/// Byte offset of the first `token` (as an identifier) at or after `from`.
pub(crate) fn offset_of(text: &str, token: &str, from: usize) -> Option<usize> {
    find_token(&text[from..], token).map(|at| at + from)
}

/// Byte offset of the `n`-th (0-based) plain occurrence of `needle` at or after `from`.
pub(crate) fn nth_offset(text: &str, needle: &str, n: usize, from: usize) -> Option<usize> {
    let mut at = from;
    for i in 0..=n {
        let found = text[at..].find(needle)? + at;
        if i == n {
            return Some(found);
        }
        at = found + needle.len();
    }
    None
}

/// The first occurrence of `token` not inside a longer identifier.
fn find_token(haystack: &str, token: &str) -> Option<usize> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut start = 0;
    while let Some(pos) = haystack[start..].find(token) {
        let at = start + pos;
        let before = haystack[..at].chars().next_back();
        let after = haystack[at + token.len()..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return Some(at);
        }
        start = at + token.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_keys_in_order() {
        let text = "{\n \"a\": {\"url\": 1},\n \"b\": {\n  \"url\": 2\n }\n}";
        assert_eq!(line_of(text, &["b", "url"]), Some(4));
        assert_eq!(line_of(text, &["a", "url"]), Some(2));
        assert_eq!(line_of(text, &["c"]), None);
    }
}
