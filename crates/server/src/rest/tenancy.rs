//! Orgs and API tokens over REST (`/api/orgs`, `/api/tokens`): the CLI's `org` and `token`
//! commands for a caller with a token (only `gateway:operate` manages orgs).

use crate::control_plane::callers::ApiCaller;
use crate::control_plane::tenancy::{self, Actor};
use crate::control_plane::{ApiError, ControlPlane};
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_core::Surface;
use switchboard_store::now_ms;

fn actor(caller: &ApiCaller) -> Actor<'_> {
    Actor {
        token: Some(&caller.token),
        surface: Surface::Rest,
    }
}

fn body<T>(body: Result<Json<T>, JsonRejection>, shape: &str) -> Result<T, ApiError> {
    body.map(|Json(b)| b)
        .map_err(|e| ApiError::Invalid(format!("{}; send {shape}", e.body_text())))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewOrg {
    name: String,
    #[serde(default)]
    features: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OrgChange {
    features: Vec<String>,
}

/// `GET /api/orgs`: every live org (`gateway:operate`).
pub(super) async fn list_orgs(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Json<Value>, ApiError> {
    caller.require_role(crate::OPERATE)?;
    Ok(Json(json!({"orgs": state.store.orgs().await?})))
}

/// `POST /api/orgs`: a new org.
pub(super) async fn create_org(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    new: Result<Json<NewOrg>, JsonRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let new = body(
        new,
        r#"{"name": "ORG", "features": ["mcp_external_servers"]}"#,
    )?;
    let (org, audit) = tenancy::create_org(
        state.store.as_ref(),
        actor(&caller),
        &new.name,
        &new.features,
    )
    .await?;
    state.audit.record_now(audit);
    Ok((StatusCode::CREATED, Json(json!({"org": org}))))
}

/// `PATCH /api/orgs/{name}`: replaces the org's features.
pub(super) async fn update_org(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path(name): Path<String>,
    change: Result<Json<OrgChange>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let change = body(change, r#"{"features": ["mcp_external_servers"]}"#)?;
    let (org, audit) = tenancy::set_org_features(
        state.store.as_ref(),
        actor(&caller),
        &name,
        &change.features,
    )
    .await?;
    state.audit.record_now(audit);
    Ok(Json(json!({"org": org})))
}

/// `DELETE /api/orgs/{name}`: deletes it (refused while it has servers); its tokens stop.
pub(super) async fn delete_org(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let (org, audit) = tenancy::delete_org(state.store.as_ref(), actor(&caller), &name).await?;
    state.audit.record_now(audit);
    Ok(Json(json!({"deleted": org})))
}

#[derive(Debug, Deserialize)]
pub(super) struct TokenFilter {
    org: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewToken {
    /// Default: the caller's own org.
    org: Option<String>,
    roles: Vec<String>,
    /// A duration such as "30d" or "12h"; none: never expires.
    expires: Option<String>,
}

/// `GET /api/tokens[?org=NAME]`: tokens, never their secrets (the caller's org's, or any
/// org's for `gateway:operate`).
pub(super) async fn list_tokens(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    super::ApiQuery(filter): super::ApiQuery<TokenFilter>,
) -> Result<Json<Value>, ApiError> {
    let tokens =
        tenancy::list_tokens(state.store.as_ref(), actor(&caller), filter.org.as_deref()).await?;
    Ok(Json(json!({"tokens": tokens})))
}

/// `POST /api/tokens`: a new token; the secret is in this answer only.
pub(super) async fn create_token(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    new: Result<Json<NewToken>, JsonRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let new = body(new, r#"{"roles": ["integrations:view"], "expires": "30d"}"#)?;
    let org = new.org.unwrap_or_else(|| caller.org.name.clone());
    let (secret, token, audit) = tenancy::create_token(
        state.store.as_ref(),
        actor(&caller),
        &org,
        &new.roles,
        new.expires.as_deref(),
    )
    .await?;
    state.audit.record_now(audit);
    let mut shown = tenancy::shown(&token, &org, now_ms());
    shown["token"] = json!(secret);
    Ok((StatusCode::CREATED, Json(shown)))
}

/// `DELETE /api/tokens/{id}`: revokes it; every replica refuses it from its next request.
pub(super) async fn revoke_token(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let (token, audit) = tenancy::revoke_token(state.store.as_ref(), actor(&caller), &id).await?;
    state.audit.record_now(audit);
    let org = (state.store.org(&token.org_id).await?).map_or(String::new(), |o| o.name);
    Ok(Json(
        json!({"revoked": tenancy::shown(&token, &org, now_ms())}),
    ))
}
