//! Agents > Actions: which actions each agent may use, and invoking one over REST.

use crate::control_plane::ApiError;
use crate::control_plane::callers::{ApiCaller, MANAGE, VIEW, check_agent};
use crate::control_plane::{ControlPlane, Source};
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use switchboard_api_types::{Invoke, Toggle};
use switchboard_core::Caller;
use switchboard_core::EndUserSource;
use switchboard_core::Surface;
use switchboard_registry::CallOptions;
use switchboard_store::{AuditEntry, now_ms};

pub(super) async fn list(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path(agent): Path<String>,
) -> Result<Json<Value>, ApiError> {
    caller.require(VIEW)?;
    check_agent(&agent)?;
    let enabled = state.store.enabled_actions(&caller.org.id, &agent).await?;
    let mut integrations: BTreeMap<String, (Source, Vec<Value>)> = BTreeMap::new();
    for (tool, source) in state.agent_tools(&caller.org.id) {
        let action_id = tool.action_id.to_string();
        integrations
            .entry(tool.server.to_string())
            .or_insert((source, Vec::new()))
            .1
            .push(json!({
                "action_id": action_id,
                "name": tool.upstream_name,
                "description": tool.tool.description,
                "enabled": enabled.contains(&action_id),
            }));
    }
    let integrations: Vec<Value> = integrations
        .into_iter()
        .map(|(server, (source, actions))| {
            json!({
                "integration": format!("mcp_{server}"),
                "server": server,
                "source": source.as_str(),
                "actions": actions,
            })
        })
        .collect();
    Ok(Json(json!({"agent": agent, "integrations": integrations})))
}

pub(super) async fn set(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path((agent, action_id)): Path<(String, String)>,
    body: Result<Json<Toggle>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    caller.require(MANAGE)?;
    check_agent(&agent)?;
    let Json(toggle) = body.map_err(|e| ApiError::Invalid(e.body_text()))?;
    let known = state.find_action(&caller.org.id, &action_id).is_some();
    if toggle.enabled && !known {
        return Err(ApiError::NotFound(format!(
            "no action {action_id} in org {}; GET /api/agents/{agent}/actions lists them",
            caller.org.name
        )));
    }
    state
        .store
        .set_agent_action(&caller.org.id, &agent, &action_id, toggle.enabled)
        .await?;
    state
        .audit
        .record_now(toggle_entry(&caller, &agent, &action_id, toggle.enabled));
    Ok(Json(
        json!({"agent": agent, "action_id": action_id, "enabled": toggle.enabled}),
    ))
}

pub(super) async fn invoke(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path((agent, action_id)): Path<(String, String)>,
    body: Result<Json<Invoke>, JsonRejection>,
) -> Result<Response, ApiError> {
    caller.require(MANAGE)?;
    check_agent(&agent)?;
    let body = match body {
        Ok(Json(body)) => body,
        Err(JsonRejection::MissingJsonContentType(_)) => Invoke::default(),
        Err(e) => return Err(ApiError::Invalid(e.body_text())),
    };
    // Agent toggles, rules, limits and the audit row are all the registry's pipeline.
    let (registry, exposed) = state
        .find_action(&caller.org.id, &action_id)
        .unwrap_or_else(|| (state.org_registry(&caller.org.id), action_id.clone()));
    // Taint is kept per org: per conversation when one is named, else per agent.
    let session = match &body.conversation_id {
        Some(id) => format!("{}|conv:{id}", caller.org.id),
        None => format!("{}|rest:{agent}", caller.org.id),
    };
    // An access token's end user is the call's; one asserted in the body must match it.
    let (end_user, source) = match (&caller.end_user, body.end_user_id) {
        (Some(token), Some(asserted)) if *token != asserted => {
            return Err(ApiError::Forbidden(format!(
                "end_user_id {asserted:?} differs from the end user your access token names ({token:?}): drop end_user_id, or send it equal to the token's"
            )));
        }
        (Some(token), _) => (Some(token.clone()), Some(EndUserSource::Token)),
        (None, Some(asserted)) => (Some(asserted), Some(EndUserSource::Asserted)),
        (None, None) => (None, None),
    };
    let mut opts = rest_options(&caller, Some(agent), session);
    opts.caller.end_user_source = source;
    if let Some(user) = end_user {
        opts = opts.with_end_user(user);
    }
    match registry.call_tool(&exposed, body.arguments, opts).await {
        Ok(result) => Ok((StatusCode::OK, Json(json!({"result": result}))).into_response()),
        Err(e) => Err(ApiError::Call(e)),
    }
}

/// A REST call's options: the org, its token and (for a tool) the agent, on `session`.
pub(super) fn rest_options(
    caller: &ApiCaller,
    agent: Option<String>,
    session: String,
) -> CallOptions {
    CallOptions::default().with_caller(Caller {
        org_id: Some(caller.org.id.clone()),
        agent_id: agent,
        token_id: Some(caller.token.id.clone()),
        surface: Some(switchboard_core::Surface::Rest),
        session: Some(session),
        asserts_end_users: caller.has_role(switchboard_core::end_user::ASSERT_ROLE),
        subject: caller.token.id.strip_prefix("oauth:").map(String::from),
        // The caller's own access token, where its issuer may exchange it.
        inbound: caller.inbound.clone(),
        ..Default::default()
    })
}

/// The audit row of one action turned on or off for an agent over REST.
pub(super) fn toggle_entry(
    caller: &ApiCaller,
    agent: &str,
    action_id: &str,
    enabled: bool,
) -> AuditEntry {
    AuditEntry {
        at: now_ms(),
        org_id: Some(caller.org.id.clone()),
        agent_id: Some(agent.to_string()),
        token_id: Some(caller.token.id.clone()),
        action_id: format!("config.{}", if enabled { "enable" } else { "disable" }),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        detail: Some(format!("{} action={action_id}", Surface::Rest.detail())),
        ..Default::default()
    }
}
