//! `POST /api/integrations/mcp/servers/{id}/{operation}`: refresh, disable, enable and
//! reauthorize a server; every replica follows. An org's API servers need
//! `integrations:manage`; the operator's config-file servers (`config:NAME`) are shared by
//! every org, so they need `gateway:operate`.

use super::events::status_json;
use super::servers::{CONFIG_PREFIX, DISABLED, live_view, record_outcome};
use crate::control_plane::ApiError;
use crate::control_plane::callers::{ApiCaller, MANAGE, OPERATE};
use crate::control_plane::{ControlPlane, Source};
use axum::Json;
use axum::extract::{Path, State};
use serde_json::Value;
use switchboard_core::Surface;
use switchboard_registry::Registry;
use switchboard_store::{AuditEntry, ChangeKind, now_ms};

/// What an operation does, parsed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operation {
    Refresh,
    Disable,
    Enable,
    Reauthorize,
}

impl Operation {
    /// What the other replicas are told to do on a config-file server.
    fn change(self) -> ChangeKind {
        match self {
            Operation::Disable => ChangeKind::Disabled,
            Operation::Enable => ChangeKind::Enabled,
            Operation::Refresh | Operation::Reauthorize => ChangeKind::Refreshed,
        }
    }

    /// The operation another replica announced, if it was one.
    fn announced(kind: ChangeKind) -> Option<Self> {
        match kind {
            ChangeKind::Disabled => Some(Operation::Disable),
            ChangeKind::Enabled => Some(Operation::Enable),
            ChangeKind::Refreshed => Some(Operation::Refresh),
            ChangeKind::Saved
            | ChangeKind::Rediscovered
            | ChangeKind::Policy
            | ChangeKind::Identity
            | ChangeKind::Grant => None,
        }
    }

    fn parse(name: &str) -> Result<Self, ApiError> {
        match name {
            "refresh" => Ok(Self::Refresh),
            "disable" => Ok(Self::Disable),
            "enable" => Ok(Self::Enable),
            "reauthorize" => Ok(Self::Reauthorize),
            other => Err(ApiError::NotFound(format!(
                "no operation {other:?}; use refresh, disable, enable or reauthorize"
            ))),
        }
    }
}

pub(super) async fn run(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path((id, operation)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let op = Operation::parse(&operation)?;
    if let Some(name) = id.strip_prefix(CONFIG_PREFIX) {
        caller.require_role(OPERATE)?;
        let info = run_on_config_server(&state.registry, name, op).await?;
        state.announce_config(name, op.change()).await;
        audit(&state, &caller, &operation, name, &id);
        return Ok(Json(status_json(&info, Source::Config, true)));
    }
    caller.require(MANAGE)?;
    let mut row = state.live_row(&caller, &id).await?;
    match op {
        Operation::Refresh | Operation::Reauthorize if row.status == DISABLED => {
            return Err(disabled(&row.slug));
        }
        Operation::Refresh | Operation::Enable => row.status = "connecting".into(),
        Operation::Disable => row.status = DISABLED.into(),
        Operation::Reauthorize => {
            let registry = state.org_registry(&row.org_id);
            let info = registry
                .reauthorize(&row.slug)
                .await
                .map_err(|why| ApiError::Invalid(format!("{why}; use PATCH")))?;
            record_outcome(&mut row, &registry, info);
            state.store.update_server(&row).await?;
            state.audit_change(&caller, &operation, &row);
            return Ok(Json(live_view(&row, &registry)));
        }
    }
    state.reconnect_stored(&mut row).await?;
    state.store.update_server(&row).await?;
    state.announce(&row, ChangeKind::Saved).await;
    state.audit_change(&caller, &operation, &row);
    Ok(Json(live_view(&row, &state.org_registry(&row.org_id))))
}

/// Runs `op` on the config-file server `name` of this replica's registry.
async fn run_on_config_server(
    registry: &Registry,
    name: &str,
    op: Operation,
) -> Result<switchboard_registry::ServerInfo, ApiError> {
    let missing = || ApiError::NotFound(format!("no server {name} in the gateway's config files"));
    let current = registry.server(name).ok_or_else(missing)?;
    let info = match op {
        Operation::Disable => registry.disable(name).await,
        Operation::Enable => registry.enable(name).await,
        Operation::Refresh if current.status == switchboard_core::ServerStatus::Disabled => {
            return Err(disabled(name));
        }
        Operation::Refresh => registry.refresh(name).await,
        Operation::Reauthorize => Some(
            registry
                .reauthorize(name)
                .await
                .map_err(|why| ApiError::Invalid(format!("{why} in its config file")))?,
        ),
    };
    info.ok_or_else(missing)
}

/// Applies an operation another replica ran on a config-file server.
pub(super) async fn follow(registry: &Registry, name: &str, kind: ChangeKind) {
    let Some(op) = Operation::announced(kind) else {
        return;
    };
    if let Err(e) = run_on_config_server(registry, name, op).await {
        tracing::debug!(server = name, "not following {kind:?}: {e:?}");
    }
}

fn disabled(name: &str) -> ApiError {
    ApiError::Conflict(format!("server {name} is disabled; enable it first"))
}

fn audit(state: &ControlPlane, caller: &ApiCaller, operation: &str, name: &str, id: &str) {
    state.audit.record_now(AuditEntry {
        at: now_ms(),
        org_id: Some(caller.org.id.clone()),
        token_id: Some(caller.token.id.clone()),
        action_id: format!("config.{operation}"),
        server: Some(name.to_string()),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        detail: Some(format!("{} server_id={id}", Surface::Rest.detail())),
        ..Default::default()
    });
}
