//! Detects which of the accepted file shapes a document is and pulls its server entries out.

use crate::entry::{self, Context, Defaults};
use crate::locate::line_of;
use crate::{GatewaySettings, ParsedFile, Problem};

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use switchboard_core::ServerSlug;

/// Parses JSON (with comments and trailing commas), YAML or TOML into one JSON value.
pub fn parse_document(path: &Path, text: &str) -> Result<Value, Problem> {
    let file = path.display().to_string();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "toml" => parse_toml(&file, text),
        "yaml" | "yml" => parse_yaml(&file, text),
        "json" | "jsonc" => parse_json(&file, text),
        _ => parse_json(&file, text)
            .or_else(|json_err| parse_yaml(&file, text).map_err(|_| json_err)),
    }
}

fn parse_json(file: &str, text: &str) -> Result<Value, Problem> {
    let parsed: Option<Value> = jsonc_parser::parse_to_serde_value(text, &Default::default())
        .map_err(|e| {
            Problem::error(
                file,
                Some(e.line_display()),
                "",
                format!(
                    "invalid JSON at column {}: {}",
                    e.column_display(),
                    e.kind()
                ),
                "fix the JSON syntax (comments and trailing commas are allowed)",
            )
        })?;
    parsed.ok_or_else(|| {
        Problem::error(
            file,
            Some(1),
            "",
            "the file is empty",
            "declare servers (see the README)",
        )
    })
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

fn parse_toml(file: &str, text: &str) -> Result<Value, Problem> {
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

/// The server entries of whichever shape `doc` has, each as (config key, entry).
pub fn extract(doc: &Value, ctx: &Context<'_>) -> ParsedFile {
    let mut parsed = ParsedFile {
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
            "start from an example in the README",
        ));
        return parsed;
    };
    let mut defaults = Defaults::default();
    let (prefix, entries): (&str, Vec<(String, &Value)>) = if let Some(m) =
        root.get("mcpServers").and_then(Value::as_object)
    {
        ("mcpServers", map_entries(m))
    } else if let Some(m) = root.get("servers").and_then(Value::as_object) {
        ("servers", map_entries(m))
    } else if let Some(reg) = root.get("mcp_registry").and_then(Value::as_object) {
        defaults.allowlist = allowlist(reg, ctx, &mut parsed.problems);
        match reg.get("servers").and_then(Value::as_object) {
            Some(m) => ("mcp_registry.servers", map_entries(m)),
            None => ("mcp_registry.servers", Vec::new()),
        }
    } else if let Some(mcp) = root.get("mcp").and_then(Value::as_object) {
        match mcp.get("servers") {
            Some(Value::Object(m)) => ("mcp.servers", map_entries(m)),
            Some(Value::Array(list)) => ("mcp.servers", list_entries(list, ctx, &mut parsed)),
            _ => ("mcp.servers", Vec::new()),
        }
    } else if ctx.file.ends_with(".toml")
        && root
            .keys()
            .any(|k| crate::settings::SECTIONS.contains(&k.as_str()))
    {
        // A native file holding only settings (gateway, policy…) layers with others.
        ("servers", Vec::new())
    } else {
        parsed.problems.push(Problem::error(
                ctx.file,
                None,
                "",
                "no MCP servers found",
                "declare servers under one of: mcpServers, servers, mcp.servers, mcp_registry.servers (see the README)",
            ));
        return parsed;
    };
    parsed.gateway = crate::settings::parse(root, ctx, &mut parsed.problems);
    if let Some(policy) = root.get("policy") {
        parsed.policy = Some(crate::PolicySource {
            file: ctx.file.to_string(),
            text: ctx.text.to_string(),
            value: policy.clone(),
        });
    }
    if ctx.file.ends_with(".toml") {
        let known = |k: &str| k == "servers" || crate::settings::SECTIONS.contains(&k);
        for key in root.keys().filter(|k| !known(k)) {
            parsed.problems.push(Problem::warning(
                ctx.file,
                line_of(ctx.text, &[key]),
                key,
                "unknown section, ignored",
                "use [gateway], [egress], [limits], [stdio], [oauth], [policy] or [servers.NAME]",
            ));
        }
    }
    let mut seen: BTreeMap<ServerSlug, String> = BTreeMap::new();
    for (key, value) in entries {
        let path = format!("{prefix}.{key}");
        let slug = match ServerSlug::normalize(&key) {
            Ok(slug) => slug,
            Err(e) => {
                parsed.problems.push(Problem::error(
                    ctx.file,
                    line_of(ctx.text, &[&key]),
                    &path,
                    e.to_string(),
                    "rename the server to start with a letter",
                ));
                continue;
            }
        };
        if let Some(first) = seen.get(&slug) {
            parsed.problems.push(Problem::error(
                ctx.file,
                line_of(ctx.text, &[&key]),
                &path,
                format!("server names {first:?} and {key:?} both normalise to {slug:?}"),
                "rename one of them",
            ));
            continue;
        }
        seen.insert(slug.clone(), key.clone());
        match entry::server(&slug, &key, &path, value, ctx, &defaults) {
            Ok((spec, mut warnings)) => {
                parsed.problems.append(&mut warnings);
                parsed.servers.push(spec);
            }
            Err(mut problems) => parsed.problems.append(&mut problems),
        }
    }
    parsed
}

fn map_entries(m: &Map<String, Value>) -> Vec<(String, &Value)> {
    m.iter().map(|(k, v)| (k.clone(), v)).collect()
}

fn list_entries<'a>(
    list: &'a [Value],
    ctx: &Context<'_>,
    parsed: &mut ParsedFile,
) -> Vec<(String, &'a Value)> {
    let mut out = Vec::new();
    for (i, v) in list.iter().enumerate() {
        match v.get("name").and_then(Value::as_str) {
            Some(name) => out.push((name.to_string(), v)),
            None => parsed.problems.push(Problem::error(
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
