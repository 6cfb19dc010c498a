//! `GET /api/audit`: the caller's org's audit rows, filtered; `GET /api/audit/verify`: the
//! whole hash chain checked (an operator's question: it spans every org).

use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
use crate::control_plane::callers::{ApiCaller, OPERATE, VIEW};
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_store::AuditFilter;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AuditQuery {
    agent_id: Option<String>,
    action_id: Option<String>,
    server: Option<String>,
    outcome: Option<String>,
    after_seq: Option<i64>,
    before_seq: Option<i64>,
    newest_first: Option<bool>,
    since_ms: Option<i64>,
    limit: Option<i64>,
}

pub(super) async fn list(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    super::ApiQuery(q): super::ApiQuery<AuditQuery>,
) -> Result<Json<Value>, ApiError> {
    caller.require_role(VIEW)?;
    let limit = q.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::Invalid("limit must be 1 to 1000".into()));
    }
    let rows = state
        .store
        .audit(&AuditFilter {
            org_id: Some(caller.org.id.clone()),
            agent_id: q.agent_id,
            action_id: q.action_id,
            server: q.server,
            outcome: q.outcome,
            after_seq: q.after_seq,
            before_seq: q.before_seq,
            newest_first: q.newest_first.unwrap_or(false),
            since_ms: q.since_ms,
            limit: Some(limit),
        })
        .await?;
    // The next page starts after the last row read (`after_seq`, or `before_seq` newest first).
    let next = rows.last().map(|r| r.seq);
    let next_key = if q.newest_first == Some(true) {
        "next_before_seq"
    } else {
        "next_after_seq"
    };
    Ok(Json(json!({"rows": rows, next_key: next})))
}

/// Walks the audit chain from its first row: `{"ok": true, "rows": N}`, or where it breaks
/// (`{"ok": false, "problem": "row 12 was altered…"}`), as `switchboard audit verify --json`.
pub(super) async fn verify(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Json<Value>, ApiError> {
    caller.require_role(OPERATE)?;
    let chain = switchboard_store::Chain::new(state.sealer.audit_key());
    let outcome = switchboard_store::verify_audit(state.store.as_ref(), &chain, |_| {}).await?;
    Ok(Json(match outcome {
        Ok(rows) => json!({"ok": true, "rows": rows}),
        Err(broken) => json!({"ok": false, "problem": broken.to_string()}),
    }))
}
