//! Search mode: `tools/list` answers a few meta-tools (`search_tools`, `describe_tool`,
//! `call_tool`, `search_resources`) instead of every definition; `call_tool` goes through
//! the same pipeline as a direct call. Only what the caller sees can be found, described or
//! called.

use super::{Gateway, View, replies::failed_result};
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject, Tool, ToolAnnotations};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::{Arc, LazyLock};
use switchboard_core::{CallError, ErrorKind, ToolsMode};
use switchboard_registry::Registry;
use switchboard_search::text::summary;
use switchboard_sync::Mutex;

/// `search_tools` answers this many tools unless asked for another number (at most
/// [`MAX_LIMIT`]).
const DEFAULT_LIMIT: usize = 10;
const MAX_LIMIT: usize = 50;
/// A found tool's description is cut to one line of at most this many characters.
const SUMMARY_CHARS: usize = 160;

/// The most found tools one session keeps listed; the oldest go first.
const MAX_FOUND: usize = 50;

/// The tools one session found, listed beside the meta-tools when the endpoint says so.
#[derive(Clone, Default)]
pub(super) struct FoundTools(Arc<Mutex<Vec<String>>>);

impl FoundTools {
    pub(super) fn names(&self) -> HashSet<String> {
        self.0.lock().iter().cloned().collect()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.lock().is_empty()
    }

    /// Adds `names`; whether any was new.
    fn add<'a>(&self, names: impl Iterator<Item = &'a str>) -> bool {
        let mut kept = self.0.lock();
        let mut added = false;
        for name in names {
            if !kept.iter().any(|k| k == name) {
                kept.push(name.to_string());
                added = true;
            }
        }
        let excess = kept.len().saturating_sub(MAX_FOUND);
        kept.drain(..excess);
        added
    }
}

/// What the gateway made of a call to a meta-tool name.
pub(super) enum Meta {
    /// Not a meta-tool here (not in search mode, or another name): call it as it is.
    Pass,
    /// Answered by the gateway.
    Answer(CallToolResult),
}

static META_TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let search_schema = |what: &str| {
        schema(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": format!("What you want to do or find, in your own words (e.g. \"{what}\")")},
                "server": {"type": "string", "description": "Only this server's entries"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": format!("How many to answer (default {DEFAULT_LIMIT})")}
            },
            "required": ["query"]
        }))
    };
    let read_only = ToolAnnotations::new().read_only(true);
    vec![
        Tool::new(
            "search_tools",
            "Finds the tools available here by what you want to do. Answers each match's name, action id, server, a one-line description and a score, best first. Then call describe_tool for a tool's input schema and call_tool to use it.",
            search_schema("refund a customer's payment"),
        )
        .annotate(read_only.clone()),
        Tool::new(
            "describe_tool",
            "The full definition of a tool found by search_tools: its description and the input schema its arguments must follow.",
            schema(json!({
                "type": "object",
                "properties": {"name": {"type": "string", "description": "The tool's name as search_tools gave it"}},
                "required": ["name"]
            })),
        )
        .annotate(read_only.clone()),
        Tool::new(
            "call_tool",
            "Calls a tool found by search_tools, with arguments that follow its input schema (see describe_tool). Answers what the tool answers.",
            schema(json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The tool's name as search_tools gave it"},
                    "arguments": {"type": "object", "description": "The tool's arguments"}
                },
                "required": ["name"]
            })),
        ),
        Tool::new(
            "search_resources",
            "Finds resources, resource templates and prompts by what they hold. Answers each match's kind, server, id (the URI to read, or the prompt name), description and score.",
            search_schema("last quarter's sales report"),
        )
        .annotate(read_only),
    ]
});

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}

/// The meta-tools as `tools/list` sends them.
pub(super) fn meta_tools() -> Vec<Tool> {
    META_TOOLS.clone()
}

/// The meta-tools as JSON, made once.
pub(super) fn meta_tools_json() -> Vec<Arc<serde_json::value::RawValue>> {
    static JSON: LazyLock<Vec<Arc<serde_json::value::RawValue>>> = LazyLock::new(|| {
        META_TOOLS
            .iter()
            .filter_map(|t| serde_json::value::to_raw_value(t).ok().map(Arc::from))
            .collect()
    });
    JSON.clone()
}

impl Gateway {
    /// The tools mode for this view's caller: its agent's, else the endpoint's.
    pub(super) async fn mode_for(&self, view: &View) -> ToolsMode {
        let agent_mode = match self.registry.guard() {
            Some(guard) if view.caller.agent_id.is_some() => guard.tools_mode(&view.caller).await,
            _ => None,
        };
        agent_mode.unwrap_or(self.registry.tools_setting().mode)
    }

    /// Whether `tools/list` answers the meta-tools: in `auto` mode when the caller sees more
    /// than the threshold (`visible` is that count).
    pub(super) fn lists_meta(&self, mode: ToolsMode, visible: usize) -> bool {
        mode.searches(visible, self.registry.tools_setting().threshold)
    }

    /// The tools this session found that its caller still sees (none unless
    /// `tools_search_lists_found`), listed after the meta-tools.
    pub(super) async fn found_tools(&self, view: &View) -> Vec<switchboard_registry::ExposedTool> {
        let found = self.found.names();
        let mut kept = Vec::new();
        if found.is_empty() {
            return kept;
        }
        for registry in &view.registries {
            let visible = registry.visible_tools(&view.caller).await;
            kept.extend(
                visible
                    .into_iter()
                    .filter(|t| found.contains(&t.exposed_name)),
            );
        }
        kept
    }

    /// How many tools the view's caller sees.
    pub(super) async fn visible_count(&self, view: &View) -> usize {
        let mut count = 0;
        for registry in &view.registries {
            count += registry.visible_count(&view.caller).await;
        }
        count
    }

    /// Answers a meta-tool call in search mode; `call_tool` rewrites `request` into the call
    /// it names and passes it on.
    pub(super) async fn meta_tool(
        &self,
        request: &mut CallToolRequestParams,
        view: &View,
        peer: &Peer<RoleServer>,
    ) -> Meta {
        let name = request.name.as_ref();
        if !switchboard_core::META_TOOLS.contains(&name) {
            return Meta::Pass;
        }
        let mode = self.mode_for(view).await;
        let visible = match mode {
            ToolsMode::Auto => self.visible_count(view).await,
            _ => 0,
        };
        if !self.lists_meta(mode, visible) {
            return Meta::Pass;
        }
        let args = request.arguments.take().unwrap_or_default();
        let answer = match name {
            "search_tools" => self.search_tools(view, &args, peer).await,
            "search_resources" => self.search_resources(view, &args).await,
            "describe_tool" => self.describe_tool(view, &args).await,
            _ => match called(&args) {
                Ok((tool, arguments)) => {
                    request.name = exposed_name(view, tool).into();
                    request.arguments = arguments;
                    return Meta::Pass;
                }
                Err(e) => Err(e),
            },
        };
        Meta::Answer(answer.unwrap_or_else(failed_result))
    }

    async fn search_tools(
        &self,
        view: &View,
        args: &JsonObject,
        peer: &Peer<RoleServer>,
    ) -> Result<CallToolResult, CallError> {
        let (query, server, limit) = search_args(args)?;
        let caller = &view.caller;
        let search =
            |r: Registry| async move { r.search_tools(caller, query, server, limit).await };
        let found = best_of(view, limit, search, |f| f.score).await;
        let tools: Vec<Value> = found
            .iter()
            .map(|f| {
                let description = f.tool.tool.description.as_deref().unwrap_or_default();
                json!({
                    "name": f.tool.exposed_name,
                    "action_id": f.tool.action_id.as_str(),
                    "server": f.tool.server.as_str(),
                    "description": summary(description, SUMMARY_CHARS),
                    "score": round(f.score),
                })
            })
            .collect();
        if self.registry.tools_setting().list_found
            && self
                .found
                .add(found.iter().map(|f| f.tool.exposed_name.as_str()))
        {
            // The session's own list grew: hosts that call only listed tools list again.
            let _ = peer.notify_tool_list_changed().await;
        }
        Ok(CallToolResult::structured(json!({"tools": tools})))
    }

    async fn search_resources(
        &self,
        view: &View,
        args: &JsonObject,
    ) -> Result<CallToolResult, CallError> {
        let (query, server, limit) = search_args(args)?;
        let caller = &view.caller;
        let search =
            |r: Registry| async move { r.search_items(caller, query, server, limit).await };
        let mut found = best_of(view, limit, search, |f| f.score).await;
        for item in &mut found {
            item.score = round(item.score) as f32;
            if let Some(d) = &mut item.description {
                *d = summary(d, SUMMARY_CHARS);
            }
        }
        Ok(CallToolResult::structured(json!({"items": found})))
    }

    async fn describe_tool(
        &self,
        view: &View,
        args: &JsonObject,
    ) -> Result<CallToolResult, CallError> {
        let name = string_arg(args, "name")?.ok_or_else(|| missing("name"))?;
        for registry in &view.registries {
            if let Some(tool) = registry.visible_tool(&view.caller, name).await {
                let definition = serde_json::to_value(&tool.tool).unwrap_or_default();
                return Ok(CallToolResult::structured(definition));
            }
        }
        Err(not_found(name))
    }
}

/// Each registry's best `limit` answers, merged: the best `limit` of all, best first.
async fn best_of<T, Fut>(
    view: &View,
    limit: usize,
    search: impl Fn(Registry) -> Fut,
    score: impl Fn(&T) -> f32,
) -> Vec<T>
where
    Fut: Future<Output = Vec<T>>,
{
    let mut found = Vec::new();
    for registry in &view.registries {
        found.extend(search(registry.clone()).await);
    }
    found.sort_by(|a, b| score(b).total_cmp(&score(a)));
    found.truncate(limit);
    found
}

/// The exposed name of a tool named by exposed name or action id (`mcp.<server>.<tool>`).
fn exposed_name(view: &View, name: String) -> String {
    for registry in &view.registries {
        let catalog = registry.catalog();
        if catalog.tool(&name).is_some() {
            return name;
        }
        if let Some(t) = catalog.tools.iter().find(|t| t.action_id.as_str() == name) {
            return t.exposed_name.clone();
        }
    }
    name
}

/// `call_tool`'s tool name and arguments.
fn called(args: &JsonObject) -> Result<(String, Option<JsonObject>), CallError> {
    let name = string_arg(args, "name")?.ok_or_else(|| missing("name"))?;
    if switchboard_core::META_TOOLS.contains(&name) {
        return Err(invalid(format!("call_tool calls found tools, not {name}")));
    }
    let arguments = match args.get("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map.clone()),
        Some(_) => return Err(invalid("arguments must be an object".into())),
    };
    Ok((name.to_string(), arguments))
}

fn search_args(args: &JsonObject) -> Result<(&str, Option<&str>, usize), CallError> {
    let query = string_arg(args, "query")?.ok_or_else(|| missing("query"))?;
    let server = string_arg(args, "server")?;
    let limit = match args.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(v) => match v.as_u64() {
            Some(n @ 1..) => (n as usize).min(MAX_LIMIT),
            _ => {
                return Err(invalid(format!(
                    "limit must be a whole number from 1 to {MAX_LIMIT}"
                )));
            }
        },
    };
    Ok((query, server, limit))
}

fn string_arg<'a>(args: &'a JsonObject, key: &str) -> Result<Option<&'a str>, CallError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(format!("{key} must be a string"))),
    }
}

fn missing(key: &str) -> CallError {
    invalid(format!("{key} is required"))
}

fn invalid(message: String) -> CallError {
    CallError::new(ErrorKind::InvalidRequest, message)
}

fn not_found(name: &str) -> CallError {
    CallError::new(
        ErrorKind::ToolNotFound,
        format!("no tool {name}; search_tools finds tools by what they do"),
    )
}

/// Scores to three decimals: enough to rank, short on the wire.
fn round(score: f32) -> f64 {
    (f64::from(score) * 1000.0).round() / 1000.0
}
