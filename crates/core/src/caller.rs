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
    /// Where the call came in; `None` for a library caller that did not say.
    pub surface: Option<Surface>,
    /// The downstream MCP session (or the caller's `_meta["switchboard/conversation_id"]`):
    /// what information-flow taint is kept under.
    pub session: Option<String>,
    /// The verified access token's `issuer#subject`, when an OAuth token authorised the call.
    pub subject: Option<String>,
    /// Where the call's end user came from (`None` with no end user, or a library caller).
    pub end_user_source: Option<crate::EndUserSource>,
    /// Whether the caller may assert end users that per-end-user servers trust: the operator,
    /// or an API token or access token holding the role `end_users:assert`.
    pub asserts_end_users: bool,
    /// The caller's own access token, where its issuer may exchange it (`token_exchange`).
    pub inbound: Option<std::sync::Arc<crate::end_user::InboundToken>>,
}

/// The face of the gateway a call came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// An MCP endpoint (`/mcp`, an agent endpoint, `switchboard stdio`).
    Mcp,
    /// The REST API.
    Rest,
    /// The command line (`switchboard call`, the policy commands).
    Cli,
}

impl Surface {
    /// How logs, traces and audit rows name it: `mcp`, `rest` or `cli`.
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Mcp => "mcp",
            Surface::Rest => "rest",
            Surface::Cli => "cli",
        }
    }

    /// How an audit row's detail names it: `surface=mcp`, `surface=rest` or `surface=cli`.
    pub fn detail(self) -> &'static str {
        match self {
            Surface::Mcp => "surface=mcp",
            Surface::Rest => "surface=rest",
            Surface::Cli => "surface=cli",
        }
    }
}

/// One finished tool call, as the audit log records it (never argument values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRecord {
    pub caller: Caller,
    pub end_user_id: Option<String>,
    /// `mcp.<server>.<tool>`; for an unknown name, `mcp.unknown.<name>`.
    pub action_id: String,
    pub server: Option<String>,
    /// The org that declared `server` (connected it through the API); `None` for the
    /// operator's config servers and unknown names.
    pub server_org: Option<std::sync::Arc<str>>,
    pub outcome: Result<(), ErrorKind>,
    pub duration: Duration,
    /// Of `duration`, the time spent in the upstream request itself (`None`: the call never
    /// reached the upstream); the rest is the gateway's (policy, queue, connect, audit).
    pub upstream: Option<Duration>,
    pub request_bytes: usize,
    pub response_bytes: usize,
    /// Every policy stage's verdict on the call.
    pub verdicts: Vec<crate::Verdict>,
}

/// Hears about every tool call. Must return quickly: it runs on the call path.
pub trait CallObserver: Send + Sync + 'static {
    fn observe(&self, record: CallRecord);

    /// Hears a call another observer will own next (metrics read it without a copy).
    fn observe_shared(&self, record: &CallRecord) {
        self.observe(record.clone());
    }

    /// Whether this observer reads `request_bytes` (measuring them costs a serialisation).
    fn needs_sizes(&self) -> bool {
        true
    }

    /// Hears a call whose answer may wait for this observer: `Some` is a future the call
    /// awaits before its answer is released (strict audit durability), and an error there
    /// withholds the answer. The default hears it like `observe` and holds nothing back.
    fn observe_durably(
        &self,
        record: CallRecord,
    ) -> Option<crate::GuardFuture<'static, Result<(), crate::CallError>>> {
        self.observe(record);
        None
    }

    /// Why no call may start now (strict audit durability with the store not taking rows),
    /// checked before a call goes upstream.
    fn refuses_calls(&self) -> Option<crate::CallError> {
        None
    }
}

/// Several observers hearing every call, in order; the last owns the record (put the one
/// that keeps it, the audit log, last).
pub struct Observers(pub Vec<std::sync::Arc<dyn CallObserver>>);

impl CallObserver for Observers {
    fn observe(&self, record: CallRecord) {
        if let Some((last, rest)) = self.0.split_last() {
            for observer in rest {
                observer.observe_shared(&record);
            }
            last.observe(record);
        }
    }

    fn needs_sizes(&self) -> bool {
        self.0.iter().any(|o| o.needs_sizes())
    }

    fn observe_durably(
        &self,
        record: CallRecord,
    ) -> Option<crate::GuardFuture<'static, Result<(), crate::CallError>>> {
        let (last, rest) = self.0.split_last()?;
        for observer in rest {
            observer.observe_shared(&record);
        }
        last.observe_durably(record)
    }

    fn refuses_calls(&self) -> Option<crate::CallError> {
        self.0.iter().find_map(|o| o.refuses_calls())
    }
}

impl std::fmt::Debug for dyn CallObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<call observer>")
    }
}
