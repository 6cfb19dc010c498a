//! One server entry, in any of the accepted shapes, turned into a resolved `ServerSpec`.

use crate::Problem;
use crate::hosts::Rewritten;
use crate::locate::line_of;
use crate::placeholders::resolve;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;
use switchboard_core::{ServerSlug, ServerSpec, StdioSpec, Transport};

mod end_user;
mod oauth;
mod sandbox;
mod transport;

use transport::transport;

pub(crate) struct Context<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub workspace_root: &'a Path,
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// Keys leading to the server table (e.g. a Claude Code project's path), for lines.
    pub scope: &'a [String],
}

impl Context<'_> {
    /// The line of `segments` under this context's scope.
    pub(crate) fn line(&self, segments: &[&str]) -> Option<usize> {
        let mut path: Vec<&str> = self.scope.iter().map(String::as_str).collect();
        path.extend_from_slice(segments);
        line_of(self.text, &path)
    }
}

/// File-wide settings that apply to each entry (workspace.yaml's tool allowlist).
#[derive(Default)]
pub(crate) struct Defaults {
    pub allowlist: Option<BTreeSet<String>>,
}

const KNOWN_KEYS: &[&str] = &[
    "name",
    "type",
    "transport",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "auth",
    "timeout_ms",
    "timeoutMs",
    "idle_timeout",
    "idleTimeout",
    "lazy",
    "per_session",
    "perSession",
    "enabled",
    "disabled",
    "tools",
    "protocol_version",
    "protocolVersion",
    "description",
    "max_concurrent_calls",
    "process_limits",
    "disabled_tools",
    "disabledTools",
    "credentials",
    "trust_asserted_end_users",
    "trustAssertedEndUsers",
    "end_user_env",
    "endUserEnv",
    "sandbox",
];

struct Entry<'a> {
    ctx: &'a Context<'a>,
    key: &'a str,
    path: &'a str,
    map: &'a serde_json::Map<String, Value>,
    /// The key in the file a field was rewritten from (a host dialect's name for it).
    written_as: &'a BTreeMap<String, String>,
    problems: Vec<Problem>,
    secrets: Vec<String>,
    /// `credentials = "per_end_user"`: `auth` then names where each user's secret goes, and
    /// a key or token in it is only the discovery credential.
    per_end_user: bool,
}

impl Entry<'_> {
    fn problem(&mut self, field: &str, message: impl Into<String>, fix: impl Into<String>) {
        let (first, rest) = field
            .split_once('.')
            .map_or((field, None), |(f, r)| (f, Some(r)));
        let written = self.written_as.get(first).map_or(first, String::as_str);
        let field = match rest {
            Some(rest) => format!("{written}.{rest}"),
            None => written.to_string(),
        };
        let mut segments = vec![self.key];
        segments.extend(field.split('.'));
        self.problems.push(Problem::error(
            self.ctx.file,
            self.ctx.line(&segments),
            &format!("{}.{field}", self.path),
            message,
            fix,
        ));
    }

    fn str_field(&mut self, field: &str) -> Option<String> {
        match self.map.get(field)? {
            Value::String(s) => self.resolve(field, s),
            _ => {
                self.problem(field, "must be a string", "quote the value");
                None
            }
        }
    }

    fn resolve(&mut self, field: &str, raw: &str) -> Option<String> {
        match resolve(
            raw,
            self.ctx.workspace_root,
            self.ctx.env,
            &mut self.secrets,
        ) {
            Ok(v) => Some(v),
            Err(e) => {
                self.problem(field, e.message(), e.fix());
                None
            }
        }
    }

    fn string_list(&mut self, field: &str) -> Option<Vec<String>> {
        let list = match self.map.get(field)? {
            Value::Array(list) => list,
            _ => {
                self.problem(field, "must be a list of strings", "write [\"a\", \"b\"]");
                return None;
            }
        };
        let mut out = Vec::new();
        for item in list {
            match item {
                Value::String(s) => out.push(self.resolve(field, s)?),
                Value::Number(n) => out.push(n.to_string()),
                _ => {
                    self.problem(field, "must be a list of strings", "quote every item");
                    return None;
                }
            }
        }
        Some(out)
    }

    fn string_map(&mut self, field: &str) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let Some(value) = self.map.get(field) else {
            return out;
        };
        let Some(map) = value.as_object() else {
            self.problem(
                field,
                "must be a map of names to strings",
                "write {\"NAME\": \"value\"}",
            );
            return out;
        };
        for (k, v) in map {
            let raw = match v {
                Value::String(s) => s.clone(),
                Value::Number(_) | Value::Bool(_) => v.to_string(),
                _ => {
                    self.problem(field, format!("{k} must be a string"), "quote the value");
                    continue;
                }
            };
            if let Some(resolved) = self.resolve(&format!("{field}.{k}"), &raw) {
                out.insert(k.clone(), resolved);
            }
        }
        out
    }

    fn millis(&mut self, fields: &[&str]) -> Option<Duration> {
        let field = fields.iter().find(|f| self.map.contains_key(**f))?;
        match self.map.get(*field).and_then(Value::as_u64) {
            Some(ms) if ms > 0 => Some(Duration::from_millis(ms)),
            _ => {
                self.problem(
                    field,
                    "must be a positive number of milliseconds",
                    "write 30000 for 30 s",
                );
                None
            }
        }
    }

    fn seconds(&mut self, fields: &[&str]) -> Option<Duration> {
        let field = fields.iter().find(|f| self.map.contains_key(**f))?;
        match self.map.get(*field).and_then(Value::as_u64) {
            Some(s) => Some(Duration::from_secs(s)),
            None => {
                self.problem(
                    field,
                    "must be a whole number of seconds (0 = never)",
                    "write 300",
                );
                None
            }
        }
    }

    fn positive(&mut self, field: &str) -> Option<usize> {
        let value = self.map.get(field)?;
        match value.as_u64() {
            Some(n) if n > 0 => Some(n as usize),
            _ => {
                self.problem(field, "must be a positive whole number", "write e.g. 8");
                None
            }
        }
    }

    fn bool_field(&mut self, field: &str) -> Option<bool> {
        match self.map.get(field)? {
            Value::Bool(b) => Some(*b),
            _ => {
                self.problem(
                    field,
                    "must be true or false",
                    "write true or false without quotes",
                );
                None
            }
        }
    }
}

/// Builds the spec for entry `key` at `path` (already in the common keys); returns warnings
/// alongside, or every error.
pub(crate) fn server(
    slug: &ServerSlug,
    key: &str,
    path: &str,
    entry: &Rewritten,
    ctx: &Context<'_>,
    defaults: &Defaults,
) -> Result<(ServerSpec, Vec<Problem>), Vec<Problem>> {
    let map = &entry.map;
    let mut e = Entry {
        ctx,
        key,
        path,
        map,
        written_as: &entry.written_as,
        problems: Vec::new(),
        secrets: Vec::new(),
        per_end_user: false,
    };
    e.per_end_user = end_user::per_end_user(&mut e);
    let kind = e.str_field("type").or_else(|| e.str_field("transport"));
    let transport = transport(&mut e, kind.as_deref());
    let mut spec = ServerSpec::new(
        slug.clone(),
        transport.unwrap_or(Transport::Stdio(StdioSpec {
            command: String::new(),
            args: vec![],
            env: BTreeMap::new(),
            cwd: None,
            limits: Default::default(),
        })),
    );
    spec.origin = format!("{}:{}", ctx.file, path);
    spec.timeout = e.millis(&["timeout_ms", "timeoutMs"]);
    spec.idle_timeout = e.seconds(&["idle_timeout", "idleTimeout"]);
    spec.lazy = e.bool_field("lazy");
    let per_session = e
        .bool_field("per_session")
        .or_else(|| e.bool_field("perSession"))
        .unwrap_or(false);
    if per_session && !matches!(spec.transport, Transport::Stdio(_)) {
        let field = if e.map.contains_key("per_session") {
            "per_session"
        } else {
            "perSession"
        };
        e.problem(
            field,
            "applies to stdio servers only (an HTTP server keeps its own sessions)",
            "remove per_session from this server",
        );
    }
    spec.per_session = per_session;
    if let Some(choice) = sandbox::sandbox(&mut e) {
        if !matches!(spec.transport, Transport::Stdio(_)) {
            e.problem(
                "sandbox",
                "applies to stdio servers only (an HTTP server runs elsewhere)",
                "remove sandbox from this server",
            );
        }
        spec.sandbox = choice;
    }
    spec.enabled =
        e.bool_field("enabled").unwrap_or(true) && !e.bool_field("disabled").unwrap_or(false);
    spec.protocol_version = e
        .str_field("protocol_version")
        .or_else(|| e.str_field("protocolVersion"));
    spec.tools = e.string_list("tools");
    spec.disabled_tools = e
        .string_list("disabled_tools")
        .or_else(|| e.string_list("disabledTools"))
        .unwrap_or_default();
    spec.max_concurrent_calls = e.positive("max_concurrent_calls");
    spec.end_user_credentials = end_user::credentials(&mut e, &spec.transport);
    if let Some(limits) = process_limits(&mut e)
        && let Transport::Stdio(stdio) = &mut spec.transport
    {
        stdio.limits = limits;
    }
    if let Some(allow) = &defaults.allowlist {
        let prefix = format!("{key}.");
        let listed: Vec<String> = allow
            .iter()
            .filter_map(|id| id.strip_prefix(&prefix).map(String::from))
            .collect();
        // A server named by no id exposes everything (as holaOS reads the allowlist).
        if !listed.is_empty() {
            spec.tools = Some(match spec.tools.take() {
                Some(own) => own.into_iter().filter(|t| listed.contains(t)).collect(),
                None => listed,
            });
        }
    }
    let mut warnings = Vec::new();
    for unknown in map.keys().filter(|k| !KNOWN_KEYS.contains(&k.as_str())) {
        let (message, fix) = match crate::suggest::closest(unknown, KNOWN_KEYS) {
            Some(known) => (
                format!("unknown key, ignored: did you mean {known:?}?"),
                format!("rename {unknown:?} to {known:?}"),
            ),
            None => (
                "unknown key, ignored".to_string(),
                "check the spelling against the server keys in docs/configuration.md".to_string(),
            ),
        };
        warnings.push(Problem::warning(
            ctx.file,
            ctx.line(&[key, unknown]),
            &format!("{path}.{unknown}"),
            message,
            fix,
        ));
    }
    // Header values, tokens and env values are credentials whether or not they came from a
    // placeholder: remember them all for redaction.
    match &spec.transport {
        Transport::Http(http) => {
            e.secrets.extend(http.headers.values().cloned());
            e.secrets.extend(http.bearer_token.clone());
            e.secrets.extend(
                http.oauth
                    .iter()
                    .flat_map(switchboard_core::OAuthSpec::secrets),
            );
        }
        Transport::Stdio(stdio) => e.secrets.extend(stdio.env.values().cloned()),
    }
    e.secrets.sort();
    e.secrets.dedup();
    spec.secrets = std::mem::take(&mut e.secrets);
    if e.problems.is_empty() {
        Ok((spec, warnings))
    } else {
        e.problems.extend(warnings);
        Err(e.problems)
    }
}

fn process_limits(e: &mut Entry<'_>) -> Option<switchboard_core::ProcessLimits> {
    let value = e.map.get("process_limits")?;
    let Some(map) = value.as_object() else {
        e.problem(
            "process_limits",
            "must be a table",
            "write process_limits = { address_space_mb = 2048, cpu_seconds = 3600, open_files = 256 }",
        );
        return None;
    };
    let mut limits = switchboard_core::ProcessLimits::default();
    for (key, v) in map {
        let Some(n) = v.as_u64().filter(|n| *n > 0) else {
            e.problem(
                &format!("process_limits.{key}"),
                "must be a positive whole number",
                "write e.g. 256",
            );
            continue;
        };
        match key.as_str() {
            "address_space_mb" => limits.address_space_bytes = Some(n.saturating_mul(1024 * 1024)),
            "cpu_seconds" => limits.cpu_seconds = Some(n),
            "open_files" => limits.open_files = Some(n),
            _ => e.problem(
                &format!("process_limits.{key}"),
                "unknown process limit",
                "use address_space_mb, cpu_seconds or open_files",
            ),
        }
    }
    Some(limits)
}
