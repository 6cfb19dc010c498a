//! Detects which of the accepted file shapes a document is and pulls its server entries out.

use crate::entry::{self, Context, Defaults};
use crate::hosts::{self, Dialect};
use crate::locate::line_of;
use crate::{GatewaySettings, ParsedFile, Problem};

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use switchboard_core::ServerSlug;

/// Parses JSON (as its host reads it: crate::json_dialect), YAML or TOML into one JSON value,
/// with a warning where the file is read more leniently than its host would.
pub(crate) fn parse_document(path: &Path, text: &str) -> Result<(Value, Option<Problem>), Problem> {
    let file = path.display().to_string();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let json = || crate::json_dialect::parse(path, text);
    match ext.as_str() {
        "toml" => parse_toml(&file, text).map(|v| (v, None)),
        "yaml" | "yml" => parse_yaml(&file, text).map(|v| (v, None)),
        "json" | "jsonc" => json(),
        _ => json().or_else(|json_err| {
            parse_yaml(&file, text)
                .map(|v| (v, None))
                .map_err(|_| json_err)
        }),
    }
}

fn parse_yaml(file: &str, text: &str) -> Result<Value, Problem> {
    serde_yaml_ng::from_str::<Value>(text).map_err(|e| {
        Problem::error(
            file,
            e.location().map(|l| l.line()),
            "",
            format!("invalid YAML: {e}"),
            "fix the YAML syntax",
        )
    })
}

pub(crate) fn parse_toml(file: &str, text: &str) -> Result<Value, Problem> {
    let value: toml::Value = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start].matches('\n').count() + 1);
        Problem::error(
            file,
            line,
            "",
            format!("invalid TOML: {}", e.message()),
            "fix the TOML syntax",
        )
    })?;
    serde_json::to_value(value)
        .map_err(|e| Problem::error(file, None, "", format!("unsupported TOML value: {e}"), ""))
}

/// One table of server entries in a file: where it is and whose keys its entries use.
struct Table<'a> {
    /// Document path of the table, for messages (`mcpServers`, `projects./p.mcpServers`).
    prefix: String,
    dialect: Dialect,
    /// Keys leading to the table, for lines.
    scope: Vec<String>,
    /// `${workspaceRoot}` of its entries when not the file's folder (a Claude Code project).
    workspace_root: Option<std::path::PathBuf>,
    entries: Vec<(String, &'a Value)>,
    defaults: Defaults,
    /// A server of the same name already read is skipped with a warning, not an error (the
    /// same server declared in several Claude Code projects).
    repeats_allowed: bool,
}

impl<'a> Table<'a> {
    fn new(prefix: &str, dialect: Dialect, entries: Vec<(String, &'a Value)>) -> Self {
        Self {
            prefix: prefix.to_string(),
            dialect,
            scope: vec![prefix.rsplit('.').next().unwrap_or(prefix).to_string()],
            workspace_root: None,
            entries,
            defaults: Defaults::default(),
            repeats_allowed: false,
        }
    }
}

/// Every server table `root` holds, in file order of precedence; `None` when it holds none.
fn tables<'a>(
    root: &'a Map<String, Value>,
    ctx: &Context<'_>,
    problems: &mut Vec<Problem>,
) -> Option<Vec<Table<'a>>> {
    let object = |key: &str| root.get(key).and_then(Value::as_object);
    let mut out = Vec::new();
    if let Some(m) = object("mcpServers") {
        out.push(Table::new("mcpServers", Dialect::Common, map_entries(m)));
    }
    // Claude Code's ~/.claude.json: per-project servers beside the user's own.
    if let Some(projects) = object("projects") {
        for (project, settings) in projects {
            let Some(m) = settings.get("mcpServers").and_then(Value::as_object) else {
                continue;
            };
            let mut table = Table::new(
                &format!("projects.{project}.mcpServers"),
                Dialect::Common,
                map_entries(m),
            );
            table.scope = vec![project.clone(), "mcpServers".into()];
            table.workspace_root = Some(project.into());
            table.repeats_allowed = true;
            out.push(table);
        }
    }
    if let Some(m) = object("servers") {
        out.push(Table::new("servers", Dialect::Common, map_entries(m)));
    }
    if let Some(m) = object("mcp_servers") {
        out.push(Table::new("mcp_servers", Dialect::Codex, map_entries(m)));
    }
    if let Some(m) = object("context_servers") {
        out.push(Table::new("context_servers", Dialect::Zed, map_entries(m)));
    }
    if let Some(m) = object("extensions") {
        out.push(Table::new("extensions", Dialect::Goose, map_entries(m)));
    }
    if let Some(reg) = object("mcp_registry") {
        let entries = reg
            .get("servers")
            .and_then(Value::as_object)
            .map(map_entries)
            .unwrap_or_default();
        let mut table = Table::new("mcp_registry.servers", Dialect::Common, entries);
        table.defaults.allowlist = allowlist(reg, ctx, problems);
        out.push(table);
    }
    if let Some(mcp) = object("mcp") {
        let entries = match mcp.get("servers") {
            Some(Value::Object(m)) => map_entries(m),
            Some(Value::Array(list)) => list_entries(list, ctx, problems),
            _ => Vec::new(),
        };
        out.push(Table::new("mcp.servers", Dialect::Common, entries));
    }
    let settings_only = ctx.file.ends_with(".toml")
        && root
            .keys()
            .any(|k| crate::settings::SECTIONS.contains(&k.as_str()));
    // A native file holding only settings (gateway, policy…) layers with others.
    (!out.is_empty() || settings_only).then_some(out)
}

/// The keys under which a file declares its servers, each an object of name → entry.
const SERVER_KEYS: [&str; 6] = [
    "mcpServers",
    "servers",
    "mcp_servers",
    "context_servers",
    "extensions",
    "mcp_registry",
];

/// A servers key present with a value of the wrong type (a list, a string…), named with what
/// it must be.
fn wrong_type(root: &Map<String, Value>, ctx: &Context<'_>) -> Option<Problem> {
    let (key, value) = SERVER_KEYS
        .iter()
        .find_map(|k| root.get(*k).map(|v| (*k, v)))
        .filter(|(_, v)| !v.is_object())?;
    Some(Problem::error(
        ctx.file,
        line_of(ctx.text, &[key]),
        key,
        format!(
            "{key} is {}; it must be an object mapping each server's name to its entry",
            kind_of(value)
        ),
        format!("write \"{key}\": {{\"NAME\": {{\"command\": …}}}} (docs/configuration.md)"),
    ))
}

/// "a list", "a string"…: a JSON value's type as a sentence says it.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The server entries of whichever shapes `doc` has.
pub(crate) fn extract(doc: &Value, ctx: &Context<'_>) -> ParsedFile {
    let mut parsed = ParsedFile {
        declares_servers: false,
        servers: Vec::new(),
        gateway: GatewaySettings::default(),
        problems: Vec::new(),
        policy: None,
    };
    let Some(root) = doc.as_object() else {
        parsed.problems.push(Problem::error(
            ctx.file,
            Some(1),
            "",
            "the file is not an object/table of settings",
            "start from an example in docs/configuration.md",
        ));
        return parsed;
    };
    let Some(tables) = tables(root, ctx, &mut parsed.problems) else {
        if let Some(problem) = wrong_type(root, ctx) {
            parsed.problems.push(problem);
            return parsed;
        }
        parsed.problems.push(Problem::error(
                ctx.file,
                None,
                "",
                "no MCP servers found",
                "declare servers under one of: mcpServers, servers, mcp.servers, mcp_registry.servers, mcp_servers (Codex), context_servers (Zed), extensions (Goose) (docs/configuration.md)",
            ));
        return parsed;
    };
    parsed.declares_servers = !tables.is_empty();
    parsed.gateway = crate::settings::parse(root, ctx, &mut parsed.problems);
    if let Some(policy) = root.get("policy") {
        parsed.policy = Some(crate::PolicySource {
            file: ctx.file.to_string(),
            text: ctx.text.to_string(),
            value: policy.clone(),
        });
    }
    // A Codex config.toml holds Codex's own settings beside its servers.
    if ctx.file.ends_with(".toml") && !root.contains_key("mcp_servers") {
        let known = |k: &str| k == "servers" || crate::settings::SECTIONS.contains(&k);
        for key in root.keys().filter(|k| !known(k)) {
            parsed.problems.push(Problem::warning(
                ctx.file,
                line_of(ctx.text, &[key]),
                key,
                "unknown section, ignored",
                "use [gateway], [egress], [limits], [stdio], [oauth], [policy], [telemetry] or [servers.NAME]",
            ));
        }
    }
    let mut seen: BTreeMap<ServerSlug, (String, &Value)> = BTreeMap::new();
    for table in &tables {
        let tctx = Context {
            file: ctx.file,
            text: ctx.text,
            workspace_root: table
                .workspace_root
                .as_deref()
                .unwrap_or(ctx.workspace_root),
            env: ctx.env,
            scope: &table.scope,
        };
        for (key, value) in &table.entries {
            read_entry(&mut parsed, &mut seen, table, &tctx, key, value);
        }
    }
    parsed
}

fn read_entry<'a>(
    parsed: &mut ParsedFile,
    seen: &mut BTreeMap<ServerSlug, (String, &'a Value)>,
    table: &Table<'a>,
    ctx: &Context<'_>,
    key: &str,
    value: &'a Value,
) {
    let path = format!("{}.{key}", table.prefix);
    let line = ctx.line(&[key]);
    let slug = match ServerSlug::normalize(key) {
        Ok(slug) => slug,
        Err(e) => {
            parsed.problems.push(Problem::error(
                ctx.file,
                line,
                &path,
                e.to_string(),
                "rename the server to start with a letter",
            ));
            return;
        }
    };
    if let Some((first, first_value)) = seen.get(&slug) {
        if table.repeats_allowed && *first_value == value {
            return;
        }
        let message = format!("server names {first:?} and {key:?} both normalise to {slug:?}");
        parsed.problems.push(if table.repeats_allowed {
            Problem::warning(
                ctx.file,
                line,
                &path,
                format!("{message} and differ; this one is skipped"),
                "pass that project's own .mcp.json with -c, or rename one of them",
            )
        } else {
            Problem::error(ctx.file, line, &path, message, "rename one of them")
        });
        return;
    }
    seen.insert(slug.clone(), (key.to_string(), value));
    let Some(map) = value.as_object() else {
        parsed.problems.push(Problem::error(
            ctx.file,
            line,
            &path,
            "a server entry must be an object",
            "write {\"command\": ...} or {\"url\": ...}",
        ));
        return;
    };
    let rewritten = hosts::rewrite(table.dialect, map);
    if let Some(reason) = &rewritten.skip {
        parsed.problems.push(Problem::warning(
            ctx.file,
            line,
            &path,
            format!("{key} {reason}"),
            "skipped; the file's other servers are read",
        ));
        return;
    }
    match entry::server(&slug, key, &path, &rewritten, ctx, &table.defaults) {
        Ok((spec, mut warnings)) => {
            parsed.problems.append(&mut warnings);
            parsed.servers.push(spec);
        }
        Err(mut problems) => parsed.problems.append(&mut problems),
    }
}

fn map_entries(m: &Map<String, Value>) -> Vec<(String, &Value)> {
    m.iter().map(|(k, v)| (k.clone(), v)).collect()
}

fn list_entries<'a>(
    list: &'a [Value],
    ctx: &Context<'_>,
    problems: &mut Vec<Problem>,
) -> Vec<(String, &'a Value)> {
    let mut out = Vec::new();
    for (i, v) in list.iter().enumerate() {
        match v.get("name").and_then(Value::as_str) {
            Some(name) => out.push((name.to_string(), v)),
            None => problems.push(Problem::error(
                ctx.file,
                None,
                &format!("mcp.servers[{i}]"),
                "server entry has no name",
                "add `name: my_server` to the entry",
            )),
        }
    }
    out
}

fn allowlist(
    reg: &Map<String, Value>,
    ctx: &Context<'_>,
    problems: &mut Vec<Problem>,
) -> Option<BTreeSet<String>> {
    let ids = reg.get("allowlist")?.get("tool_ids")?;
    let Some(list) = ids.as_array() else {
        problems.push(Problem::error(
            ctx.file,
            line_of(ctx.text, &["allowlist", "tool_ids"]),
            "mcp_registry.allowlist.tool_ids",
            "must be a list of server.tool ids",
            "write tool_ids: [server.tool, ...]",
        ));
        return None;
    };
    Some(
        list.iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
    )
}
