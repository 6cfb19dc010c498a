//! What the gateway answers besides upstream results: failed calls as tool results with
//! their kind, protocol errors, and the visible items of a listing.

use super::{KIND_META_KEY, View};
use rmcp::model::{CallToolResult, ContentBlock, ErrorData, JsonObject, MetaObject};
use serde_json::{Value, json};
use switchboard_core::{CallError, ErrorKind};

/// The items (resources, templates, prompts) of every registry in `view` whose server the
/// caller sees; each server's visibility is asked once.
pub(super) async fn visible_items<T>(
    view: &View,
    items: impl Fn(&switchboard_registry::Catalog) -> Vec<(switchboard_core::ServerSlug, T)>,
) -> Vec<T> {
    let mut seen: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for registry in &view.registries {
        for (server, item) in items(&registry.catalog()) {
            let key = format!("{}|{server}", registry.owner().key());
            let visible = match seen.get(&key) {
                Some(v) => *v,
                None => {
                    let v = registry.server_visible(&view.caller, server.as_str()).await;
                    seen.insert(key, v);
                    v
                }
            };
            if visible {
                out.push(item);
            }
        }
    }
    out
}

pub(super) fn new_instance() -> std::sync::Arc<str> {
    switchboard_store::new_id("session").into()
}

pub(super) fn failed_result(error: CallError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "{}: {}",
        error.kind, error.message
    ))]);
    let mut meta = JsonObject::new();
    meta.insert(
        KIND_META_KEY.into(),
        json!({"kind": error.kind.as_str(), "message": error.message}),
    );
    let mut meta = Value::Object(meta);
    if let Some(ms) = error.retry_after_ms {
        meta[KIND_META_KEY]["retry_after_ms"] = json!(ms);
    }
    result.meta = match meta {
        Value::Object(meta) => Some(MetaObject(meta)),
        _ => None,
    };
    result
}

/// The upstream's own JSON-RPC error, when the call failed with one: the caller gets it as the
/// upstream sent it (its code and data), as it would calling the upstream directly.
pub(super) fn upstream_rejection(error: &CallError) -> Option<ErrorData> {
    let code = error.code?;
    Some(ErrorData::new(
        rmcp::model::ErrorCode(code),
        error.message.clone(),
        error.data.as_deref().cloned(),
    ))
}

/// A failed call as its caller gets it: the upstream's own error, or a tool result.
pub(super) fn failed_call(error: CallError) -> Result<CallToolResult, ErrorData> {
    match upstream_rejection(&error) {
        Some(rejected) => Err(rejected),
        None => Ok(failed_result(error)),
    }
}

pub(super) fn agents_get_actions_only() -> ErrorData {
    error_data(CallError::new(
        ErrorKind::PolicyDenied,
        "agent endpoints offer the agent's enabled actions only; resources and prompts are served on /mcp",
    ))
}

/// A failed read of `uri` (the caller's name for the resource): the data names it, as SEP-2164
/// asks of an unknown resource, also when the upstream named it by its own URI.
pub(super) fn resource_error(error: CallError, uri: &str) -> ErrorData {
    let mut error = error_data(error);
    match &mut error.data {
        Some(Value::Object(data)) => {
            data.insert("uri".into(), uri.into());
        }
        Some(_) => {}
        None => error.data = Some(json!({ "uri": uri })),
    }
    error
}

pub(super) fn error_data(error: CallError) -> ErrorData {
    if let Some(rejected) = upstream_rejection(&error) {
        return rejected;
    }
    let data = Some(json!({"kind": error.kind.as_str()}));
    match error.kind {
        ErrorKind::InvalidRequest | ErrorKind::ToolNotFound => {
            ErrorData::invalid_params(error.message, data)
        }
        _ => ErrorData::internal_error(error.message, data),
    }
}
