//! MCP Apps' `ui://` resources under the gateway's names: a URI several servers offer becomes
//! `ui://switchboard/<server>/<rest>` (still `ui://`, as hosts require of an app's resource),
//! and a tool's `_meta.ui.resourceUri` (and the older `_meta["ui/resourceUri"]`) names the URI
//! the gateway exposes for it.

use rmcp::model::Tool;
use serde_json::Value;
use switchboard_core::ServerSlug;

pub(crate) use switchboard_upstream::apps::{UI_SCHEME, app_of};

/// Where a `ui://` URI several servers offer is exposed: `ui://switchboard/<server>/<rest>`.
pub(crate) const UI_PREFIX: &str = "ui://switchboard/";

/// The `_meta` key of the older flat form (`_meta["ui/resourceUri"]`).
const LEGACY_KEY: &str = "ui/resourceUri";

/// Makes `tool` name `exposed` as its app, in both forms it used.
pub(crate) fn point_at(tool: &mut Tool, exposed: &str) {
    let Some(meta) = tool.meta.as_mut() else {
        return;
    };
    if let Some(ui) = meta.get_mut("ui").and_then(Value::as_object_mut)
        && ui.get("resourceUri").is_some_and(Value::is_string)
    {
        ui.insert("resourceUri".into(), exposed.into());
    }
    if meta.get(LEGACY_KEY).is_some_and(Value::is_string) {
        meta.insert(LEGACY_KEY.into(), exposed.into());
    }
}

/// `uri` (a `ui://` URI) as `server` offers it when another server offers it too.
pub(crate) fn prefixed(server: &ServerSlug, uri: &str) -> String {
    let rest = uri.strip_prefix(UI_SCHEME).unwrap_or(uri);
    format!("{UI_PREFIX}{server}/{rest}")
}

/// The server and upstream URI of a prefixed `ui://` URI.
pub(crate) fn route(uri: &str) -> Option<(ServerSlug, String)> {
    let rest = uri.strip_prefix(UI_PREFIX)?;
    let (server, upstream) = rest.split_once('/')?;
    let server = ServerSlug::parse(server).ok()?;
    Some((server, format!("{UI_SCHEME}{upstream}")))
}

/// Whether only its app may see `tool` (`_meta.ui.visibility` without `"model"`): hosts keep
/// such tools from their model, so the gateway's search for the model leaves them out too.
pub(crate) fn app_only(tool: &Tool) -> bool {
    let visibility = (tool.meta.as_ref())
        .and_then(|meta| meta.get("ui"))
        .and_then(|ui| ui.get("visibility"))
        .and_then(Value::as_array);
    visibility.is_some_and(|v| !v.iter().any(|who| who == "model"))
}
