//! Host dialects (Codex, Zed, Goose, Windsurf): their server entries rewritten to the common keys.

use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Whose keys a server table uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// mcpServers / servers / mcp.servers / mcp_registry.servers (Claude, Cursor, VS Code,
    /// Windsurf's `serverUrl` included) and the native file.
    Common,
    /// Codex `config.toml`: `[mcp_servers.NAME]`.
    Codex,
    /// Zed `settings.json`: `context_servers`, current and older (`command.path`) shapes.
    Zed,
    /// Goose `config.yaml`: `extensions` with `cmd`, `envs`, `uri`, `type`.
    Goose,
}

/// An entry in the common keys, with the key in the file each rewritten field came from
/// (so problems name what the user wrote) or why the host's entry cannot run here.
pub(crate) struct Rewritten {
    pub map: Map<String, Value>,
    pub written_as: BTreeMap<String, String>,
    pub skip: Option<String>,
}

impl Rewritten {
    fn new(map: &Map<String, Value>) -> Self {
        Self {
            map: map.clone(),
            written_as: BTreeMap::new(),
            skip: None,
        }
    }

    /// Moves `from` to `to` (unless `to` is already set), remembering where it came from.
    fn rename(&mut self, from: &str, to: &str) {
        if self.map.contains_key(to) {
            return;
        }
        if let Some(v) = self.map.remove(from) {
            self.map.insert(to.into(), v);
            self.written_as.insert(to.into(), from.into());
        }
    }

    /// Sets `to` from `from`'s value through `f`; a value `f` refuses stays under `from`
    /// (and is then reported as an unknown key with its own name).
    fn derive(&mut self, from: &str, to: &str, f: impl FnOnce(&Value) -> Option<Value>) {
        let Some(v) = self.map.get(from).and_then(f) else {
            return;
        };
        self.map.remove(from);
        merge(&mut self.map, to, v);
        self.written_as
            .entry(to.into())
            .or_insert_with(|| from.into());
    }

    fn drop_keys(&mut self, keys: &[&str]) {
        for k in keys {
            self.map.remove(*k);
        }
    }
}

/// Inserts `v` at `to`; two objects merge, keys already there winning.
fn merge(map: &mut Map<String, Value>, to: &str, v: Value) {
    match (map.get_mut(to), v) {
        (Some(Value::Object(have)), Value::Object(add)) => {
            for (k, v) in add {
                have.entry(k).or_insert(v);
            }
        }
        (Some(_), _) => {}
        (None, v) => {
            map.insert(to.into(), v);
        }
    }
}

/// `{NAME: "${NAME}"}` for a list of variable names (values come from the environment).
fn forwarded(v: &Value) -> Option<Value> {
    let names = v.as_array()?;
    let mut out = Map::new();
    for name in names {
        let name = name.as_str()?;
        out.insert(name.into(), Value::String(format!("${{{name}}}")));
    }
    Some(Value::Object(out))
}

/// Seconds (whole or fractional) as whole milliseconds.
fn seconds_as_ms(v: &Value) -> Option<Value> {
    let secs = v.as_f64().filter(|s| *s > 0.0)?;
    Some(json!((secs * 1000.0).round() as u64))
}

pub(crate) fn rewrite(dialect: Dialect, map: &Map<String, Value>) -> Rewritten {
    let mut r = Rewritten::new(map);
    match dialect {
        Dialect::Common => r.rename("serverUrl", "url"),
        Dialect::Codex => codex(&mut r),
        Dialect::Zed => zed(&mut r),
        Dialect::Goose => goose(&mut r),
    }
    r
}

fn codex(r: &mut Rewritten) {
    r.rename("http_headers", "headers");
    r.derive("env_http_headers", "headers", |v| {
        let map = v.as_object()?;
        let mut out = Map::new();
        for (header, var) in map {
            out.insert(
                header.clone(),
                Value::String(format!("${{{}}}", var.as_str()?)),
            );
        }
        Some(Value::Object(out))
    });
    r.derive("bearer_token_env_var", "auth", |v| {
        Some(json!({"type": "bearer", "token": format!("${{{}}}", v.as_str()?)}))
    });
    r.derive("env_vars", "env", forwarded);
    r.derive("tool_timeout_sec", "timeout_ms", seconds_as_ms);
    r.rename("enabled_tools", "tools");
    // Codex's own start-up bound and its "fail if this server fails" switch: Switchboard
    // applies its connect timeout and reports each server's status instead.
    r.drop_keys(&["startup_timeout_sec", "startup_timeout_ms", "required"]);
}

fn zed(r: &mut Rewritten) {
    if let Some(Value::Object(command)) = r.map.get("command").cloned() {
        // The older shape: "command": {"path", "args", "env"}.
        r.map.remove("command");
        for (from, to) in [("path", "command"), ("args", "args"), ("env", "env")] {
            if let Some(v) = command.get(from) {
                r.map.insert(to.into(), v.clone());
                r.written_as.insert(to.into(), format!("command.{from}"));
            }
        }
    }
    let from_extension = r.map.get("source").and_then(Value::as_str) == Some("extension");
    if from_extension && !r.map.contains_key("command") && !r.map.contains_key("url") {
        r.skip = Some(
            "is provided by a Zed extension, which only Zed can start; declare its command or url here to use it through Switchboard".into(),
        );
    }
    r.drop_keys(&["source", "settings"]);
}

fn goose(r: &mut Rewritten) {
    let kind = r.map.get("type").and_then(Value::as_str).map(String::from);
    match kind.as_deref() {
        Some("builtin" | "platform" | "frontend" | "inline_python") => {
            r.skip = Some(format!(
                "is a Goose {} extension, which runs inside Goose; only stdio, sse and streamable_http extensions are MCP servers",
                kind.as_deref().unwrap_or_default()
            ));
        }
        Some("streamable_http") => {
            r.map.insert("type".into(), json!("http"));
        }
        _ => {}
    }
    r.rename("cmd", "command");
    r.rename("envs", "env");
    r.derive("env_keys", "env", forwarded);
    r.rename("uri", "url");
    r.derive("timeout", "timeout_ms", seconds_as_ms);
    r.derive("available_tools", "tools", |v| {
        v.as_array().filter(|l| !l.is_empty()).map(|_| v.clone())
    });
    r.drop_keys(&["bundled", "display_name", "name", "description"]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn codex_keys_become_common_keys_and_remember_their_names() {
        let r = rewrite(
            Dialect::Codex,
            &map(
                json!({"url": "https://x.test/mcp", "bearer_token_env_var": "TOK",
                "http_headers": {"A": "1"}, "env_http_headers": {"B": "VAR_B"},
                "tool_timeout_sec": 2.5, "startup_timeout_sec": 20}),
            ),
        );
        assert_eq!(r.map["auth"], json!({"type": "bearer", "token": "${TOK}"}));
        assert_eq!(r.map["headers"], json!({"A": "1", "B": "${VAR_B}"}));
        assert_eq!(r.map["timeout_ms"], json!(2500));
        assert!(!r.map.contains_key("startup_timeout_sec"));
        assert_eq!(r.written_as["auth"], "bearer_token_env_var");
    }

    #[test]
    fn zed_older_command_object_and_extension_servers() {
        let r = rewrite(
            Dialect::Zed,
            &map(json!({"command": {"path": "npx", "args": ["-y", "x"]}, "settings": {}})),
        );
        assert_eq!(r.map["command"], json!("npx"));
        assert_eq!(r.written_as["command"], "command.path");
        assert!(r.skip.is_none() && !r.map.contains_key("settings"));
        let ext = rewrite(
            Dialect::Zed,
            &map(json!({"source": "extension", "settings": {}})),
        );
        assert!(ext.skip.is_some());
    }

    #[test]
    fn goose_extensions_and_builtins() {
        let r = rewrite(
            Dialect::Goose,
            &map(json!({"type": "stdio", "cmd": "npx", "envs": {"A": "1"},
                "env_keys": ["GH"], "timeout": 300, "bundled": null, "name": "github"})),
        );
        assert_eq!(r.map["command"], json!("npx"));
        assert_eq!(r.map["env"], json!({"A": "1", "GH": "${GH}"}));
        assert_eq!(r.map["timeout_ms"], json!(300_000));
        let builtin = rewrite(Dialect::Goose, &map(json!({"type": "builtin"})));
        assert!(builtin.skip.unwrap().contains("builtin"));
    }
}
