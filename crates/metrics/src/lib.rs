//! Prometheus metrics of the gateway: families with bounded labels, fed by calls and scrapes.

mod families;
mod heap;
mod labels;
mod snapshot;

pub use heap::{HeapFigures, set_heap_reader};
pub use snapshot::{ServerGauges, Snapshot};

use families::Families;
use labels::{CallLabels, ConnectLabels, ServerLabel, TransitionLabels, VerdictLabels};
use std::sync::Arc;
use switchboard_core::{CallObserver, CallRecord, Effect};

/// Every metric of one gateway process. Cheap to share (`Arc`); calls only touch atomics and
/// a read-locked map of label sets.
pub struct Metrics {
    families: Families,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        Self {
            families: Families::new(),
        }
    }

    pub fn shared() -> Arc<Self> {
        Arc::new(Self::new())
    }

    /// A server changed state (`from` → `to`); `took` is how long a connect + discovery that
    /// ended here lasted. `org` declared the server (empty: the operator's config).
    pub fn transition(
        &self,
        org: &str,
        server: &str,
        from: &str,
        to: &str,
        took: Option<std::time::Duration>,
    ) {
        let f = &self.families;
        let org = labels::org(org);
        f.transitions
            .get_or_create(&TransitionLabels {
                server: server.into(),
                org: org.clone(),
                to: to.into(),
            })
            .inc();
        // Leaving `ready` for `connecting` or `error` is the connection lost: a restart follows.
        if from == "ready" && matches!(to, "connecting" | "error") {
            f.restarts
                .get_or_create(&ServerLabel {
                    server: server.into(),
                    org: org.clone(),
                })
                .inc();
        }
        if let Some(took) = took {
            let outcome = if to == "ready" { "ok" } else { "error" };
            f.connect_seconds
                .get_or_create(&ConnectLabels {
                    server: server.into(),
                    org,
                    outcome,
                })
                .observe(took.as_secs_f64());
        }
    }

    /// The text exposition (OpenMetrics, which Prometheus scrapes), with the scrape-time
    /// gauges set from `now`.
    pub fn render(&self, now: &Snapshot) -> String {
        self.families.render(now)
    }

    /// A sandboxed server's egress proxy refused a connection (`reason`: a short name).
    pub fn sandbox_egress_refused(&self, org: &str, server: &str, reason: &'static str) {
        (self.families.sandbox_egress_refusals)
            .get_or_create(&labels::EgressRefusalLabels {
                server: server.into(),
                org: labels::org(org),
                reason,
            })
            .inc();
    }
}

fn effect_name(effect: Effect) -> &'static str {
    match effect {
        Effect::Allow => "allow",
        Effect::Deny => "deny",
        Effect::Verify => "verify",
        Effect::Limit => "limit",
        Effect::Note => "note",
    }
}

impl CallObserver for Metrics {
    fn observe(&self, record: CallRecord) {
        self.observe_shared(&record);
    }

    fn observe_shared(&self, record: &CallRecord) {
        let f = &self.families;
        // Unknown tool names come from callers: one label value for all of them.
        let (server, action) = match &record.server {
            Some(server) => (server.as_str(), record.action_id.as_str()),
            None => ("", "mcp.unknown"),
        };
        let org = record.server_org.clone();
        let outcome = match record.outcome {
            Ok(()) => "ok",
            Err(kind) => kind.as_str(),
        };
        f.calls
            .get_or_create(&CallLabels {
                server: server.into(),
                org: org.clone(),
                action: action.into(),
                outcome,
            })
            .inc();
        let label = ServerLabel {
            server: server.into(),
            org,
        };
        let total = record.duration.as_secs_f64();
        f.call_seconds.get_or_create(&label).observe(total);
        if let Some(upstream) = record.upstream {
            let upstream = upstream.as_secs_f64();
            f.upstream_seconds.get_or_create(&label).observe(upstream);
            f.gateway_seconds
                .get_or_create(&label)
                .observe((total - upstream).max(0.0));
        } else {
            f.gateway_seconds.get_or_create(&label).observe(total);
        }
        for verdict in &record.verdicts {
            f.verdicts
                .get_or_create(&VerdictLabels {
                    stage: verdict.stage.clone(),
                    effect: effect_name(verdict.effect),
                })
                .inc();
        }
    }

    fn needs_sizes(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests;
