//! `POST /api/integrations/mcp/servers/{id}/{operation}`: refresh, disable, enable and
//! reauthorize an org's server; every replica follows.

use super::auth::{ApiCaller, MANAGE};
use super::servers::{DISABLED, refuse_config_server, view};
use super::{ApiError, ApiState};
use axum::Json;
use axum::extract::{Path, State};
use serde_json::Value;
use switchboard_store::ChangeKind;

pub async fn run(
    State(state): State<ApiState>,
    caller: ApiCaller,
    Path((id, operation)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    caller.require(MANAGE)?;
    refuse_config_server(&id)?;
    let mut row = state.live_row(&caller, &id).await?;
    match operation.as_str() {
        "refresh" if row.status == DISABLED => {
            return Err(ApiError::Conflict(format!(
                "server {} is disabled; enable it first",
                row.slug
            )));
        }
        "refresh" | "enable" => row.status = "connecting".into(),
        "disable" => row.status = DISABLED.into(),
        "reauthorize" => {
            return Err(ApiError::Invalid(format!(
                "server {} uses auth_method {}, which has no authorization flow to run again; change its credentials with PATCH",
                row.slug, row.auth_method
            )));
        }
        other => {
            return Err(ApiError::NotFound(format!(
                "no operation {other:?}; use refresh, disable, enable or reauthorize"
            )));
        }
    }
    state.reconnect_stored(&mut row).await?;
    state.store.update_server(&row).await?;
    state.announce(&row, ChangeKind::Saved).await;
    state.audit_change(&caller, &operation, &row);
    Ok(Json(view(&row)))
}
