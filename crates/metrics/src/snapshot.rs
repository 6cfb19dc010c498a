//! What is read at scrape time: the per-server and process-wide gauges' values.

/// One server's figures at scrape time.
#[derive(Debug, Clone)]
pub struct ServerGauges {
    pub server: String,
    /// The org that declared the server, empty for the operator's config servers.
    pub org: String,
    pub status: &'static str,
    pub in_flight: usize,
    pub queued: usize,
    /// Upstream sessions open for callers' capability sets, beside the shared one.
    pub capability_sessions: usize,
    /// Upstream sessions open for end users of a per-end-user server, one per end user.
    pub end_user_sessions: usize,
}

/// What is read when Prometheus scrapes (state, not events).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub servers: Vec<ServerGauges>,
    /// Downstream MCP sessions held in memory now.
    pub sessions: usize,
    /// Downstream MCP sessions held now, in memory or parked.
    pub sessions_held: usize,
    /// New sessions refused so far, by the `[limits]` setting that refused them.
    pub session_refusals: Vec<(&'static str, u64)>,
    /// HTTP connections open now.
    pub connections: usize,
    /// Connections and requests refused (or cut off) at the front door so far, by the
    /// `[limits]` setting that refused them.
    pub http_refusals: Vec<(&'static str, u64)>,
    /// Presented access tokens refused, by reason (`expired`, `audience`, …).
    pub token_refusals: Vec<(&'static str, u64)>,
    /// Requests whose bearer token was refused (HTTP 401) so far.
    pub failed_auth: u64,
    /// Audit rows waiting to be committed, and the queue's bound.
    pub audit_queued: usize,
    pub audit_written: u64,
    pub audit_failed_batches: u64,
    /// Audit rows never committed (queue full while the store was down, or refused at shutdown).
    pub audit_dropped: u64,
    /// Whether the store is refusing audit rows now.
    pub audit_failing: bool,
    pub audit_batches: u64,
    /// Seconds spent committing audit batches, in total.
    pub audit_commit_seconds: f64,
    /// The store's connection pool: open and idle connections.
    pub store_connections: u32,
    pub store_idle: usize,
}
