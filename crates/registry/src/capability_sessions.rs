//! Upstream sessions for callers who can answer other things than the shared session declares
//! (servers on revisions before 2026-07-28 learn a client's capabilities once): one per server
//! and distinct capability set, at most `capability_sessions_per_server` of them (stdio servers:
//! `capability_sessions_per_stdio_server`, off by default: each is a process, with state of its
//! own), closed after `capability_session_idle_secs` unused. Past the bound a caller gets the
//! open session that asks it nothing it cannot answer and declares the most, or the shared one.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_core::{Limits, ServerSpec};
use switchboard_sync::Mutex;
use switchboard_upstream::{CapabilitySet, ConnectOptions, Connection, UpstreamError};

/// The longest a new session's first call waits for the server to answer its GET stream.
const LISTEN_WAIT: Duration = Duration::from_secs(2);

/// One session for one capability set: its own lock, so a slow start holds up only the
/// calls that need it.
struct Slot {
    set: CapabilitySet,
    /// The open session, read by every call without waiting on one being opened.
    open: Mutex<Option<Arc<Connection>>>,
    /// Held while the session is opened, so one call opens it and the others wait.
    opening: tokio::sync::Mutex<()>,
    used: Mutex<Instant>,
}

impl Slot {
    fn running(&self) -> Option<Arc<Connection>> {
        (self.open.lock().as_ref())
            .filter(|c| !c.is_closed())
            .cloned()
    }
}

/// One server's sessions, by the key of their set.
type ServerSlots = HashMap<String, Arc<Slot>>;

/// The capability sessions of one registry, by server and set.
pub(crate) struct CapabilitySessions {
    slots: Mutex<HashMap<String, ServerSlots>>,
    per_server: usize,
    per_stdio_server: usize,
    idle: Duration,
}

impl CapabilitySessions {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            slots: Mutex::default(),
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
        let found = (self.slots.lock().get(server)).and_then(|s| s.get(set.key()).cloned());
        let slot = match found {
            Some(slot) => slot,
            None => {
                let mut slots = self.slots.lock();
                let of_server = slots.entry(server.to_string()).or_default();
                match of_server.get(set.key()) {
                    Some(slot) => slot.clone(),
                    None if of_server.len() >= bound => {
                        drop(slots);
                        return Ok(self.nearest(server, set).unwrap_or(shared));
                    }
                    None => {
                        let slot = Arc::new(Slot {
                            set: set.clone(),
                            open: Mutex::new(None),
                            opening: tokio::sync::Mutex::new(()),
                            used: Mutex::new(Instant::now()),
                        });
                        of_server.insert(set.key().to_string(), slot.clone());
                        slot
                    }
                }
            }
        };
        *slot.used.lock() = Instant::now();
        if let Some(open) = slot.running() {
            return Ok(open);
        }
        let _opening = slot.opening.lock().await;
        // Another call may have opened it while this one waited.
        if let Some(open) = slot.running() {
            return Ok(open);
        }
        tracing::info!(server = %spec.name, capabilities = set.key(), "opening a session for callers with these capabilities");
        let mut connect = connect.clone();
        connect.capabilities = Some(set.clone());
        // Its events count as the shared session's: a resource update a server sends on the
        // session whose call changed it reaches every watcher.
        let opened = Arc::new(Connection::connect(spec, &connect).await?);
        // The first call follows at once: a server that asks its caller on the session's own
        // stream (not the call's) must have that stream first.
        opened.until_listening(LISTEN_WAIT).await;
        if let Some(dead) = slot.open.lock().replace(opened.clone()) {
            tokio::spawn(async move { dead.close().await });
        }
        Ok(opened)
    }

    /// Past the bound: the open session of `server` that asks nothing `set` cannot answer
    /// and declares the most.
    fn nearest(&self, server: &str, set: &CapabilitySet) -> Option<Arc<Connection>> {
        let slots = self.slots.lock();
        let mut fits: Vec<&Arc<Slot>> = (slots.get(server).into_iter())
            .flat_map(|of_server| of_server.values())
            .filter(|slot| set.covers(&slot.set))
            .collect();
        fits.sort_by_key(|slot| std::cmp::Reverse(slot.set.size()));
        fits.into_iter().find_map(|slot| {
            let conn = slot.running()?;
            *slot.used.lock() = Instant::now();
            Some(conn)
        })
    }

    /// Sessions open per server now.
    pub(crate) fn open_per_server(&self) -> HashMap<String, usize> {
        let running = |slot: &Arc<Slot>| slot.running().is_some();
        let slots = self.slots.lock();
        (slots.iter())
            .map(|(server, of_server)| {
                let open = of_server.values().filter(|s| running(s)).count();
                (server.clone(), open)
            })
            .filter(|(_, open)| *open > 0)
            .collect()
    }

    /// Closes the sessions unused for longer than the idle limit, and every session of a
    /// server `keep` says no longer runs (disabled, removed, in error); none in use.
    pub(crate) fn close_idle(&self, keep: impl Fn(&str) -> bool) {
        let mut closing = Vec::new();
        let mut slots = self.slots.lock();
        for (server, of_server) in slots.iter_mut() {
            let running = keep(server);
            of_server.retain(|_, slot| {
                if running && slot.used.lock().elapsed() < self.idle {
                    return true;
                }
                // One being opened, or held by a call while it runs, is left for now.
                if slot.opening.try_lock().is_err() {
                    return true;
                }
                let mut open = slot.open.lock();
                if open.as_ref().is_some_and(|c| Arc::strong_count(c) > 1) {
                    return true;
                }
                closing.extend(open.take());
                false
            });
        }
        slots.retain(|_, of_server| !of_server.is_empty());
        drop(slots);
        for conn in closing {
            tracing::info!(server = %conn.server(), "closing an unused capability session");
            tokio::spawn(async move { conn.close().await });
        }
    }
}
