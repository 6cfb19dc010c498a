//! Rug-pull pinning: the canonical JSON of each approved tool definition is pinned by
//! SHA-256 in the store (shared by every replica); a later definition that differs, or a
//! new name appearing as a pinned one vanishes, waits for an operator's approval.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use switchboard_store::PinRow;
use switchboard_sync::RwLock;

/// Who approved a pin taken on first use.
pub const TOFU: &str = "tofu";

/// The fields a definition is pinned on.
const PINNED_FIELDS: [&str; 7] = [
    "name",
    "title",
    "description",
    "annotations",
    "inputSchema",
    "outputSchema",
    // An MCP Apps tool's UI as discovery read it (the gateway adds it; docs/protocol.md).
    "uiResource",
];

/// A definition's canonical JSON (pinned fields only, keys sorted at every depth) and its
/// SHA-256 in hex.
pub fn canonical(tool: &Value) -> (String, String) {
    let mut picked = Map::new();
    for field in PINNED_FIELDS {
        if let Some(v) = tool.get(field).filter(|v| !v.is_null()) {
            picked.insert(field.to_string(), sorted(v));
        }
    }
    let text = Value::Object(picked).to_string();
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    (text, hash)
}

fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The definition with its name taken out (a renamed tool keeps this).
pub fn without_name(canonical: &str) -> String {
    let mut v: Value = serde_json::from_str(canonical).unwrap_or_default();
    if let Some(map) = v.as_object_mut() {
        map.remove("name");
        map.remove("title");
    }
    v.to_string()
}

/// (owner, server, launch, tool).
type Key = (String, String, String, String);

fn key_of(row: &PinRow) -> Key {
    (
        row.owner.clone(),
        row.server.clone(),
        row.launch.clone(),
        row.tool.clone(),
    )
}

/// Every pin, in memory, as the store holds them.
#[derive(Debug, Default)]
pub struct PinBook {
    pins: RwLock<HashMap<Key, PinRow>>,
}

impl PinBook {
    /// Takes the store's pins where they differ from ours (approvals made elsewhere); pins
    /// only this process holds stay. `true` if anything changed.
    pub fn replace_if_changed(&self, rows: Vec<PinRow>) -> bool {
        let mut pins = self.pins.write();
        let mut changed = false;
        for row in rows {
            let key = key_of(&row);
            let same = pins
                .get(&key)
                .is_some_and(|p| p.hash == row.hash && p.note == row.note);
            if !same {
                pins.insert(key, row);
                changed = true;
            }
        }
        changed
    }

    /// The pin of `tool` under `launch`, else one from before launches were kept.
    pub fn get(&self, owner: &str, server: &str, launch: &str, tool: &str) -> Option<PinRow> {
        let pins = self.pins.read();
        let key = |launch: &str| {
            (
                owner.to_string(),
                server.to_string(),
                launch.to_string(),
                tool.to_string(),
            )
        };
        (pins.get(&key(launch)).or_else(|| pins.get(&key("")))).cloned()
    }

    /// The newest pin of `tool` under another launch of `server` (its operator changed how
    /// it starts or where it is).
    pub fn under_other_launch(
        &self,
        owner: &str,
        server: &str,
        launch: &str,
        tool: &str,
    ) -> Option<PinRow> {
        (self.pins.read().values())
            .filter(|r| r.owner == owner && r.server == server && r.tool == tool)
            .filter(|r| !r.launch.is_empty() && r.launch != launch)
            .max_by_key(|r| r.at)
            .cloned()
    }

    pub fn put(&self, row: PinRow) {
        self.pins.write().insert(key_of(&row), row);
    }

    /// Pins of `server` under `launch` (or from before launches) whose tool is not among
    /// `present`.
    pub fn vanished(
        &self,
        owner: &str,
        server: &str,
        launch: &str,
        present: &[&str],
    ) -> Vec<PinRow> {
        (self.pins.read().values())
            .filter(|r| r.owner == owner && r.server == server)
            .filter(|r| r.launch == launch || r.launch.is_empty())
            .filter(|r| !present.contains(&r.tool.as_str()))
            .cloned()
            .collect()
    }

    pub fn len(&self) -> usize {
        self.pins.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether `new` reads like `old` renamed: the same definition under another name, or a
/// name within two edits (or equal once look-alike characters are folded).
pub fn looks_renamed(
    old_name: &str,
    old_canonical: &str,
    new_name: &str,
    new_canonical: &str,
) -> bool {
    if without_name(old_canonical) == without_name(new_canonical) {
        return true;
    }
    let (a, b) = (fold(old_name), fold(new_name));
    a == b || edits(&a, &b) <= 2
}

/// Lower-case, separators dropped, common look-alikes folded to ASCII.
fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .map(|c| match c {
            'а' => 'a',
            'е' => 'e',
            'о' => 'o',
            'р' => 'p',
            'с' => 'c',
            'х' => 'x',
            'у' => 'y',
            'і' => 'i',
            'ј' => 'j',
            'ѕ' => 's',
            '0' => 'o',
            '1' => 'l',
            'ı' => 'i',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Levenshtein distance (names are short).
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_form_ignores_key_order_and_unpinned_fields() {
        let a = json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"b": {}, "a": {}}}, "_meta": {"x": 1}});
        let b = json!({"inputSchema": {"properties": {"a": {}, "b": {}}, "type": "object"}, "description": "d", "name": "t"});
        assert_eq!(canonical(&a), canonical(&b));
        let c = json!({"name": "t", "description": "d.", "inputSchema": {"type": "object"}});
        assert_ne!(canonical(&a).1, canonical(&c).1);
        let annotated = json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"b": {}, "a": {}}}, "annotations": {"destructiveHint": false}});
        assert_ne!(
            canonical(&a).1,
            canonical(&annotated).1,
            "annotations are pinned"
        );
    }

    #[test]
    fn renames_and_look_alikes_are_recognised() {
        let def = |name: &str, d: &str| canonical(&json!({"name": name, "description": d})).0;
        assert!(looks_renamed(
            "send_email",
            &def("send_email", "Sends"),
            "send_mail",
            &def("send_mail", "Other")
        ));
        assert!(looks_renamed(
            "read_file",
            &def("read_file", "x"),
            "rеad_file",
            &def("rеad_file", "y")
        ));
        assert!(looks_renamed(
            "a",
            &def("a", "same"),
            "totally_new",
            &def("totally_new", "same")
        ));
        assert!(!looks_renamed(
            "read_file",
            &def("read_file", "x"),
            "list_dirs",
            &def("list_dirs", "y")
        ));
    }
}
