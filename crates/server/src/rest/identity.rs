//! `/api/identity/issuers`: the issuers an org trusts on its own endpoints
//! (`/orgs/{org}/mcp…`), with how their claims map into the org. An org's issuer maps only
//! into that org: never the org, never `gateway:operate`.

use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
use crate::control_plane::callers::{ApiCaller, MANAGE, VIEW};
use crate::control_plane::org_issuers::SEALED;
use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_core::{IssuerSpec, Surface};
use switchboard_store::{AuditEntry, now_ms};

/// The org's issuers, secrets shown as `(sealed)`.
pub(super) async fn list(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Json<Value>, ApiError> {
    caller.require(VIEW)?;
    let specs = state.org_issuer_specs(&caller.org.id).await?;
    let shown: Vec<IssuerSpec> = specs.into_iter().map(redacted).collect();
    Ok(Json(json!({
        "org": caller.org.name,
        "endpoint": format!("/orgs/{}/mcp", caller.org.name),
        "issuers": shown,
    })))
}

/// Adds an issuer, or replaces the one with the same `issuer`; a bad one is a 400 naming
/// each problem, and changes nothing. The answer says whether its keys could be fetched.
pub(super) async fn put(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    body: Result<Json<Value>, JsonRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    caller.require(MANAGE)?;
    let Json(body) = body.map_err(|e| ApiError::Invalid(e.body_text()))?;
    let mut spec: IssuerSpec = serde_json::from_value(body).map_err(|e| {
        ApiError::Invalid(format!(
            "the issuer was not saved: {e} (fields as in [[identity.issuers]], docs/identity.md)"
        ))
    })?;
    let problems = spec.org_problems();
    if !problems.is_empty() {
        let text: Vec<String> = (problems.iter())
            .map(|p| format!("{}: {} ({})", p.key, p.problem, p.fix))
            .collect();
        return Err(ApiError::Invalid(format!(
            "the issuer was not saved: {}",
            text.join("; ")
        )));
    }
    let mut specs = state.org_issuer_specs(&caller.org.id).await?;
    let before = specs.iter().position(|s| s.issuer == spec.issuer);
    // A secret sent back as shown keeps the stored one.
    if let Some(client) = &mut spec.introspection
        && client.client_secret.as_deref() == Some(SEALED)
    {
        client.client_secret = before
            .and_then(|i| specs[i].introspection.as_ref())
            .and_then(|c| c.client_secret.clone());
    }
    let status = match before {
        Some(i) => {
            specs[i] = spec.clone();
            StatusCode::OK
        }
        None => {
            specs.push(spec.clone());
            StatusCode::CREATED
        }
    };
    state.save_org_issuer_specs(&caller.org.id, &specs).await?;
    audit(&state, &caller, "issuer.put", &spec.issuer);
    // Fetched now, so a wrong URL shows at once (saved anyway: the provider may come later).
    let issuers = state.issuers_of_org(&caller.org.id).await?;
    let unreachable: Vec<Value> = (issuers.warm().await.into_iter())
        .filter(|(issuer, _)| *issuer == spec.issuer)
        .map(|(issuer, why)| json!({"issuer": issuer, "why": why}))
        .collect();
    Ok((
        status,
        Json(json!({
            "org": caller.org.name,
            "issuer": redacted(spec),
            "reachable": unreachable.is_empty(),
            "unreachable": unreachable,
        })),
    ))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IssuerQuery {
    issuer: String,
}

/// Removes an issuer: its tokens are refused on every replica within a second.
pub(super) async fn delete(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    super::ApiQuery(q): super::ApiQuery<IssuerQuery>,
) -> Result<StatusCode, ApiError> {
    caller.require(MANAGE)?;
    let mut specs = state.org_issuer_specs(&caller.org.id).await?;
    let before = specs.len();
    specs.retain(|s| s.issuer != q.issuer);
    if specs.len() == before {
        return Err(ApiError::NotFound(format!(
            "org {} has no issuer {:?} (GET /api/identity/issuers lists them)",
            caller.org.name, q.issuer
        )));
    }
    state.save_org_issuer_specs(&caller.org.id, &specs).await?;
    audit(&state, &caller, "issuer.delete", &q.issuer);
    Ok(StatusCode::NO_CONTENT)
}

/// An audit row of a change to the org's issuers (`identity.issuer.put|delete`).
fn audit(state: &ControlPlane, caller: &ApiCaller, action: &str, issuer: &str) {
    state.audit.record_now(AuditEntry {
        at: now_ms(),
        org_id: Some(caller.org.id.clone()),
        token_id: Some(caller.token.id.clone()),
        action_id: format!("identity.{action}"),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        detail: Some(format!("{} issuer={issuer}", Surface::Rest.detail())),
        ..Default::default()
    });
}

fn redacted(mut spec: IssuerSpec) -> IssuerSpec {
    if let Some(client) = &mut spec.token_exchange
        && client.client_secret.is_some()
    {
        client.client_secret = Some(SEALED.into());
    }
    if let Some(client) = &mut spec.introspection
        && client.client_secret.is_some()
    {
        client.client_secret = Some(SEALED.into());
    }
    spec
}
