//! `/mcp/agents/{agent}`: an MCP endpoint with only the agent's enabled actions, for the org
//! whose API token calls it; and an org's own endpoints `/orgs/{org}/mcp` and
//! `/orgs/{org}/mcp/agents/{agent}`, where the org's issuers are trusted too. One endpoint per
//! (org, agent) and per org, made on first use by the same builder as `/mcp`; their sessions
//! are saved in the store so any replica can resume them.

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
    /// Each (org, agent)'s endpoint, and each org's (agent `None`), made on first use.
    made: Arc<Mutex<HashMap<EndpointKey, Router>>>,
}

/// (org id, agent name): an agent's endpoint, or the org's own with no agent.
type EndpointKey = (String, Option<String>);

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
        .with_state(endpoints.clone());
    let org = Router::new()
        .route("/orgs/{org}/mcp", axum::routing::any(dispatch_org))
        .with_state(endpoints.clone());
    let org_agent = Router::new()
        .route(
            "/orgs/{org}/mcp/agents/{agent}",
            axum::routing::any(dispatch_org_agent),
        )
        .with_state(endpoints);
    authenticated(route, Callers::agents(control.clone(), resource.clone()))
        .merge(authenticated(
            org,
            Callers::org(control.clone(), resource.clone(), false),
        ))
        .merge(authenticated(
            org_agent,
            Callers::org(control, resource, true),
        ))
}

/// `/orgs/{org}/mcp`: the org's endpoint (its caller was checked to be of that org).
async fn dispatch_org(
    State(endpoints): State<AgentEndpoints>,
    Path(_org): Path<String>,
    request: Request,
) -> Response {
    endpoints.serve(None, request).await
}

/// `/orgs/{org}/mcp/agents/{agent}`: the agent's endpoint, as `/mcp/agents/{agent}`.
async fn dispatch_org_agent(
    State(endpoints): State<AgentEndpoints>,
    Path((_org, agent)): Path<(String, String)>,
    request: Request,
) -> Response {
    if let Err(e) = crate::control_plane::callers::check_agent(&agent) {
        return e.into_response();
    }
    endpoints.serve(Some(agent), request).await
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
    endpoints.serve(Some(agent), request).await
}

impl AgentEndpoints {
    /// Hands `request` to the endpoint of the caller's org (its `agent`'s, when named).
    async fn serve(&self, agent: Option<String>, request: Request) -> Response {
        // Only orgs' callers pass these routes' first layer; the caller stays in the request
        // for the endpoint's gateway (the token its calls are audited under).
        let Some(org_id) = request
            .extensions()
            .get::<OrgCaller>()
            .map(|c| c.org_id.clone())
        else {
            let lost = "an org's endpoint was reached without its caller's org".to_string();
            return crate::control_plane::ApiError::Internal(lost).into_response();
        };
        let endpoint = self.endpoint(&org_id, agent);
        match endpoint.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }

    fn endpoint(&self, org_id: &str, agent: Option<String>) -> Router {
        let key = (org_id.to_string(), agent.clone());
        let mut made = self.made.lock();
        made.entry(key)
            .or_insert_with(|| {
                let registry = self.control.registry.clone();
                let control = self.control.clone();
                let name = match &agent {
                    Some(agent) => format!("agent/{org_id}/{agent}"),
                    None => format!("org/{org_id}"),
                };
                let saved = Arc::new(SharedSessions::new(
                    self.control.store.clone(),
                    name.clone(),
                ));
                let scope = agent.map(|agent_id| AgentScope {
                    org_id: org_id.to_string(),
                    agent_id,
                });
                McpEndpoint::new(&name, &self.settings, Some(saved), move || match &scope {
                    Some(scope) => {
                        Gateway::for_agent(registry.clone(), control.clone(), scope.clone())
                    }
                    None => Gateway::with_orgs(registry.clone(), control.clone()),
                })
                .into_router(None)
            })
            .clone()
    }
}
