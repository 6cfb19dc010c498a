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
    &["list", "enumerate", "browse", "index", "which"],
    &[
        "create", "add", "new", "make", "spin", "insert", "register", "raise", "submit", "open",
        "file", "log", "enter", "record",
    ],
    &[
        "delete", "remove", "erase", "destroy", "drop", "purge", "trash", "discard", "rid", "wipe",
        "clear",
    ],
    &[
        "update", "edit", "modify", "change", "set", "patch", "alter", "adjust", "tweak", "bump",
    ],
    &[
        "search", "find", "query", "locate", "seek", "filter", "look", "mention",
    ],
    &[
        "send", "post", "message", "notify", "ping", "dm", "tell", "write", "text", "sms",
    ],
    &[
        "issue", "ticket", "bug", "task", "story", "card", "request", "case", "item",
    ],
    &[
        "user",
        "member",
        "person",
        "people",
        "account",
        "employee",
        "teammate",
        "colleague",
        "who",
    ],
    &["channel", "room", "conversation", "thread", "chat"],
    &["file", "document", "doc", "attachment", "object"],
    &["folder", "directory", "dir"],
    &["invoice", "bill"],
    &["refund", "reimburse", "reimbursement"],
    &["payment", "charge", "pay", "paid"],
    &["customer", "client", "buyer", "shopper"],
    &[
        "comment", "reply", "respond", "remark", "feedback", "answer", "note",
    ],
    &["repository", "repo", "codebase"],
    &["meeting", "event", "appointment", "invite", "session"],
    &["download", "export", "save"],
    &["upload", "store", "put"],
    &["close", "resolve", "finish", "complete", "done", "tick"],
    &["assign", "delegate", "hand", "give", "owner"],
    &["alert", "alarm", "page", "paged", "incident", "outage"],
    &["error", "exception", "crash", "failure"],
    &[
        "cancel",
        "stop",
        "abort",
        "terminate",
        "halt",
        "void",
        "kill",
    ],
    &[
        "run", "execute", "invoke", "trigger", "launch", "start", "kick",
    ],
    &["copy", "duplicate", "clone", "fork"],
    &["move", "relocate", "transfer", "drag", "rename"],
    &[
        "share",
        "permission",
        "access",
        "grant",
        "acl",
        "collaboration",
        "collaborator",
        "restriction",
        "policy",
    ],
    &["log", "trace", "output", "console"],
    &[
        "metric",
        "stat",
        "statistic",
        "measurement",
        "graph",
        "usage",
        "insight",
    ],
    &["archive", "shelve"],
    &["restore", "recover", "undelete", "revert", "undo", "back"],
    &["label", "tag"],
    &["subscribe", "follow", "watch", "watcher", "posted"],
    &["order", "purchase"],
    &["product", "item", "sku", "merchandise"],
    &["contact", "lead", "prospect"],
    &["deal", "opportunity"],
    &["row", "record", "entry", "line"],
    &["schedule", "calendar", "agenda"],
    &["email", "mail", "inbox"],
    &["current", "now", "latest", "today"],
    &["merge", "land", "accept", "combine", "integrate"],
    &["pipeline", "ci", "build", "workflow"],
    &["variable", "setting", "secret", "env", "credential"],
    &["version", "revision", "release"],
    &[
        "history",
        "changelog",
        "activity",
        "audit",
        "happened",
        "older",
        "edits",
    ],
    &[
        "link",
        "blocking",
        "block",
        "depend",
        "dependency",
        "relate",
    ],
    &["sprint", "iteration", "cycle"],
    &["state", "status", "stage"],
    &["template", "reusable", "layout"],
    &["worklog", "work", "hours", "time"],
    &["transcript", "said"],
    &["pin", "stick", "stuck"],
    &["forward", "pass", "relay"],
    &["subscription", "plan"],
    &["price", "cost", "tier"],
    &["profit", "income", "loss", "statement"],
    &["receivable", "owe", "late", "overdue"],
    &["vendor", "supplier"],
    &["estimate", "quote"],
    &[
        "campaign",
        "marketing",
        "outreach",
        "sequence",
        "newsletter",
    ],
    &["form", "submission", "filled"],
    &["company", "organisation", "organization", "domain"],
    &["monitor", "watchdog"],
    &["downtime", "silence", "mute", "maintenance"],
    &["slo", "availability", "uptime", "objective"],
    &["dependency", "depend", "map"],
    &["pod", "container", "worker", "replica"],
    &["node", "machine", "host"],
    &["plan", "explain", "slow"],
    &["aggregate", "group", "sum"],
    &["distinct", "unique"],
    &["count", "many", "number"],
    &["append", "bottom", "end"],
    &["quota", "space", "left", "usage"],
    &["retention", "keep", "years"],
    &["versioning", "copies"],
    &["extract", "unpack", "unzip"],
    &["compress", "zip"],
    &["diff", "different", "compare"],
    &["macro", "canned"],
    &["satisfaction", "rating"],
    &["abandoned", "cart"],
    &["inventory", "stock"],
    &["vacation", "away", "office"],
    &["transcript", "recording"],
    &["branch", "ref"],
    &["sql", "query", "select"],
    &["csv", "comma", "spreadsheet"],
    &["column", "field", "attribute"],
    &["sheet", "spreadsheet", "tab"],
    &["link", "url"],
    &["dm", "direct", "private"],
    &["invite", "bring"],
    &["kubernetes", "k8s", "cluster"],
];

/// Multi-word phrases a query may use for one word, added to the query's words.
const PHRASES: &[(&str, &str)] = &[
    ("get rid of", "delete"),
    ("look up", "find"),
    ("spin up", "create"),
    ("set up", "create"),
    ("kick off", "start"),
    ("turn on", "enable"),
    ("turn off", "disable"),
    ("money back", "refund"),
    ("word for word", "transcript"),
    ("catch me up", "history"),
    ("keep me posted", "subscribe"),
    ("stop getting", "unsubscribe"),
    ("came with", "attachment"),
    ("out of office", "vacation"),
    ("on call", "oncall"),
    ("who has access", "members"),
    ("who can see", "permissions"),
    ("call off", "cancel"),
    ("back in stock", "restock"),
    ("roll back", "revert"),
    ("go back", "revert"),
    ("clear out", "empty"),
    ("every night", "schedule"),
    ("every day", "schedule"),
    ("every week", "schedule"),
];

/// `query` with the words its phrases stand for appended.
pub(crate) fn expand_phrases(query: &str) -> String {
    let lower = query.to_lowercase();
    let mut out = query.to_string();
    for (phrase, word) in PHRASES {
        if lower.contains(phrase) {
            out.push(' ');
            out.push_str(word);
        }
    }
    out
}

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
pub(crate) fn companions(term: &str) -> &'static [String] {
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
