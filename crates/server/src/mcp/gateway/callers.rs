//! Who a downstream request comes from: an agent's scope, an API token, an org.

/// Limits a gateway to one agent of one org (`/mcp/agents/{agent}`): the policy pipeline
/// shows and calls only the agent's enabled actions.
#[derive(Clone, Debug)]
pub struct AgentScope {
    pub org_id: String,
    pub agent_id: String,
}

/// The API token behind one HTTP request, put in its extensions so every call is audited
/// under the token that made it.
#[derive(Debug, Clone)]
pub(crate) struct CallerToken(pub(crate) String);

/// The org whose API token authorised a `/mcp` request (put in its extensions by the
/// endpoint's token check).
#[derive(Debug, Clone)]
pub(crate) struct OrgCaller {
    pub org_id: String,
    pub token_id: String,
}
