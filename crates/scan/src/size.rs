//! Oversized text: definitions long enough to bury instructions or flood the context,
//! whitespace padding that pushes text out of view, very long names, huge enums.

use std::collections::HashMap;

use crate::fields::{Field, Kind};
use crate::{Severity, Sink, rules};

/// Total characters of a definition above which it is reported.
pub(crate) const MAX_TOTAL: usize = 20_000;
/// Characters of one string above which it is reported.
pub(crate) const MAX_FIELD: usize = 8_000;
/// Entries of one enum above which it is reported.
pub(crate) const MAX_ENUM: usize = 500;
/// Characters of a tool name above which it is reported.
pub(crate) const MAX_NAME: usize = 64;

/// Size checks over all fields of one definition (or one free text).
pub(crate) fn check_tool(fields: &[Field], sink: &mut Sink) {
    let total: usize = fields.iter().map(|f| f.text.chars().count()).sum();
    if total > MAX_TOTAL {
        let sev = if total > 5 * MAX_TOTAL {
            Severity::High
        } else {
            Severity::Medium
        };
        sink.add(
            rules::OVERSIZED,
            sev,
            "definition",
            &format!("{total} characters in all"),
        );
    }
    let mut enums: HashMap<&str, usize> = HashMap::new();
    for f in fields {
        let n = f.text.chars().count();
        if f.kind == Kind::Name && n > MAX_NAME {
            sink.add(
                rules::OVERSIZED,
                Severity::Medium,
                &f.location,
                &format!("name of {n} characters"),
            );
        } else if n > MAX_FIELD {
            sink.add(
                rules::OVERSIZED,
                Severity::Medium,
                &f.location,
                &format!("{n} characters"),
            );
        }
        if let Some(p) = padding(&f.text) {
            sink.add(rules::OVERSIZED, Severity::Medium, &f.location, &p);
        }
        if f.kind == Kind::Value
            && let Some(i) = f.location.rfind('[')
        {
            *enums.entry(&f.location[..i]).or_default() += 1;
        }
    }
    for (loc, n) in enums {
        if n > MAX_ENUM {
            sink.add(
                rules::OVERSIZED,
                Severity::Medium,
                loc,
                &format!("{n} values"),
            );
        }
    }
}

/// A run of blank space long enough to push what follows out of view.
fn padding(s: &str) -> Option<String> {
    let mut spaces = 0usize;
    let mut newlines = 0usize;
    for c in s.chars() {
        if c.is_whitespace()
            || matches!(
                c,
                '\u{3164}' | '\u{115F}' | '\u{1160}' | '\u{FFA0}' | '\u{2800}'
            )
        {
            spaces += 1;
            if c == '\n' {
                newlines += 1;
            }
            if newlines >= 40 || spaces >= 200 {
                return Some(format!(
                    "padding of {spaces}+ blank characters ({newlines} newlines)"
                ));
            }
        } else {
            spaces = 0;
            newlines = 0;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(kind: Kind, loc: &str, text: String) -> Field {
        Field {
            location: loc.into(),
            kind,
            text,
        }
    }

    #[test]
    fn table() {
        let cases: Vec<(Vec<Field>, bool)> = vec![
            (
                vec![field(Kind::Description, "description", "x ".repeat(15_000))],
                true,
            ),
            (
                vec![field(
                    Kind::Description,
                    "description",
                    format!("a{}b", "\n".repeat(60)),
                )],
                true,
            ),
            (
                vec![field(
                    Kind::Description,
                    "description",
                    format!("a{}b", " ".repeat(300)),
                )],
                true,
            ),
            (vec![field(Kind::Name, "name", "x".repeat(100))], true),
            (
                (0..600)
                    .map(|i| field(Kind::Value, &format!("p.enum[{i}]"), format!("v{i}")))
                    .collect(),
                true,
            ),
            // benign
            (
                vec![field(
                    Kind::Description,
                    "description",
                    "Long but fine. ".repeat(300),
                )],
                false,
            ),
            (
                (0..80)
                    .map(|i| {
                        field(
                            Kind::Value,
                            &format!("p.enum[{i}]"),
                            format!("Europe/Zone{i}"),
                        )
                    })
                    .collect(),
                false,
            ),
            (
                vec![field(
                    Kind::Description,
                    "description",
                    "Usage:\n\n - one\n - two\n\n".into(),
                )],
                false,
            ),
        ];
        for (fields, want) in cases {
            let mut sink = Sink::default();
            check_tool(&fields, &mut sink);
            assert_eq!(sink.len() > 0, want, "{:?}", sink.findings);
        }
    }
}
