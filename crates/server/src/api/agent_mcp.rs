//! `/mcp/agents/{agent}`: an MCP endpoint with only the agent's enabled actions, authorised by
//! an API token of the agent's org. One Streamable HTTP service per (org, agent); its sessions
//! are saved in the store so any replica can resume them.

use super::ApiState;
use super::auth::{ApiCaller, VIEW};
use crate::fast_path::{Answered, FastPath};
use crate::gateway::{AgentScope, CallerToken, Gateway};
use crate::ordered_sessions::OrderedSessions;
use crate::sessions::SharedSessions;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use std::collections::HashMap;
use std::sync::Arc;
use tower::ServiceExt;

type AgentService = StreamableHttpService<Gateway, OrderedSessions>;

/// The per-agent MCP services, made on first use, each with its fast path.
#[derive(Clone, Default)]
pub(super) struct AgentEndpoints(Arc<Mutex<HashMap<(String, String), AgentEndpoint>>>);

/// One agent's MCP service, the fast path in front of it and its sessions.
type AgentEndpoint = (AgentService, Arc<FastPath>, Arc<OrderedSessions>);

pub(super) async fn handle(
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
    let (service, fast, sessions) = state.agent_service(&caller.org.id, &agent);
    parts
        .extensions
        .insert(CallerToken(caller.token.id.clone()));
    let request = Request::from_parts(parts, body);
    crate::admission::admitted(&sessions, request, |request| async move {
        let request = match fast.answer(request).await {
            Answered::Here(response) => return response,
            Answered::Elsewhere(request) => request,
        };
        match service.oneshot(request).await {
            Ok(response) => response.into_response(),
            Err(never) => match never {},
        }
    })
    .await
}

impl ApiState {
    fn agent_service(&self, org_id: &str, agent: &str) -> AgentEndpoint {
        let key = (org_id.to_string(), agent.to_string());
        let mut services = self.agent_endpoints.0.lock();
        services
            .entry(key)
            .or_insert_with(|| {
                let registry = self.registry.clone();
                let api = self.clone();
                let agent_scope = AgentScope {
                    org_id: org_id.to_string(),
                    agent_id: agent.to_string(),
                };
                let mut config = self.mcp_config.clone();
                let scope = format!("agent/{org_id}/{agent}");
                let saved = Arc::new(SharedSessions::new(self.store.clone(), scope.clone()));
                config.session_store = Some(saved.clone());
                let sessions =
                    OrderedSessions::new(&scope, self.session_limits.clone(), Some(saved));
                let fast = Arc::new(FastPath::new(
                    sessions.clone(),
                    &config,
                    self.park_sessions_after,
                ));
                let live = sessions.live().clone();
                let service = StreamableHttpService::new(
                    move || {
                        let gateway =
                            Gateway::for_agent(registry.clone(), api.clone(), agent_scope.clone());
                        Ok(gateway.with_live_sessions(live.clone()))
                    },
                    sessions.clone(),
                    config,
                );
                (service, fast, sessions)
            })
            .clone()
    }
}
