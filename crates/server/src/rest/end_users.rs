//! End users' credentials over REST: a platform's backend sets a user's secret for a
//! per-end-user server (write-only), lists what users granted, and revokes a grant.

use crate::control_plane::callers::{ApiCaller, MANAGE, VIEW};
use crate::control_plane::end_users::{GrantActor, check_end_user};
use crate::control_plane::{ApiError, ControlPlane};
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_store::GrantRow;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SetSecret {
    /// The user's API key or bearer token for the server (never answered back).
    secret: String,
}

/// A grant as answers show it: never its secret (the row holds none).
fn shown(row: &GrantRow) -> Value {
    serde_json::to_value(row).unwrap_or_default()
}

fn actor(caller: &ApiCaller) -> GrantActor<'_> {
    GrantActor {
        org_id: &caller.org.id,
        token_id: &caller.token.id,
    }
}

/// `PUT /api/end-users/{end_user}/credentials/{server}`: sets the user's secret.
pub(super) async fn set(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path((end_user, server)): Path<(String, String)>,
    body: Result<Json<SetSecret>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    caller.require_role(MANAGE)?;
    let Json(body) = body
        .map_err(|e| ApiError::Invalid(format!("{}; send {{\"secret\": \"…\"}}", e.body_text())))?;
    let row = (state.set_end_user_secret(actor(&caller), &end_user, &server, &body.secret)).await?;
    Ok(Json(json!({"grant": shown(&row)})))
}

/// `GET /api/end-users/{end_user}/grants`: what one end user granted.
pub(super) async fn list_one(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path(end_user): Path<String>,
) -> Result<Json<Value>, ApiError> {
    caller.require_role(VIEW)?;
    check_end_user(&end_user)?;
    let rows = state.store.grants(&caller.org.id, Some(&end_user)).await?;
    Ok(Json(
        json!({"grants": rows.iter().map(shown).collect::<Vec<_>>()}),
    ))
}

/// `GET /api/end-users/grants`: every grant of the org's end users.
pub(super) async fn list_all(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Json<Value>, ApiError> {
    caller.require_role(VIEW)?;
    let rows = state.store.grants(&caller.org.id, None).await?;
    Ok(Json(
        json!({"grants": rows.iter().map(shown).collect::<Vec<_>>()}),
    ))
}

/// `DELETE /api/end-users/{end_user}/grants/{server}`: revokes it on every replica.
pub(super) async fn revoke(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path((end_user, server)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    caller.require_role(MANAGE)?;
    let row = (state.revoke_end_user_grant(actor(&caller), &end_user, &server)).await?;
    Ok(Json(json!({"revoked": shown(&row)})))
}

/// The end user the caller is: a signed-in person's, or an access token's.
fn own_end_user(caller: &ApiCaller) -> Result<&str, ApiError> {
    caller.own_end_user().ok_or_else(|| {
        ApiError::Forbidden(
            "these routes are an end user's own: sign in with the org's provider (an account whose claims map to an end user), or call with an access token naming one; a platform lists anyone's at /api/end-users/{end_user}/grants".into(),
        )
    })
}

/// `GET /api/me/grants`: what the calling end user granted (no role needed: their own).
pub(super) async fn list_mine(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Json<Value>, ApiError> {
    let end_user = own_end_user(&caller)?;
    let rows = state.store.grants(&caller.org.id, Some(end_user)).await?;
    Ok(Json(
        json!({"end_user": end_user, "grants": rows.iter().map(shown).collect::<Vec<_>>()}),
    ))
}

/// `DELETE /api/me/grants/{server}`: the calling end user revokes their own grant.
pub(super) async fn revoke_mine(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path(server): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let end_user = own_end_user(&caller)?;
    let row = (state.revoke_end_user_grant(actor(&caller), end_user, &server)).await?;
    Ok(Json(json!({"revoked": shown(&row)})))
}
