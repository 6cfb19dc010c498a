//! A server's mutable state behind its entry's lock: status (with its recent history),
//! connection, discovery, failures and backoff, authorization.

use crate::lifecycle::MAX_FAILURES;
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::SystemTime;
use switchboard_core::ServerStatus;
use switchboard_upstream::{Connection, Snapshot};

/// How many state changes a server keeps.
pub(super) const HISTORY: usize = 20;

/// One state change of a server: to what, and when (milliseconds since the Unix epoch).
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct StatusChange {
    pub status: ServerStatus,
    pub at_ms: i64,
}

/// The grant a per-end-user server without a discovery credential lists its tools with.
pub(crate) struct DiscoveryGrant {
    /// Where it is kept (revoked or replaced: list again).
    pub key: String,
    pub id: String,
    pub secret: String,
}

#[derive(Default)]
pub(crate) struct State {
    /// The state changes, oldest first: the last one is the server's state now.
    history: VecDeque<StatusChange>,
    pub connection: Option<Arc<Connection>>,
    pub snapshot: Option<Snapshot>,
    pub last_error: Option<String>,
    pub discovered_at: Option<SystemTime>,
    /// When the last call ended (or the server started): the idle clock.
    pub last_used: Option<tokio::time::Instant>,
    /// Failed starts and crashes since the last successful call.
    pub failures: u32,
    /// No start attempt before this (backoff after a failure).
    pub retry_at: Option<std::time::Instant>,
    /// Turned off at run time (`disable`); the spec and credentials are kept.
    pub disabled: bool,
    /// Where a person authorizes the gateway: while `authenticating`, or while a tool waits
    /// for more scope.
    pub authorize_url: Option<String>,
    /// The last failure was refused credentials (calls fail as `auth_unavailable`).
    pub auth_refused: bool,
    /// Connection attempts begun so far (calls waiting on one learn that it ran).
    pub attempts: u64,
    /// When the server began waiting in `authenticating` (its link expires).
    pub authorize_since: Option<tokio::time::Instant>,
    /// A per-end-user server without a discovery credential: the end user's grant its
    /// tools are listed with (never used for a call).
    pub discovery_grant: Option<DiscoveryGrant>,
}

impl State {
    pub(crate) fn starting(status: ServerStatus) -> Self {
        let mut state = State::default();
        state.set_status(status);
        state
    }

    /// The server's state now (`connecting` before any was set).
    pub(crate) fn status(&self) -> ServerStatus {
        self.history
            .back()
            .map_or(ServerStatus::Connecting, |c| c.status)
    }

    /// Moves to `status`, noting the change (a state set again is not a change).
    pub(crate) fn set_status(&mut self, status: ServerStatus) {
        if self.history.back().is_some_and(|c| c.status == status) {
            return;
        }
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        let at_ms = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        self.history.push_back(StatusChange { status, at_ms });
    }

    /// The last changes, oldest first.
    pub(crate) fn history(&self) -> impl Iterator<Item = StatusChange> + '_ {
        self.history.iter().copied()
    }

    /// Drops the authorization link (and its age).
    pub(crate) fn clear_link(&mut self) {
        self.authorize_url = None;
        self.authorize_since = None;
    }

    /// Credentials refused for good (or an authorization that did not finish): `error` with
    /// `message` until the server is refreshed, reauthorized or given new credentials; calls
    /// fail at once as `auth_unavailable` instead of quietly starting over. Returns the
    /// connection to close.
    pub(crate) fn refuse(&mut self, message: String) -> Option<Arc<Connection>> {
        self.set_status(ServerStatus::Error);
        self.failures = MAX_FAILURES;
        self.retry_at = None;
        self.auth_refused = true;
        self.clear_link();
        self.last_error = Some(message);
        self.connection.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_keeps_the_last_changes_and_skips_repeats() {
        let mut state = State::starting(ServerStatus::Connecting);
        state.set_status(ServerStatus::Connecting);
        state.set_status(ServerStatus::Ready);
        let seen: Vec<_> = state.history().map(|c| c.status).collect();
        assert_eq!(seen, [ServerStatus::Connecting, ServerStatus::Ready]);
        for _ in 0..HISTORY {
            state.set_status(ServerStatus::Error);
            state.set_status(ServerStatus::Ready);
        }
        let changes: Vec<_> = state.history().collect();
        assert_eq!(changes.len(), HISTORY);
        assert_eq!(changes.last().unwrap().status, ServerStatus::Ready);
        assert!(changes.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    }
}
