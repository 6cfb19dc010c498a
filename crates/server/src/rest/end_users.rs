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
