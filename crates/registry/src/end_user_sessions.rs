//! Each end user's own upstream session with a per-end-user server, opened with their grant
//! and never shared (a stdio server's: their own process): at most
//! `end_user_sessions_per_server` per server (`end_user_processes_per_server` for stdio; past
//! it the longest unused one not in use is closed), closed after `end_user_session_idle_secs`
//! unused, and replaced when the user's grant changes.

use crate::session_slots::{Slot, Slots};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use switchboard_core::{CallError, ErrorKind, Grant, Limits, ServerSpec};
use switchboard_upstream::{ConnectOptions, Connection, UpstreamError};

/// A slot tagged with the id of the grant its session was opened with.
pub(crate) type GrantSlot = Arc<Slot<String>>;

/// Every end user's sessions of one registry, by server and grant key.
pub(crate) struct EndUserSessions {
    slots: Slots<String>,
    per_server: usize,
    /// The bound for a stdio server, whose sessions are processes.
    per_stdio_server: usize,
    idle: Duration,
}

impl EndUserSessions {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            slots: Slots::default(),
            per_server: limits.end_user_sessions_per_server.max(1),
            per_stdio_server: limits.end_user_processes_per_server.max(1),
            idle: Duration::from_secs(limits.end_user_session_idle_secs as u64),
        }
    }

    /// The session in `slot` (from [`EndUserSessions::slot`]), opened with `grant` (kept
    /// under `key`) if it has none.
    pub(crate) async fn connection(
        &self,
        slot: GrantSlot,
        spec: &ServerSpec,
        connect: &ConnectOptions,
        (key, grant): (&str, &Grant),
    ) -> Result<Arc<Connection>, UpstreamError> {
        slot.session(async {
            tracing::debug!(server = %spec.name, grant = %grant.id, "opening an end user's session");
            Connection::connect(&spec.as_end_user(key, &grant.secret), connect).await
        })
        .await
    }

    /// The slot of the end user whose grant is stored as `key`: the one there if it was
    /// opened with `grant`, else a new one (making room within the bound).
    pub(crate) fn slot(
        &self,
        spec: &ServerSpec,
        key: &str,
        grant: &Grant,
    ) -> Result<GrantSlot, CallError> {
        let mut slots = self.slots.lock();
        let of_server = slots.entry(spec.name.to_string()).or_default();
        if let Some(slot) = of_server.get(key) {
            if slot.tag == grant.id {
                return Ok(slot.clone());
            }
            // A new grant (a new key, a grant made again): the old session goes.
            slot.close();
            of_server.remove(key);
        }
        let bound = match spec.is_remote() {
            true => self.per_server,
            false => self.per_stdio_server,
        };
        if of_server.len() >= bound {
            let oldest = (of_server.iter())
                .filter(|(_, slot)| slot.unused())
                .min_by_key(|(_, slot)| slot.used_at())
                .map(|(key, _)| key.clone());
            let Some(oldest) = oldest else {
                return Err(CallError::new(
                    ErrorKind::RateLimited,
                    format!(
                        "server {} has {bound} end users' sessions open, all in use; try again, or raise [limits] {}",
                        spec.name,
                        match spec.is_remote() {
                            true => "end_user_sessions_per_server",
                            false => "end_user_processes_per_server",
                        }
                    ),
                ));
            };
            if let Some(slot) = of_server.remove(&oldest) {
                slot.close();
            }
        }
        let slot = Slot::new(grant.id.clone());
        of_server.insert(key.to_string(), slot.clone());
        Ok(slot)
    }

    /// Closes the session of the grant stored as `key` on `server` (revoked, refused).
    pub(crate) fn close(&self, server: &str, key: &str) {
        let mut slots = self.slots.lock();
        if let Some(slot) = slots.get_mut(server).and_then(|s| s.remove(key)) {
            slot.close();
        }
    }

    /// Closes every end user's session of `server`.
    pub(crate) fn close_server(&self, server: &str) {
        self.slots.close_server(server);
    }

    /// Sessions open per server now.
    pub(crate) fn open_per_server(&self) -> HashMap<String, usize> {
        self.slots.open_per_server()
    }

    /// Closes the sessions unused for longer than the idle limit, and every session of a
    /// server `keep` says no longer runs; none in use.
    pub(crate) fn close_idle(&self, keep: impl Fn(&str) -> bool) {
        let closed = self.slots.close_idle(self.idle, keep);
        if closed > 0 {
            tracing::debug!(sessions = closed, "closing unused end users' sessions");
        }
    }
}
