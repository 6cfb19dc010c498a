//! `/mcp/agents/{agent}`: an MCP endpoint with only the agent's enabled actions, authorised by
//! an API token of the agent's org. One Streamable HTTP service per (org, agent); its sessions
//! are saved in the store so any replica can resume them.

use super::ApiState;
use super::auth::{ApiCaller, VIEW};
use crate::gateway::{AgentScope, CallerToken, Gateway};
use crate::ordered_sessions::OrderedSessions;
use crate::sessions::SharedSessions;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tower::ServiceExt;

type AgentService = StreamableHttpService<Gateway, OrderedSessions>;

/// The per-agent MCP services, made on first use.
#[derive(Clone, Default)]
pub struct AgentEndpoints(Arc<Mutex<HashMap<(String, String), AgentService>>>);

pub async fn handle(
    State(state): State<ApiState>,
    Path(agent): Path<String>,
    request: Request,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let caller = match <ApiCaller as axum::extract::FromRequestParts<ApiState>>::from_request_parts(
        &mut parts, &state,
    )
    .await
    {
        Ok(caller) => caller,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = caller.require(VIEW) {
        return e.into_response();
    }
    if let Err(e) = super::agents::check_agent(&agent) {
        return e.into_response();
    }
    let service = state.agent_service(&caller.org.id, &agent);
    parts
        .extensions
        .insert(CallerToken(caller.token.id.clone()));
    match service.oneshot(Request::from_parts(parts, body)).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    }
}

impl ApiState {
    fn agent_service(&self, org_id: &str, agent: &str) -> AgentService {
        let key = (org_id.to_string(), agent.to_string());
        let mut services = self
            .agent_endpoints
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        services
            .entry(key)
            .or_insert_with(|| {
                let registry = self.registry.clone();
                let api = self.clone();
                let scope = AgentScope {
                    org_id: org_id.to_string(),
                    agent_id: agent.to_string(),
                };
                let mut config = self.mcp_config.clone();
                config.session_store = Some(Arc::new(SharedSessions::new(
                    self.store.clone(),
                    format!("agent/{org_id}/{agent}"),
                )));
                StreamableHttpService::new(
                    move || {
                        Ok(Gateway::for_agent(
                            registry.clone(),
                            api.clone(),
                            scope.clone(),
                        ))
                    },
                    Arc::new(OrderedSessions::default()),
                    config,
                )
            })
            .clone()
    }
}
