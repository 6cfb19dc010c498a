//! Action id globs: `*` matches any run of characters (dots included), `?` one character.

/// A compiled glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    pattern: String,
}

impl Glob {
    /// Checks the pattern: action ids are `mcp.<server>.<tool>`, so a pattern must start
    /// with `mcp.` or be `*`, and may hold only name characters, `.`, `*` and `?`.
    pub fn new(pattern: &str) -> Result<Self, String> {
        let valid_chars = pattern
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.*?".contains(c));
        if pattern.is_empty() || !valid_chars {
            return Err(format!(
                "{pattern:?} is not an action glob: use letters, digits, '_', '-', '.', '*' and '?'"
            ));
        }
        if pattern != "*" && !pattern.starts_with("mcp.") && !pattern.starts_with("mcp*") {
            return Err(format!(
                "{pattern:?} can never match: action ids look like mcp.<server>.<tool>"
            ));
        }
        Ok(Self {
            pattern: pattern.to_string(),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// The server this glob names exactly (`mcp.github.*` → `github`), if it does.
    pub fn server(&self) -> Option<&str> {
        let rest = self.pattern.strip_prefix("mcp.")?;
        let server = rest.split('.').next()?;
        (!server.contains(['*', '?'])).then_some(server)
    }

    pub fn matches(&self, text: &str) -> bool {
        matches(self.pattern.as_bytes(), text.as_bytes())
    }
}

/// Iterative wildcard match with one backtrack point (linear in practice).
fn matches(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_action_ids() {
        let cases = [
            ("mcp.github.*", "mcp.github.create_issue", true),
            ("mcp.github.*", "mcp.gitlab.create_issue", false),
            ("mcp.*.delete_*", "mcp.files.delete_file", true),
            ("mcp.*.delete_*", "mcp.files.undelete_file", false),
            ("*", "mcp.a.b", true),
            ("mcp.a.b", "mcp.a.b", true),
            ("mcp.a.b", "mcp.a.bc", false),
            ("mcp.a.?", "mcp.a.x", true),
            ("mcp.*", "mcp.", true),
        ];
        for (pattern, id, want) in cases {
            assert_eq!(
                Glob::new(pattern).unwrap().matches(id),
                want,
                "{pattern} ~ {id}"
            );
        }
    }

    #[test]
    fn globs_that_can_never_match_are_refused() {
        assert!(Glob::new("github.*").is_err());
        assert!(Glob::new("mcp.a b").is_err());
        assert!(Glob::new("").is_err());
        assert_eq!(Glob::new("mcp.github.*").unwrap().server(), Some("github"));
        assert_eq!(Glob::new("mcp.*.x").unwrap().server(), None);
    }

    proptest::proptest! {
        #[test]
        fn a_literal_pattern_matches_only_itself(a in "[a-z_.]{1,12}", b in "[a-z_.]{1,12}") {
            let id = format!("mcp.{a}");
            let glob = Glob::new(&id).unwrap();
            proptest::prop_assert!(glob.matches(&id));
            proptest::prop_assert_eq!(glob.matches(&format!("mcp.{b}")), a == b);
        }
    }
}
