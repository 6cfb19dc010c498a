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
    let detail = detail(&record.caller, record.end_user_id.is_some());
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
        detail,
        policy,
    }
}

/// The row's detail: the surface, where its end user came from, and the access token's
/// subject (`issuer#sub`) when one authorised the call.
fn detail(caller: &switchboard_core::Caller, has_end_user: bool) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(surface) = caller.surface {
        parts.push(surface.detail().to_owned());
    }
    if has_end_user {
        let source = (caller.end_user_source).unwrap_or(switchboard_core::EndUserSource::Asserted);
        parts.push(format!("end_user_source={}", source.as_str()));
    }
    if let Some(subject) = &caller.subject {
        parts.push(format!("subject={subject}"));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}
