//! Look-alike tool names: names mixing scripts (Cyrillic `а` in `reаd_file`), written with
//! compatibility characters (fullwidth), or whose UTS #39 confusable skeleton equals the name
//! of another server's tool (`read_fi1e`, `create_cornment`).

use unicode_normalization::UnicodeNormalization;
use unicode_security::{MixedScript, skeleton};

use crate::normalize::is_invisible;
use crate::{Severity, Sink, rules};

pub(crate) fn skel(s: &str) -> String {
    let visible: String = s.chars().filter(|c| !is_invisible(*c)).collect();
    skeleton(&visible).collect::<String>().to_lowercase()
}

/// Name checks against the tool names of other servers.
pub(crate) fn check_name(name: &str, others: &[&str], sink: &mut Sink) {
    if name.is_empty() {
        return;
    }
    let visible: String = name.chars().filter(|c| !is_invisible(*c)).collect();
    if !visible.is_ascii() {
        let nfkc: String = visible.nfkc().collect();
        let odd: Vec<String> = visible
            .chars()
            .filter(|c| !c.is_ascii())
            .take(3)
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        if nfkc != visible {
            sink.add(
                rules::CONFUSABLE_NAME,
                Severity::High,
                "name",
                &format!("{name} uses compatibility characters ({})", odd.join(", ")),
            );
        } else if !visible.as_str().is_single_script() {
            sink.add(
                rules::CONFUSABLE_NAME,
                Severity::High,
                "name",
                &format!("{name} mixes scripts ({})", odd.join(", ")),
            );
        }
    }
    let mine = skel(name);
    for other in others {
        if *other != name && other.to_lowercase() != name.to_lowercase() && skel(other) == mine {
            sink.add(
                rules::LOOKALIKE_NAME,
                Severity::High,
                "name",
                &format!("{name} looks like {other}"),
            );
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let others = [
            "read_file",
            "send_email",
            "create_comment",
            "get_file",
            "搜索",
        ];
        let cases: &[(&str, Option<&str>)] = &[
            ("re\u{430}d_file", Some(rules::LOOKALIKE_NAME)),
            ("send_ema\u{456}l", Some(rules::LOOKALIKE_NAME)),
            ("read_fi1e", Some(rules::LOOKALIKE_NAME)),
            ("create_cornment", Some(rules::LOOKALIKE_NAME)),
            ("get_fiIe", Some(rules::LOOKALIKE_NAME)),
            ("read\u{200b}_file", Some(rules::LOOKALIKE_NAME)),
            (
                "\u{ff52}\u{ff45}\u{ff41}\u{ff44}_file",
                Some(rules::CONFUSABLE_NAME),
            ),
            ("query_d\u{430}tabase", Some(rules::CONFUSABLE_NAME)),
            // benign
            ("read_file", None),
            ("read_files", None),
            ("搜索", None),
            ("créer_événement", None),
            ("search", None),
        ];
        for (name, want) in cases {
            let mut sink = Sink::default();
            check_name(name, &others, &mut sink);
            let got: Vec<String> = sink.findings.iter().map(|f| f.rule.clone()).collect();
            match want {
                Some(r) => assert!(
                    got.iter().any(|g| g == r),
                    "{name:?}: want {r}, got {got:?}"
                ),
                None => assert!(got.is_empty(), "{name:?}: want nothing, got {got:?}"),
            }
        }
    }
}
