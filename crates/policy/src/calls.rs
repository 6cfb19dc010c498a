//! The pipeline at call time: before a call (visibility, quarantine, rules, information
//! flow, rate limits, argument scan) and after it (taint, result scan).

use crate::{Pipeline, doc, ifc};
use serde_json::Value;
use switchboard_core::trace_span;
use switchboard_core::{Admission, CallContext, CallError, Effect, ErrorKind, Verdict, Visibility};
use switchboard_store::Admit;
use tracing::Instrument;

impl Pipeline {
    pub(crate) async fn admit_call(&self, call: CallContext<'_>) -> Admission {
        let mut verdicts = Vec::new();
        let sets = self.sets(call.caller);
        let sets = match sets.instrument(trace_span!("policy.load")).await {
            Ok(sets) => sets,
            Err(e) => {
                verdicts.push(Verdict::new("rules", Effect::Deny).reason(e.clone()));
                return Admission::refused(
                    verdicts,
                    CallError::new(
                        ErrorKind::PolicyDenied,
                        format!("{e}; calls fail closed until it can"),
                    ),
                );
            }
        };
        let toggles = self.toggles(call.caller);
        let toggles = match toggles.instrument(trace_span!("policy.visibility")).await {
            Ok(t) => t,
            Err(e) => {
                verdicts.push(
                    Verdict::new("visibility", Effect::Deny)
                        .reason(format!("toggles unreadable: {e}")),
                );
                return Admission::refused(
                    verdicts,
                    CallError::new(
                        ErrorKind::PolicyDenied,
                        format!("the agent's enabled actions cannot be read: {e}"),
                    ),
                );
            }
        };
        match Self::visibility_of(&sets, &toggles, call.caller, &call.tool) {
            // Quarantine is checked after visibility: a hidden tool still answers as unknown.
            Visibility::Visible if call.quarantined.is_some() => {
                let reason = call.quarantined.unwrap_or_default();
                verdicts.push(Verdict::new("review", Effect::Deny).reason(reason));
                return Admission::refused(
                    verdicts,
                    CallError::new(
                        ErrorKind::PolicyDenied,
                        format!("{} is quarantined: {reason}", call.tool.action),
                    ),
                );
            }
            Visibility::Visible => {}
            Visibility::Hidden => {
                verdicts.push(
                    Verdict::new("visibility", Effect::Deny).reason("hidden by configuration"),
                );
                return Admission::refused(
                    verdicts,
                    CallError::new(ErrorKind::ToolNotFound, "hidden"),
                );
            }
            Visibility::Denied(reason) => {
                verdicts.push(Verdict::new("visibility", Effect::Deny).reason(reason.clone()));
                return Admission::refused(
                    verdicts,
                    CallError::new(ErrorKind::PolicyDenied, reason),
                );
            }
        }
        // Each set's allow rules permit flows under that set's own flow policy only: an org
        // cannot switch off the operator's information-flow control.
        let mut allowed = Vec::with_capacity(sets.len());
        for set in &sets {
            let outcome = set
                .rules
                .evaluate(&call, &self.inner.http, &mut verdicts)
                .instrument(trace_span!("policy.rules"))
                .await;
            allowed.push(outcome.allowed);
            if let Some(refused) = outcome.refused {
                return Admission::refused(verdicts, refused);
            }
        }
        for (set, allowed) in sets.iter().zip(allowed) {
            if !set.flow.enabled {
                continue;
            }
            let labels = self.labels(&call.tool, set);
            if let Some(refused) = ifc::check(
                &set.flow,
                labels,
                &self.inner.taint,
                &call,
                allowed,
                &self.inner.http,
                &mut verdicts,
            )
            .instrument(trace_span!("policy.flow"))
            .await
            {
                return Admission::refused(verdicts, refused);
            }
        }
        for (i, set) in sets.iter().enumerate() {
            for limit in set
                .limits
                .iter()
                .filter(|l| l.applies(call.tool.action.as_str()))
            {
                let owner = match i {
                    0 => "operator".to_string(),
                    _ => format!("org:{}", call.caller.org_id.as_deref().unwrap_or("-")),
                };
                let key = limit.key(&owner, &call);
                let admit = self.inner.limiter.admit(&key, limit.quota);
                match admit.instrument(trace_span!("policy.rate_limit")).await {
                    Ok(Admit::Yes) => {}
                    Ok(Admit::RetryAfterUs(us)) => {
                        let ms = us.div_ceil(1000);
                        verdicts.push(
                            Verdict::new("rate_limit", Effect::Limit)
                                .rule(&limit.name)
                                .reason(format!("retry after {ms} ms")),
                        );
                        return Admission::refused(
                            verdicts,
                            CallError::new(
                                ErrorKind::RateLimited,
                                format!(
                                    "rate limit {:?} reached for {}; retry after {ms} ms",
                                    limit.name, call.tool.action
                                ),
                            )
                            .with_retry_after_ms(ms),
                        );
                    }
                    Err(e) => {
                        verdicts.push(
                            Verdict::new("rate_limit", Effect::Limit)
                                .rule(&limit.name)
                                .reason(e.clone()),
                        );
                        return Admission::refused(verdicts, CallError::new(ErrorKind::RateLimited, format!("{e}; limited calls fail closed (set [policy] on_store_error = \"local\" to limit in-process instead)")).with_retry_after_ms(1000));
                    }
                }
            }
        }
        // The operator's set (always first) decides scanning; no second lock for it.
        if sets[0].doc.scan.as_ref().and_then(|s| s.calls) == Some(true)
            && let Some(args) = call.arguments
        {
            let _scan = trace_span!("policy.scan").entered();
            let findings =
                switchboard_scan::scan_text(&serde_json::to_string(args).unwrap_or_default());
            if !findings.is_empty() {
                verdicts.push(
                    Verdict::new("scan", Effect::Note)
                        .reason(format!("{} finding(s) in the arguments", findings.len())),
                );
            }
        }
        Admission::allowed(verdicts)
    }

    pub(crate) fn scans_calls(&self) -> bool {
        self.operator().doc.scan.as_ref().and_then(|s| s.calls) == Some(true)
    }

    pub(crate) async fn after_call(
        &self,
        call: CallContext<'_>,
        ok: bool,
        result: Option<&Value>,
    ) -> Vec<Verdict> {
        let mut verdicts = Vec::new();
        if let Some(result) = result {
            let _scan = trace_span!("policy.scan").entered();
            let findings = switchboard_scan::scan_text(&result.to_string());
            if !findings.is_empty() {
                verdicts.push(
                    Verdict::new("scan", Effect::Note)
                        .reason(format!("{} finding(s) in the result", findings.len())),
                );
            }
        }
        let Some(session) = call.caller.session.as_deref().filter(|_| ok) else {
            return verdicts;
        };
        // Nothing to record when no set that applies tracks information flow.
        if call.caller.org_id.is_none() && !self.operator().flow.enabled {
            return verdicts;
        }
        let sets = match self.sets(call.caller).await {
            Ok(sets) => sets,
            Err(e) => {
                verdicts.push(
                    Verdict::new("ifc", Effect::Note).reason(format!("taint not recorded: {e}")),
                );
                return verdicts;
            }
        };
        for set in sets {
            if !set.flow.enabled {
                continue;
            }
            let labels = self.labels(&call.tool, &set);
            for label in [doc::Label::ReadsSensitive, doc::Label::UntrustedOutput] {
                if !labels.has(label) {
                    continue;
                }
                let verdict = match self
                    .inner
                    .taint
                    .add(session, label, call.tool.action.as_str())
                    .instrument(trace_span!("policy.flow"))
                    .await
                {
                    Ok(()) => Verdict::new("ifc", Effect::Note)
                        .reason(format!("session taint +{}", label.as_str())),
                    Err(e) => Verdict::new("ifc", Effect::Note)
                        .reason(format!("session taint +{} not saved: {e}", label.as_str())),
                };
                if !verdicts.contains(&verdict) {
                    verdicts.push(verdict);
                }
            }
        }
        verdicts
    }
}
