//! Upstream sessions for callers who can answer other things than the shared session declares
//! (servers on revisions before 2026-07-28 learn a client's capabilities once): one per server
//! and distinct capability set, at most `capability_sessions_per_server` of them (stdio servers:
//! `capability_sessions_per_stdio_server`, off by default: each is a process, with state of its
//! own), closed after `capability_session_idle_secs` unused. Past the bound a caller gets the
//! open session that asks it nothing it cannot answer and declares the most, or the shared one.

use crate::session_slots::{Slot, Slots};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use switchboard_core::{Limits, ServerSpec};
use switchboard_upstream::{CapabilitySet, ConnectOptions, Connection, UpstreamError};

/// The capability sessions of one registry, by server and set.
pub(crate) struct CapabilitySessions {
    slots: Slots<CapabilitySet>,
    per_server: usize,
    per_stdio_server: usize,
    idle: Duration,
}

impl CapabilitySessions {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            slots: Slots::default(),
            per_server: limits.capability_sessions_per_server,
            per_stdio_server: limits.capability_sessions_per_stdio_server,
            idle: Duration::from_secs(limits.capability_session_idle_secs as u64),
        }
    }

    /// The connection for a call whose caller can answer `set`: `shared` when that is what
    /// the shared session declares or sessions per set are off; else the set's own session,
    /// started if it has none (within the bound).
    pub(crate) async fn connection(
        &self,
        spec: &ServerSpec,
        connect: &ConnectOptions,
        set: &CapabilitySet,
        shared: Arc<Connection>,
    ) -> Result<Arc<Connection>, UpstreamError> {
        let bound = match spec.is_remote() {
            true => self.per_server,
            false => self.per_stdio_server,
        };
        if bound == 0 || set.is_gateway() {
            return Ok(shared);
        }
        let server = spec.name.as_str();
        let slot = {
            let mut slots = self.slots.lock();
            let of_server = slots.entry(server.to_string()).or_default();
            match of_server.get(set.key()) {
                Some(slot) => slot.clone(),
                None if of_server.len() >= bound => {
                    drop(slots);
                    return Ok(self.nearest(server, set).unwrap_or(shared));
                }
                None => {
                    let slot = Slot::new(set.clone());
                    of_server.insert(set.key().to_string(), slot.clone());
                    slot
                }
            }
        };
        slot.session(async {
            tracing::info!(server = %spec.name, capabilities = set.key(), "opening a session for callers with these capabilities");
            let mut connect = connect.clone();
            connect.capabilities = Some(set.clone());
            // Its events count as the shared session's: a resource update a server sends on
            // the session whose call changed it reaches every watcher.
            Connection::connect(spec, &connect).await
        })
        .await
    }

    /// Past the bound: the open session of `server` that asks nothing `set` cannot answer
    /// and declares the most.
    fn nearest(&self, server: &str, set: &CapabilitySet) -> Option<Arc<Connection>> {
        let slots = self.slots.lock();
        let mut fits: Vec<&Arc<Slot<CapabilitySet>>> = (slots.get(server).into_iter())
            .flat_map(|of_server| of_server.values())
            .filter(|slot| set.covers(&slot.tag))
            .collect();
        fits.sort_by_key(|slot| std::cmp::Reverse(slot.tag.size()));
        fits.into_iter().find_map(|slot| {
            let conn = slot.running()?;
            slot.touch();
            Some(conn)
        })
    }

    /// Sessions open per server now.
    pub(crate) fn open_per_server(&self) -> HashMap<String, usize> {
        self.slots.open_per_server()
    }

    /// Closes the sessions unused for longer than the idle limit, and every session of a
    /// server `keep` says no longer runs (disabled, removed, in error); none in use.
    pub(crate) fn close_idle(&self, keep: impl Fn(&str) -> bool) {
        let closed = self.slots.close_idle(self.idle, keep);
        if closed > 0 {
            tracing::info!(sessions = closed, "closed unused capability sessions");
        }
    }
}
