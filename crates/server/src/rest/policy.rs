//! `/api/policy`: an org's rules, rate limits, labels and agent server lists; definitions
//! waiting for approval and approving them; every tool with whether it is exposed and why.

use crate::control_plane::ApiError;
use crate::control_plane::callers::{ApiCaller, MANAGE, OPERATE, VIEW};
use crate::control_plane::{ControlPlane, Source};
use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_api_types::ApproveBody;
use switchboard_core::Owner;
use switchboard_policy::ApproveError;
use switchboard_store::{Change, ChangeKind};

pub(super) async fn get(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Json<Value>, ApiError> {
    caller.require(VIEW)?;
    let doc = state
        .pipeline
        .read_org_doc(&caller.org.id)
        .await
        .map_err(ApiError::Internal)?;
    Ok(Json(json!({"org": caller.org.name, "policy": doc})))
}

/// Replaces the org's document; a bad one is a 400 naming each field, and changes nothing.
pub(super) async fn put(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    body: Result<Json<Value>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    caller.require(MANAGE)?;
    let Json(body) = body.map_err(|e| ApiError::Invalid(e.body_text()))?;
    let doc = match state.pipeline.set_org_doc(&caller.org.id, &body).await {
        Ok(doc) => doc,
        Err(Ok(problems)) => {
            let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
            return Err(ApiError::Invalid(format!(
                "the policy was not saved: {}",
                text.join("; ")
            )));
        }
        Err(Err(e)) => return Err(ApiError::Internal(e)),
    };
    announce(&state, &caller.org.id).await;
    state.review_all();
    Ok(Json(json!({"org": caller.org.name, "policy": doc})))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OwnerQuery {
    /// `operator` for the config-file servers' pins (needs gateway:operate).
    owner: Option<String>,
}

fn owner_for(caller: &ApiCaller, owner: Option<&str>, write: bool) -> Result<Owner, ApiError> {
    match owner {
        None | Some("org") => {
            caller.require(if write { MANAGE } else { VIEW })?;
            Ok(Owner::Org(caller.org.id.clone()))
        }
        Some("operator") => {
            caller.require_role(OPERATE)?;
            Ok(Owner::Operator)
        }
        Some(other) => Err(ApiError::Invalid(format!(
            "owner {other:?} is not known: use \"org\" (default) or \"operator\""
        ))),
    }
}

pub(super) async fn pending(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    super::ApiQuery(q): super::ApiQuery<OwnerQuery>,
) -> Result<Json<Value>, ApiError> {
    let owner = owner_for(&caller, q.owner.as_deref(), false)?;
    let waiting = state
        .pipeline
        .pending(&owner, None)
        .await
        .map_err(ApiError::Internal)?;
    Ok(Json(json!({"pending": waiting})))
}

pub(super) async fn approve(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    body: Result<Json<ApproveBody>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(body) = body.map_err(|e| ApiError::Invalid(e.body_text()))?;
    let owner = owner_for(&caller, body.owner.as_deref(), true)?;
    if body.tool.is_none() && !body.all {
        return Err(ApiError::Invalid(
            "name the tool to approve, or set \"all\": true".into(),
        ));
    }
    let by = format!("token:{}", caller.token.id);
    let approved = state
        .pipeline
        .approve(
            &owner,
            &body.server,
            body.tool.as_deref(),
            body.hash.as_deref(),
            &by,
        )
        .await
        .map_err(|e| match e {
            ApproveError::NothingWaiting(m) => ApiError::NotFound(m),
            ApproveError::Changed(m) => ApiError::Conflict(m),
            ApproveError::Store(m) => ApiError::Internal(m),
        })?;
    let org = match &owner {
        Owner::Org(id) => id.clone(),
        Owner::Operator => String::new(),
    };
    announce(&state, &org).await;
    state.review_all();
    Ok(Json(json!({"approved": approved})))
}

/// Every tool the org's endpoint could offer, with whether it is exposed and why not.
pub(super) async fn tools(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Json<Value>, ApiError> {
    caller.require(VIEW)?;
    let mut list = Vec::new();
    // What this org's /mcp endpoint lists.
    let org = switchboard_core::Caller {
        org_id: Some(caller.org.id.clone()),
        surface: Some(switchboard_core::Surface::Rest),
        ..Default::default()
    };
    let labels = state
        .pipeline
        .labeler(&org)
        .await
        .map_err(ApiError::Internal)?;
    for (registry, source) in [
        (state.org_registry(&caller.org.id), Source::Api),
        (state.registry.clone(), Source::Config),
    ] {
        let catalog = registry.catalog();
        let listed: std::collections::HashSet<String> = registry
            .visible_tools(&org)
            .await
            .into_iter()
            .map(|t| t.exposed_name)
            .collect();
        let owner = registry.owner();
        for t in &catalog.tools {
            let hidden = (t.quarantined().is_none() && !listed.contains(&t.exposed_name))
                .then_some("hidden by the policy (a rule that denies it outright)");
            let tool = switchboard_core::ToolRef {
                owner,
                server: &t.server,
                tool: &t.upstream_name,
                action: &t.action_id,
            };
            let labels = labels(&tool);
            list.push(json!({
                "name": t.exposed_name, "action_id": t.action_id.as_str(),
                "server": t.server.as_str(), "source": source.as_str(),
                "visible": listed.contains(&t.exposed_name),
                "quarantined": t.quarantined(), "hidden": hidden,
                "findings": t.review.findings,
                "labels": labels,
                // The definition as the upstream gave it (the dashboard's schemas and forms).
                "title": t.tool.title, "description": t.tool.description,
                "input_schema": t.tool.input_schema, "output_schema": t.tool.output_schema,
                "annotations": t.tool.annotations,
            }));
        }
        for w in &catalog.withheld {
            list.push(json!({
                "name": null, "action_id": format!("mcp.{}.{}", w.server, w.tool),
                "server": w.server.as_str(), "source": source.as_str(),
                "visible": false, "withheld": w.reason,
            }));
        }
    }
    Ok(Json(json!({"tools": list})))
}

async fn announce(state: &ControlPlane, org_id: &str) {
    let change = Change {
        org_id: org_id.to_string(),
        server_id: String::new(),
        replica: state.replica.to_string(),
        kind: ChangeKind::Policy,
    };
    if let Err(e) = state.store.publish_change(&change).await {
        tracing::warn!("cannot tell the other replicas about the policy change: {e}");
    }
}
