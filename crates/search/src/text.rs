//! Text into search terms: words split at punctuation, snake, kebab and camel case, stop words
//! dropped, each word stemmed.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::LazyLock;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Words that say nothing about which tool is meant.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has",
    "have", "he", "her", "here", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just",
    "me", "my", "need", "of", "on", "or", "our", "ours", "please", "she", "should", "so", "some",
    "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "us",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your",
];

/// Lower-case words of `text`: split at anything but letters and digits, and inside a word at
/// camel-case humps (`listPullRequests`, `HTTPServer`) and letter-digit edges (`v2api`).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = run.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (before, here) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
            let hump = (before.is_lowercase() && here.is_uppercase())
                || (before.is_uppercase() && here.is_uppercase() && next_lower)
                || (before.is_alphabetic() != here.is_alphabetic());
            if hump {
                out.push(chars[start..i].iter().collect::<String>().to_lowercase());
                start = i;
            }
        }
        if start < chars.len() {
            out.push(chars[start..].iter().collect::<String>().to_lowercase());
        }
    }
    out
}

/// A word's stem, or `None` for stop words, lone characters and bare numbers.
pub fn term(word: &str) -> Option<String> {
    if word.chars().count() < 2
        || word.chars().all(|c| c.is_ascii_digit())
        || STOP_WORDS.binary_search(&word).is_ok()
    {
        return None;
    }
    Some(STEMMER.stem(word).into_owned())
}

/// The search terms of `text`, in order, repeats kept.
pub fn terms(text: &str) -> Vec<String> {
    words(text).iter().filter_map(|w| term(w)).collect()
}

/// The first sentence or line of a description, at most `max` characters (cut at a word).
pub fn summary(description: &str, max: usize) -> String {
    let line = description
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let line = line.trim();
    let sentence = match line.find(". ") {
        Some(end) => &line[..=end],
        None => line,
    };
    if sentence.chars().count() <= max {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(max.saturating_sub(1)).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}…", cut.trim_end_matches([',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_at_every_convention() {
        assert_eq!(words("list_pull-requests"), ["list", "pull", "requests"]);
        assert_eq!(words("listPullRequests"), ["list", "pull", "requests"]);
        assert_eq!(
            words("HTTPServer v2api"),
            ["http", "server", "v", "2", "api"]
        );
        assert_eq!(words("Créer un ticket"), ["créer", "un", "ticket"]);
    }

    #[test]
    fn terms_are_stemmed_without_stop_words_or_numbers() {
        assert_eq!(
            terms("Delete the deleted files for order 1182"),
            ["delet", "delet", "file", "order"]
        );
    }

    #[test]
    fn the_stop_word_list_is_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn summaries_keep_the_first_sentence_and_cut_at_a_word() {
        assert_eq!(
            summary("Creates an issue. Needs push access.", 80),
            "Creates an issue."
        );
        assert_eq!(
            summary("\nLists files in a folder\nmore", 80),
            "Lists files in a folder"
        );
        assert_eq!(summary("one two three four", 12), "one two…");
    }
}
