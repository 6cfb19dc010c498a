//! The `sandbox` key of a server entry: `false`, `true`, or `{read = […], write = […], net = […]}`.

use super::Entry;
use serde_json::Value;
use std::path::PathBuf;
use switchboard_core::{SandboxChoice, SandboxGrants};

const FIX: &str = "write sandbox = false, or sandbox = { read = [\"/path\"], write = [\"/path\"], net = [\"host:443\"] }";

/// The entry's choice, `None` when it has no `sandbox` key (the default: confined).
pub(super) fn sandbox(e: &mut Entry<'_>) -> Option<SandboxChoice> {
    let value = e.map.get("sandbox")?.clone();
    match value {
        Value::Bool(false) => Some(SandboxChoice::Off),
        Value::Bool(true) => Some(SandboxChoice::default()),
        Value::Object(map) => {
            let mut grants = SandboxGrants::default();
            for (key, value) in &map {
                let field = format!("sandbox.{key}");
                let Some(list) = strings(e, &field, value) else {
                    continue;
                };
                match key.as_str() {
                    "read" => grants.read = paths(e, list),
                    "write" => grants.write = paths(e, list),
                    "net" => grants.net = hosts(e, &field, list),
                    _ => e.problem(&field, "unknown sandbox key", "use read, write or net"),
                }
            }
            Some(SandboxChoice::On(grants))
        }
        _ => {
            e.problem("sandbox", "must be true, false or a table", FIX);
            None
        }
    }
}

fn strings(e: &mut Entry<'_>, field: &str, value: &Value) -> Option<Vec<String>> {
    let list = value.as_array().filter(|l| l.iter().all(Value::is_string));
    let Some(list) = list else {
        e.problem(field, "must be a list of strings", FIX);
        return None;
    };
    let mut out = Vec::new();
    for item in list.iter().filter_map(Value::as_str) {
        if let Some(resolved) = e.resolve(field, item) {
            out.push(resolved);
        }
    }
    Some(out)
}

/// Paths as written, relative ones from the config file's folder.
fn paths(e: &Entry<'_>, list: Vec<String>) -> Vec<PathBuf> {
    list.into_iter()
        .map(|p| {
            let p = PathBuf::from(p);
            match p.is_relative() {
                true => e.ctx.workspace_root.join(p),
                false => p,
            }
        })
        .collect()
}

/// Hosts as written, each checked: a mistake is a problem naming the entry and its fix.
fn hosts(e: &mut Entry<'_>, field: &str, list: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    for host in list {
        match switchboard_core::NetGrant::parse(&host) {
            Ok(_) => out.push(host),
            Err(why) => e.problem(field, &why, FIX),
        }
    }
    out
}
