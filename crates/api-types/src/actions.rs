//! Agent and policy bodies: an action switched on or off, an action invoked, a definition approved.

use serde::Deserialize;
use serde_json::Value;

/// `PUT /api/agents/{agent}/actions/{action_id}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Toggle {
    pub enabled: bool,
}

/// `POST /api/agents/{agent}/actions/{action_id}/invoke`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invoke {
    pub arguments: Option<Value>,
    pub end_user_id: Option<String>,
    /// Information-flow taint is kept per conversation.
    pub conversation_id: Option<String>,
}

/// `POST /api/policy/approve`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApproveBody {
    pub server: String,
    pub tool: Option<String>,
    #[serde(default)]
    pub all: bool,
    pub owner: Option<String>,
    /// The sha256 (or a prefix) of the definition that was reviewed.
    pub hash: Option<String>,
}

/// `PUT /api/agents/{agent}/actions`: many actions turned on or off at once.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkToggle {
    pub enabled: bool,
    pub action_ids: Vec<String>,
}

/// `POST /api/catalog/resources/read`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadResource {
    pub uri: String,
}

/// `POST /api/catalog/prompts/get`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GetPrompt {
    pub name: String,
    pub arguments: Option<serde_json::Map<String, Value>>,
}
