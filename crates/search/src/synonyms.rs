//! Words that mean the same thing to someone asking for a tool: a query word also looks for
//! the other words of its group, at a lower weight than the word itself.

use crate::text::term;
use std::collections::HashMap;
use std::sync::LazyLock;

/// Groups of interchangeable words, as a user and a tool author might each write them.
const GROUPS: &[&[&str]] = &[
    &[
        "get", "fetch", "retrieve", "read", "show", "view", "display", "lookup", "see", "detail",
        "info", "inspect",
    ],
    &["list", "enumerate", "browse", "index"],
    &[
        "create", "add", "new", "make", "spin", "insert", "register", "raise", "submit", "start",
        "open",
    ],
    &[
        "delete", "remove", "erase", "destroy", "drop", "purge", "trash", "discard", "rid", "wipe",
    ],
    &[
        "update", "edit", "modify", "change", "set", "patch", "alter", "adjust", "tweak",
    ],
    &[
        "search", "find", "query", "locate", "seek", "filter", "look",
    ],
    &[
        "send", "post", "message", "notify", "ping", "dm", "tell", "write",
    ],
    &["issue", "ticket", "bug", "task", "story", "card"],
    &[
        "user",
        "member",
        "person",
        "people",
        "account",
        "employee",
        "teammate",
        "colleague",
    ],
    &["channel", "room", "conversation", "thread"],
    &["file", "document", "doc", "attachment"],
    &["folder", "directory", "dir"],
    &["invoice", "bill"],
    &["refund", "reimburse", "reimbursement"],
    &["payment", "charge", "pay"],
    &["customer", "client", "buyer", "shopper"],
    &["comment", "reply", "respond", "remark"],
    &["repository", "repo", "codebase"],
    &["meeting", "event", "appointment", "invite"],
    &["download", "export", "save"],
    &["upload", "store", "put"],
    &["close", "resolve", "finish", "complete", "done"],
    &["assign", "delegate", "hand"],
    &["alert", "alarm", "page", "paged"],
    &["error", "exception", "crash", "failure"],
    &["cancel", "stop", "abort", "terminate", "halt"],
    &["run", "execute", "invoke", "trigger", "launch"],
    &["copy", "duplicate", "clone"],
    &["move", "relocate", "transfer"],
    &["share", "permission", "access", "grant"],
    &["log", "trace"],
    &["metric", "stat", "statistic", "measurement", "graph"],
    &["archive", "shelve"],
    &["restore", "recover", "undelete", "revert"],
    &["label", "tag"],
    &["subscribe", "follow", "watch"],
    &["order", "purchase"],
    &["product", "item", "sku", "merchandise"],
    &["contact", "lead", "prospect"],
    &["deal", "opportunity"],
    &["row", "record", "entry"],
    &["schedule", "calendar", "agenda"],
    &["email", "mail", "inbox"],
    &["current", "now", "latest", "today"],
];

/// Each term's companions (stemmed), the term itself not among them.
static COMPANIONS: LazyLock<HashMap<String, Vec<String>>> = LazyLock::new(|| {
    let mut map: HashMap<String, Vec<String>> = HashMap::new();
    for group in GROUPS {
        let terms: Vec<String> = group.iter().filter_map(|w| term(w)).collect();
        for t in &terms {
            let entry = map.entry(t.clone()).or_default();
            for other in &terms {
                if other != t && !entry.contains(other) {
                    entry.push(other.clone());
                }
            }
        }
    }
    map
});

/// The terms that stand in for `term` (already stemmed).
pub fn companions(term: &str) -> &'static [String] {
    COMPANIONS.get(term).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_word_finds_the_others_stemmed() {
        let found = companions(&term("deleting").unwrap());
        assert!(found.contains(&"remov".to_string()), "{found:?}");
        assert!(!found.contains(&"delet".to_string()));
        assert!(companions("zebra").is_empty());
    }
}
