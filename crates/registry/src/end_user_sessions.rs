//! Each end user's own upstream session with a per-end-user server, opened with their grant
//! and never shared: at most `end_user_sessions_per_server` per server (past it the longest
//! unused one not in use is closed), closed after `end_user_session_idle_secs` unused, and
//! replaced when the user's grant changes.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_core::{CallError, ErrorKind, Grant, Limits, ServerSpec};
use switchboard_sync::Mutex;
use switchboard_upstream::{ConnectOptions, Connection, UpstreamError};

/// The longest a new session's first call waits for the server to answer its GET stream.
const LISTEN_WAIT: Duration = Duration::from_secs(2);

/// One end user's session: its own lock, so a slow start holds up only that user's calls.
pub(crate) struct Slot {
    /// The grant it was opened with: another grant (a new key) needs a new session.
    grant_id: String,
    open: Mutex<Option<Arc<Connection>>>,
    opening: tokio::sync::Mutex<()>,
    used: Mutex<Instant>,
}

impl Slot {
    fn running(&self) -> Option<Arc<Connection>> {
        (self.open.lock().as_ref())
            .filter(|c| !c.is_closed())
            .cloned()
    }

    /// Nobody opens it or holds its connection for a call now.
    fn unused(&self) -> bool {
        self.opening.try_lock().is_ok()
            && (self.open.lock().as_ref()).is_none_or(|c| Arc::strong_count(c) == 1)
    }

    fn take(&self) -> Option<Arc<Connection>> {
        self.open.lock().take()
    }
}

/// Every end user's sessions of one registry, by server and grant key.
pub(crate) struct EndUserSessions {
    slots: Mutex<HashMap<String, HashMap<String, Arc<Slot>>>>,
    per_server: usize,
    idle: Duration,
}

fn close_later(conns: impl IntoIterator<Item = Arc<Connection>>) {
    for conn in conns {
        tokio::spawn(async move { conn.close().await });
    }
}

impl EndUserSessions {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            slots: Mutex::default(),
            per_server: limits.end_user_sessions_per_server.max(1),
            idle: Duration::from_secs(limits.end_user_session_idle_secs as u64),
        }
    }

    /// The session in `slot` (from [`EndUserSessions::slot`]), opened with `grant` if it
    /// has none.
    pub(crate) async fn connection(
        &self,
        slot: Arc<Slot>,
        spec: &ServerSpec,
        connect: &ConnectOptions,
        grant: &Grant,
    ) -> Result<Arc<Connection>, UpstreamError> {
        *slot.used.lock() = Instant::now();
        if let Some(open) = slot.running() {
            return Ok(open);
        }
        let _opening = slot.opening.lock().await;
        if let Some(open) = slot.running() {
            return Ok(open);
        }
        tracing::debug!(server = %spec.name, grant = %grant.id, "opening an end user's session");
        let opened =
            Arc::new(Connection::connect(&spec.as_end_user(&grant.secret), connect).await?);
        opened.until_listening(LISTEN_WAIT).await;
        close_later(slot.open.lock().replace(opened.clone()));
        Ok(opened)
    }

    /// The slot of the end user whose grant is stored as `key`: the one there if it was
    /// opened with `grant`, else a new one (making room within the bound).
    pub(crate) fn slot(
        &self,
        spec: &ServerSpec,
        key: &str,
        grant: &Grant,
    ) -> Result<Arc<Slot>, CallError> {
        let mut slots = self.slots.lock();
        let of_server = slots.entry(spec.name.to_string()).or_default();
        if let Some(slot) = of_server.get(key) {
            if slot.grant_id == grant.id {
                return Ok(slot.clone());
            }
            // A new grant (a new key, a grant made again): the old session goes.
            close_later(slot.take());
            of_server.remove(key);
        }
        if of_server.len() >= self.per_server {
            let oldest = (of_server.iter())
                .filter(|(_, slot)| slot.unused())
                .min_by_key(|(_, slot)| *slot.used.lock())
                .map(|(key, _)| key.clone());
            let Some(oldest) = oldest else {
                return Err(CallError::new(
                    ErrorKind::RateLimited,
                    format!(
                        "server {} has {} end users' sessions open, all in use; try again, or raise [limits] end_user_sessions_per_server",
                        spec.name, self.per_server
                    ),
                ));
            };
            if let Some(slot) = of_server.remove(&oldest) {
                close_later(slot.take());
            }
        }
        let slot = Arc::new(Slot {
            grant_id: grant.id.clone(),
            open: Mutex::new(None),
            opening: tokio::sync::Mutex::new(()),
            used: Mutex::new(Instant::now()),
        });
        of_server.insert(key.to_string(), slot.clone());
        Ok(slot)
    }

    /// Closes the session of the grant stored as `key` on `server` (revoked, refused).
    pub(crate) fn close(&self, server: &str, key: &str) {
        let mut slots = self.slots.lock();
        if let Some(slot) = slots.get_mut(server).and_then(|s| s.remove(key)) {
            close_later(slot.take());
        }
    }

    /// Closes every end user's session of `server`.
    pub(crate) fn close_server(&self, server: &str) {
        let gone = self.slots.lock().remove(server);
        let slots = gone
            .into_iter()
            .flat_map(|of_server| of_server.into_values());
        close_later(slots.filter_map(|slot| slot.take()));
    }

    /// Sessions open per server now.
    pub(crate) fn open_per_server(&self) -> HashMap<String, usize> {
        let slots = self.slots.lock();
        (slots.iter())
            .map(|(server, of_server)| {
                let open = of_server.values().filter(|s| s.running().is_some()).count();
                (server.clone(), open)
            })
            .filter(|(_, open)| *open > 0)
            .collect()
    }

    /// Closes the sessions unused for longer than the idle limit, and every session of a
    /// server `keep` says no longer runs; none in use.
    pub(crate) fn close_idle(&self, keep: impl Fn(&str) -> bool) {
        let mut closing = Vec::new();
        let mut slots = self.slots.lock();
        for (server, of_server) in slots.iter_mut() {
            let running = keep(server);
            of_server.retain(|_, slot| {
                if (running && slot.used.lock().elapsed() < self.idle) || !slot.unused() {
                    return true;
                }
                closing.extend(slot.take());
                false
            });
        }
        slots.retain(|_, of_server| !of_server.is_empty());
        drop(slots);
        if !closing.is_empty() {
            tracing::debug!(
                sessions = closing.len(),
                "closing unused end users' sessions"
            );
        }
        close_later(closing);
    }
}
