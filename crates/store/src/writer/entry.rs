//! The audit row a finished tool call leaves.

use crate::audit::AuditEntry;
use switchboard_core::{CallRecord, Effect, ErrorKind, Mode};

/// The audit row for one tool call.
pub fn entry_for(record: CallRecord) -> AuditEntry {
    let refused = matches!(
        record.outcome,
        Err(ErrorKind::PolicyDenied | ErrorKind::RateLimited)
    ) || record
        .verdicts
        .iter()
        .any(|v| v.mode == Mode::Enforce && matches!(v.effect, Effect::Deny | Effect::Limit));
    let verdict = if refused {
        "denied"
    } else if record.verdicts.iter().any(|v| v.mode == Mode::Observe) {
        // Let through, but a rule in observe mode would have refused it.
        "observed"
    } else {
        "allowed"
    };
    let outcome = match record.outcome {
        Ok(()) => "ok".to_string(),
        Err(kind) => kind.to_string(),
    };
    let policy = (!record.verdicts.is_empty())
        .then(|| serde_json::to_string(&record.verdicts).ok())
        .flatten();
    AuditEntry {
        at: crate::now_ms(),
        org_id: record.caller.org_id,
        agent_id: record.caller.agent_id,
        end_user_id: record.end_user_id,
        token_id: record.caller.token_id,
        action_id: record.action_id,
        server: record.server,
        verdict: verdict.into(),
        outcome,
        duration_us: record.duration.as_micros() as i64,
        request_bytes: record.request_bytes as i64,
        response_bytes: record.response_bytes as i64,
        detail: (record.caller.surface).map(|surface| surface.detail().to_owned()),
        policy,
    }
}
