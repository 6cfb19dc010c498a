//! Bounds that turn hostile or broken upstreams into clear errors instead of memory blowups.

/// Gateway-wide limits (the native config's `[limits]` table). Defaults are documented in
/// docs/configuration.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest JSON-RPC message accepted from an HTTP upstream (one SSE event).
    pub max_message_bytes: usize,
    /// Largest tool result (sum of its content and structured content).
    pub max_result_bytes: usize,
    /// Most tools kept from one server; the rest are dropped with a warning.
    pub max_tools_per_server: usize,
    /// Longest tool description kept; longer ones are cut with a warning.
    pub max_description_chars: usize,
    /// Largest input/output schema; a tool with a larger one is dropped with a warning.
    pub max_schema_bytes: usize,
    /// Calls in flight to one server at once; more wait for a slot within their timeout.
    pub max_concurrent_calls: usize,
    /// Calls waiting for a slot on one server; beyond that a call fails at once as
    /// `rate_limited` instead of queueing without bound.
    pub max_queued_calls: usize,
    /// Seconds a downstream session with nothing open stays in memory before it is parked
    /// in the store (restored on its next request); 0 never parks one.
    pub session_park_secs: usize,
    /// Downstream sessions this replica holds at once (in memory or parked); a new one past
    /// it is refused with HTTP 503.
    pub max_sessions: usize,
    /// Sessions one client address holds at once (IPv6 counted per /64); past it, 429.
    pub max_sessions_per_client: usize,
    /// Sessions one bearer token holds at once; past it, 429.
    pub max_sessions_per_token: usize,
    /// Sessions kept in memory at once; past it, the longest-idle one is parked early.
    pub max_sessions_in_memory: usize,
    /// Seconds a session may go unused before it ends (its saved row deleted); its next
    /// request is answered 404 and the client starts a new one.
    pub session_expire_secs: usize,
    /// Connections this replica holds open at once; one past it is answered 503 and closed.
    pub max_connections: usize,
    /// Connections one client address holds open (IPv6 counted per /64); past it, 429.
    pub max_connections_per_client: usize,
    /// Seconds a client may take to send a request's head (also how long an idle
    /// keep-alive connection stays open); then the connection is closed.
    pub header_read_secs: usize,
    /// Seconds a client may take to send a request's body; then 408.
    pub body_read_secs: usize,
    /// Largest request body accepted on `/mcp` and `/api`; a larger one is answered 413.
    pub max_request_bytes: usize,
    /// Requests (POST, DELETE) one downstream session has in flight at once; past it, 429.
    pub max_concurrent_requests_per_session: usize,
    /// Requests one bearer token (or, without one, one client address) has in flight at
    /// once on `/mcp` and `/api`; past it, 429.
    pub max_concurrent_requests_per_token: usize,
    /// Requests with a wrong bearer token one client address may make per minute; past
    /// it, every request bearing a token from that address is answered 429 for a while.
    pub failed_auth_per_minute: usize,
    /// Upstream sessions per remote server, beside the shared one, for callers whose
    /// capabilities differ (one per distinct set; a server on a revision before 2026-07-28 is
    /// told a session's capabilities once, at `initialize`). 0: every caller shares one.
    pub capability_sessions_per_server: usize,
    /// The same for a stdio server, where each is a process of its own: its in-memory state
    /// is split between them, so 0 (off) unless the operator knows the server keeps none.
    pub capability_sessions_per_stdio_server: usize,
    /// How long such a session may go unused before it is closed (a stdio server's process
    /// stopped).
    pub capability_session_idle_secs: usize,
    /// Upstream sessions one per-end-user server keeps open at once, one per end user; past
    /// it, the longest-unused one not in use is closed for the new one.
    pub end_user_sessions_per_server: usize,
    /// Processes one per-end-user stdio server runs at once, one per end user; past it,
    /// the longest-unused one not in use is stopped for the new one.
    pub end_user_processes_per_server: usize,
    /// How long an end user's upstream session may go unused before it is closed.
    pub end_user_session_idle_secs: usize,
    /// How long a call from a caller that declared URL elicitation waits for its end user to
    /// grant a per-end-user server (at most 600: a consent link lives ten minutes).
    pub consent_timeout_secs: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_message_bytes: 16 * 1024 * 1024,
            max_result_bytes: 8 * 1024 * 1024,
            max_tools_per_server: 1000,
            max_description_chars: 8 * 1024,
            max_schema_bytes: 64 * 1024,
            max_concurrent_calls: 32,
            max_queued_calls: 256,
            session_park_secs: 60,
            max_sessions: 20_000,
            max_sessions_per_client: 5_000,
            max_sessions_per_token: 5_000,
            max_sessions_in_memory: 1_000,
            session_expire_secs: 3_600,
            max_connections: 12_000,
            max_connections_per_client: 6_000,
            header_read_secs: 15,
            body_read_secs: 30,
            max_request_bytes: 4 * 1024 * 1024,
            max_concurrent_requests_per_session: 64,
            max_concurrent_requests_per_token: 512,
            failed_auth_per_minute: 10,
            capability_sessions_per_server: 4,
            capability_sessions_per_stdio_server: 0,
            capability_session_idle_secs: 300,
            end_user_sessions_per_server: 1000,
            end_user_processes_per_server: 20,
            end_user_session_idle_secs: 300,
            consent_timeout_secs: 300,
        }
    }
}

/// OS limits applied to one stdio server's process (`setrlimit` before exec).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcessLimits {
    /// Address space (virtual memory), in bytes.
    pub address_space_bytes: Option<u64>,
    /// CPU time, in seconds.
    pub cpu_seconds: Option<u64>,
    /// Open file descriptors.
    pub open_files: Option<u64>,
}

impl ProcessLimits {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}
