//! `/mcp/agents/{agent}`: an MCP endpoint with only the agent's enabled actions, for the org
//! whose API token calls it. One endpoint per (org, agent), made on first use by the same
//! builder as `/mcp`; its sessions are saved in the store so any replica can resume them.

use crate::control_plane::ControlPlane;
use crate::control_plane::callers::{AgentScope, OrgCaller};
use crate::edge::callers::{Callers, authenticated};
use crate::mcp::endpoint::{EndpointSettings, McpEndpoint};
use crate::mcp::gateway::Gateway;
use crate::mcp::sessions::saved::SharedSessions;
use axum::Router;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::Arc;
use switchboard_sync::Mutex;
use tower::ServiceExt;

/// The agent endpoints of the process.
#[derive(Clone)]
struct AgentEndpoints {
    control: ControlPlane,
    settings: EndpointSettings,
    /// Each (org, agent)'s endpoint, made on first use.
    made: Arc<Mutex<HashMap<(String, String), Router>>>,
}

/// The route `/mcp/agents/{agent}`: who calls first, then the agent's own endpoint.
pub(crate) fn router(
    control: ControlPlane,
    settings: EndpointSettings,
    resource: Option<crate::edge::identity::ResourceServer>,
) -> Router {
    let endpoints = AgentEndpoints {
        control: control.clone(),
        settings,
        made: Default::default(),
    };
    let route = Router::new()
        .route("/mcp/agents/{agent}", axum::routing::any(dispatch))
        .with_state(endpoints);
    authenticated(route, Callers::agents(control, resource))
}

/// Hands the request to the endpoint of the caller's org's agent.
async fn dispatch(
    State(endpoints): State<AgentEndpoints>,
    Path(agent): Path<String>,
    request: Request,
) -> Response {
    if let Err(e) = crate::control_plane::callers::check_agent(&agent) {
        return e.into_response();
    }
    // Only orgs' tokens pass the agent endpoints' first layer; the caller stays in the
    // request for the endpoint's gateway (the token its calls are audited under).
    let Some(org_id) = request
        .extensions()
        .get::<OrgCaller>()
        .map(|c| c.org_id.clone())
    else {
        let lost = "an agent endpoint was reached without its caller's org".to_string();
        return crate::control_plane::ApiError::Internal(lost).into_response();
    };
    let endpoint = endpoints.endpoint(&org_id, &agent);
    match endpoint.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

impl AgentEndpoints {
    fn endpoint(&self, org_id: &str, agent: &str) -> Router {
        let key = (org_id.to_string(), agent.to_string());
        let mut made = self.made.lock();
        made.entry(key)
            .or_insert_with(|| {
                let registry = self.control.registry.clone();
                let control = self.control.clone();
                let scope = AgentScope {
                    org_id: org_id.to_string(),
                    agent_id: agent.to_string(),
                };
                let name = format!("agent/{org_id}/{agent}");
                let saved = Arc::new(SharedSessions::new(
                    self.control.store.clone(),
                    name.clone(),
                ));
                McpEndpoint::new(&name, &self.settings, Some(saved), move || {
                    Gateway::for_agent(registry.clone(), control.clone(), scope.clone())
                })
                .into_router(None)
            })
            .clone()
    }
}
