//! Who a call is made for, and what an observer (the audit log) hears about each call.

use crate::ErrorKind;
use std::time::Duration;

/// The identity a call carries from the surface it came in on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    pub org_id: Option<String>,
    pub agent_id: Option<String>,
    /// Id (never the secret) of the API token that authorised the call.
    pub token_id: Option<String>,
    /// `mcp`, `rest` or `cli`.
    pub surface: &'static str,
    /// The downstream MCP session (or the caller's `_meta["switchboard/conversation_id"]`):
    /// what information-flow taint is kept under.
    pub session: Option<String>,
}

/// One finished tool call, as the audit log records it (never argument values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRecord {
    pub caller: Caller,
    pub end_user_id: Option<String>,
    /// `mcp.<server>.<tool>`; for an unknown name, `mcp.unknown.<name>`.
    pub action_id: String,
    pub server: Option<String>,
    pub outcome: Result<(), ErrorKind>,
    pub duration: Duration,
    pub request_bytes: usize,
    pub response_bytes: usize,
    /// Every policy stage's verdict on the call.
    pub verdicts: Vec<crate::Verdict>,
}

/// Hears about every tool call. Must return quickly: it runs on the call path.
pub trait CallObserver: Send + Sync + 'static {
    fn observe(&self, record: CallRecord);
}

impl std::fmt::Debug for dyn CallObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<call observer>")
    }
}
