//! The metric families, their buckets and names, and how a scrape sets the gauges.

use crate::labels::*;
use crate::snapshot::Snapshot;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// 100 µs to ~52 s: a gateway hop, a fast upstream and a slow one each land in a bucket.
fn call_buckets() -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        0.0001, 2.0, 20,
    ))
}

/// 10 ms to ~82 s: process starts and remote handshakes.
fn connect_buckets() -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        0.01, 2.0, 14,
    ))
}

const STATUSES: [&str; 6] = [
    "connecting",
    "authenticating",
    "ready",
    "error",
    "disabled",
    "idle",
];

pub(crate) struct Families {
    registry: Registry,
    pub calls: Family<CallLabels, Counter>,
    pub call_seconds: Histograms<ServerLabel>,
    pub upstream_seconds: Histograms<ServerLabel>,
    pub gateway_seconds: Histograms<ServerLabel>,
    pub verdicts: Family<VerdictLabels, Counter>,
    pub transitions: Family<TransitionLabels, Counter>,
    pub restarts: Family<ServerLabel, Counter>,
    pub connect_seconds: Histograms<ConnectLabels>,
    in_flight: Family<ServerLabel, Gauge>,
    queued: Family<ServerLabel, Gauge>,
    capability_sessions: Family<ServerLabel, Gauge>,
    end_user_sessions: Family<ServerLabel, Gauge>,
    status: Family<StatusLabels, Gauge>,
    sessions: Gauge,
    sessions_held: Gauge,
    session_refusals: Family<LimitLabel, Counter>,
    connections: Gauge,
    http_refusals: Family<LimitLabel, Counter>,
    token_refusals: Family<ReasonLabel, Counter>,
    pub sandbox_egress_refusals: Family<EgressRefusalLabels, Counter>,
    failed_auth: Counter,
    audit_queued: Gauge,
    audit_written: Counter,
    audit_failed_batches: Counter,
    audit_dropped: Counter,
    audit_failing: Gauge,
    audit_batches: Counter,
    audit_commit_seconds: Counter<f64, std::sync::atomic::AtomicU64>,
    /// One scrape at a time sets the scrape-time figures.
    rendering: switchboard_sync::Mutex<()>,
    store_connections: Gauge,
    store_idle: Gauge,
    heap_allocated: Gauge,
    heap_resident: Gauge,
}

impl Families {
    pub(crate) fn new() -> Self {
        let mut r = Registry::with_prefix("switchboard");
        let f = Self {
            calls: Family::default(),
            call_seconds: Histograms::new_with_constructor(call_buckets as fn() -> Histogram),
            upstream_seconds: Histograms::new_with_constructor(call_buckets as fn() -> Histogram),
            gateway_seconds: Histograms::new_with_constructor(call_buckets as fn() -> Histogram),
            verdicts: Family::default(),
            transitions: Family::default(),
            restarts: Family::default(),
            connect_seconds: Histograms::new_with_constructor(connect_buckets as fn() -> Histogram),
            in_flight: Family::default(),
            queued: Family::default(),
            capability_sessions: Family::default(),
            end_user_sessions: Family::default(),
            status: Family::default(),
            sessions: Gauge::default(),
            sessions_held: Gauge::default(),
            session_refusals: Family::default(),
            connections: Gauge::default(),
            http_refusals: Family::default(),
            token_refusals: Family::default(),
            sandbox_egress_refusals: Family::default(),
            failed_auth: Counter::default(),
            audit_queued: Gauge::default(),
            audit_written: Counter::default(),
            audit_failed_batches: Counter::default(),
            audit_dropped: Counter::default(),
            audit_failing: Gauge::default(),
            audit_batches: Counter::default(),
            audit_commit_seconds: Counter::default(),
            rendering: switchboard_sync::Mutex::new(()),
            store_connections: Gauge::default(),
            store_idle: Gauge::default(),
            heap_allocated: Gauge::default(),
            heap_resident: Gauge::default(),
            registry: Registry::default(),
        };
        let secs = Unit::Seconds;
        r.register(
            "tool_calls",
            "Tool calls by server, action (mcp.<server>.<tool>) and outcome (ok or the error kind)",
            f.calls.clone(),
        );
        r.register_with_unit(
            "tool_call_duration",
            "Whole tool call, as the caller waited for it",
            secs.clone(),
            f.call_seconds.clone(),
        );
        r.register_with_unit(
            "tool_call_upstream_duration",
            "Of a call, the upstream request itself",
            secs.clone(),
            f.upstream_seconds.clone(),
        );
        r.register_with_unit(
            "tool_call_gateway_duration",
            "Of a call, the gateway's own part: policy, queue, connect, audit hand-off",
            secs.clone(),
            f.gateway_seconds.clone(),
        );
        r.register(
            "policy_verdicts",
            "Policy stage verdicts (rate limits are effect=limit)",
            f.verdicts.clone(),
        );
        r.register(
            "server_transitions",
            "Server state changes, by the state entered",
            f.transitions.clone(),
        );
        r.register("server_restarts", "Connections lost after being ready (a crash, an idle stop excluded); each is followed by a reconnect with backoff", f.restarts.clone());
        r.register_with_unit(
            "server_connect_duration",
            "Connect + discovery (spawn or handshake, then listing tools, resources and prompts)",
            secs.clone(),
            f.connect_seconds.clone(),
        );
        r.register(
            "calls_in_flight",
            "Calls running now, per server",
            f.in_flight.clone(),
        );
        r.register(
            "upstream_capability_sessions",
            "Upstream sessions open for callers whose capabilities differ from the shared session's, per server",
            f.capability_sessions.clone(),
        );
        r.register(
            "upstream_end_user_sessions",
            "Upstream sessions open for end users of a per-end-user server (one per end user), per server",
            f.end_user_sessions.clone(),
        );
        r.register(
            "calls_queued",
            "Calls waiting for a slot now, per server",
            f.queued.clone(),
        );
        r.register(
            "server_status",
            "1 for the state each server is in, 0 for the others",
            f.status.clone(),
        );
        r.register(
            "downstream_sessions",
            "Downstream MCP sessions in memory (the rest of those held are parked in the store)",
            f.sessions.clone(),
        );
        r.register(
            "downstream_sessions_held",
            "Downstream MCP sessions this replica holds, in memory or parked ([limits] max_sessions)",
            f.sessions_held.clone(),
        );
        r.register(
            "downstream_session_refusals",
            "New downstream sessions refused, by the [limits] setting that refused them",
            f.session_refusals.clone(),
        );
        r.register(
            "http_connections",
            "HTTP connections open now ([limits] max_connections)",
            f.connections.clone(),
        );
        r.register(
            "http_refusals",
            "Connections and requests refused or cut off at the front door, by the [limits] setting",
            f.http_refusals.clone(),
        );
        r.register(
            "access_token_refusals",
            "Presented OAuth access tokens refused, by reason (expired, audience, unknown_issuer, …)",
            f.token_refusals.clone(),
        );
        r.register(
            "sandbox_egress_refusals",
            "Connections a sandboxed server asked its egress proxy for and was refused, per server, by reason (not_listed, port, egress, gateway, bad_request)",
            f.sandbox_egress_refusals.clone(),
        );
        r.register(
            "http_failed_auth",
            "Requests whose bearer token was refused (HTTP 401)",
            f.failed_auth.clone(),
        );
        r.register(
            "audit_queue_depth",
            "Audit rows waiting to be committed",
            f.audit_queued.clone(),
        );
        r.register(
            "audit_rows_written",
            "Audit rows committed",
            f.audit_written.clone(),
        );
        r.register(
            "audit_batches",
            "Audit commits (group commit)",
            f.audit_batches.clone(),
        );
        r.register(
            "audit_failed_batches",
            "Audit commits that failed",
            f.audit_failed_batches.clone(),
        );
        r.register(
            "audit_rows_dropped",
            "Audit rows never committed: the queue was full while the store refused rows, or the store still refused them at shutdown",
            f.audit_dropped.clone(),
        );
        r.register(
            "audit_store_failing",
            "1 while the store refuses audit rows (the last commit failed), else 0",
            f.audit_failing.clone(),
        );
        r.register_with_unit("audit_commit", "Time spent committing audit batches (rate over audit_batches rate: mean commit latency)", secs, f.audit_commit_seconds.clone());
        r.register(
            "store_connections",
            "Open connections of the store's pool",
            f.store_connections.clone(),
        );
        r.register(
            "store_idle_connections",
            "Idle connections of the store's pool",
            f.store_idle.clone(),
        );
        if crate::heap::known() {
            let bytes = Unit::Bytes;
            let (allocated, resident) = (f.heap_allocated.clone(), f.heap_resident.clone());
            r.register_with_unit(
                "heap_allocated",
                "Bytes the gateway's live allocations hold (the allocator's count)",
                bytes.clone(),
                allocated,
            );
            r.register_with_unit("heap_resident", "Bytes of RAM the allocator holds: live allocations, its caches and freed pages not yet returned", bytes, resident);
        }
        Self { registry: r, ..f }
    }

    pub(crate) fn render(&self, now: &Snapshot) -> String {
        let _one = self.rendering.lock();
        // Servers come and go: the per-server gauges hold exactly the servers there now.
        self.in_flight.clear();
        self.queued.clear();
        self.capability_sessions.clear();
        self.end_user_sessions.clear();
        self.status.clear();
        for s in &now.servers {
            let org = crate::labels::org(&s.org);
            let label = ServerLabel {
                server: s.server.clone(),
                org: org.clone(),
            };
            self.in_flight.get_or_create(&label).set(s.in_flight as i64);
            self.queued.get_or_create(&label).set(s.queued as i64);
            (self.capability_sessions.get_or_create(&label)).set(s.capability_sessions as i64);
            (self.end_user_sessions.get_or_create(&label)).set(s.end_user_sessions as i64);
            for status in STATUSES {
                let labels = StatusLabels {
                    server: s.server.clone(),
                    org: org.clone(),
                    status,
                };
                self.status
                    .get_or_create(&labels)
                    .set(i64::from(status == s.status));
            }
        }
        self.sessions.set(now.sessions as i64);
        self.sessions_held.set(now.sessions_held as i64);
        for (family, refusals) in [
            (&self.session_refusals, &now.session_refusals),
            (&self.http_refusals, &now.http_refusals),
        ] {
            for (limit, total) in refusals {
                let counter = family.get_or_create(&LimitLabel {
                    limit: limit.to_string(),
                });
                counter.inc_by(total.saturating_sub(counter.get()));
            }
        }
        for (reason, total) in &now.token_refusals {
            let counter = (self.token_refusals).get_or_create(&ReasonLabel {
                reason: reason.to_string(),
            });
            counter.inc_by(total.saturating_sub(counter.get()));
        }
        self.connections.set(now.connections as i64);
        self.audit_queued.set(now.audit_queued as i64);
        self.audit_failing.set(i64::from(now.audit_failing));
        // The writer counts; these counters follow it.
        for (counter, total) in [
            (&self.audit_written, now.audit_written),
            (&self.audit_batches, now.audit_batches),
            (&self.audit_failed_batches, now.audit_failed_batches),
            (&self.audit_dropped, now.audit_dropped),
            (&self.failed_auth, now.failed_auth),
        ] {
            counter.inc_by(total.saturating_sub(counter.get()));
        }
        let seconds = &self.audit_commit_seconds;
        seconds.inc_by((now.audit_commit_seconds - seconds.get()).max(0.0));
        self.store_connections.set(i64::from(now.store_connections));
        self.store_idle.set(now.store_idle as i64);
        if let Some(heap) = crate::heap::read() {
            self.heap_allocated.set(heap.allocated as i64);
            self.heap_resident.set(heap.resident as i64);
        }
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}
