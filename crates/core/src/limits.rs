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
