//! What the catalogue exposes of each server's offer, and what it withholds.

use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
use switchboard_core::{ActionId, Review, ServerSlug};

#[derive(Debug, Clone)]
pub struct ExposedTool {
    pub exposed_name: String,
    pub action_id: ActionId,
    pub server: ServerSlug,
    pub upstream_name: String,
    /// The upstream definition with `name` replaced by the exposed name.
    pub tool: Tool,
    /// What the policy pipeline decided at discovery (quarantine, findings).
    pub review: Review,
    /// `tool` as JSON, made the first time a `tools/list` needs it.
    pub wire: WireJson,
    /// The UI it names (MCP Apps) as discovery read it, as the guard reviewed it
    /// (`uiResource`: URI, MIME type, SHA-256, HTML, `_meta.ui`).
    pub app: Option<std::sync::Arc<serde_json::Value>>,
}

/// A tool's JSON definition, made once and shared by every `tools/list` of its catalogue.
/// A clone starts empty, so an edited copy of a tool never answers with the old JSON.
#[derive(Default)]
pub struct WireJson(std::sync::OnceLock<std::sync::Arc<serde_json::value::RawValue>>);

impl Clone for WireJson {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for WireJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WireJson")
    }
}

impl ExposedTool {
    /// The tool's definition as `tools/list` sends it.
    pub fn wire_json(&self) -> std::sync::Arc<serde_json::value::RawValue> {
        self.wire
            .0
            .get_or_init(|| {
                serde_json::value::to_raw_value(&self.tool)
                    .map(std::sync::Arc::from)
                    .unwrap_or_else(|e| {
                        // A Tool always serialises; an empty object keeps the answer valid.
                        tracing::error!(tool = %self.exposed_name, "tool definition as JSON: {e}");
                        empty_object()
                    })
            })
            .clone()
    }

    /// Whether discovery held this tool back until an operator approves it.
    pub fn quarantined(&self) -> Option<&str> {
        self.review.quarantined.as_deref()
    }
}

/// A tool a server offers that the catalogue does not expose, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WithheldTool {
    pub server: ServerSlug,
    pub tool: String,
    pub reason: String,
}

#[derive(Debug, Clone)]
pub struct ExposedPrompt {
    pub exposed_name: String,
    pub server: ServerSlug,
    pub upstream_name: String,
    pub prompt: Prompt,
}

#[derive(Debug, Clone)]
pub struct ExposedResource {
    pub server: ServerSlug,
    pub upstream_uri: String,
    /// The upstream definition with `uri` replaced by the exposed one.
    pub resource: Resource,
}

#[derive(Debug, Clone)]
pub struct ExposedResourceTemplate {
    pub server: ServerSlug,
    pub template: ResourceTemplate,
}

/// `{}` as raw JSON.
fn empty_object() -> std::sync::Arc<serde_json::value::RawValue> {
    let empty = serde_json::value::RawValue::from_string("{}".into());
    std::sync::Arc::from(empty.expect("{} is JSON"))
}
