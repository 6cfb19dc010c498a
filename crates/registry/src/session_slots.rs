//! Upstream sessions kept beside a server's shared one (per capability set, per end user):
//! one slot per key with its own opening lock, counted per server, closed when unused.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_sync::{Mutex, MutexGuard};
use switchboard_upstream::{Connection, UpstreamError};

/// The longest a new session's first call waits for the server to answer its GET stream.
const LISTEN_WAIT: Duration = Duration::from_secs(2);

/// One session and what it was opened for (`tag`): its own lock, so a slow start holds up
/// only the calls that need it.
pub(crate) struct Slot<T> {
    pub(crate) tag: T,
    /// The open session, read by every call without waiting on one being opened.
    open: Mutex<Option<Arc<Connection>>>,
    /// Held while the session is opened, so one call opens it and the others wait.
    opening: tokio::sync::Mutex<()>,
    used: Mutex<Instant>,
}

impl<T> Slot<T> {
    pub(crate) fn new(tag: T) -> Arc<Self> {
        Arc::new(Self {
            tag,
            open: Mutex::new(None),
            opening: tokio::sync::Mutex::new(()),
            used: Mutex::new(Instant::now()),
        })
    }

    /// Its session, if open.
    pub(crate) fn running(&self) -> Option<Arc<Connection>> {
        (self.open.lock().as_ref())
            .filter(|c| !c.is_closed())
            .cloned()
    }

    /// Its session, opened with `connect` if it has none; one call opens, the others wait.
    pub(crate) async fn session(
        &self,
        connect: impl Future<Output = Result<Connection, UpstreamError>>,
    ) -> Result<Arc<Connection>, UpstreamError> {
        self.touch();
        if let Some(open) = self.running() {
            return Ok(open);
        }
        let _opening = self.opening.lock().await;
        // Another call may have opened it while this one waited.
        if let Some(open) = self.running() {
            return Ok(open);
        }
        let opened = Arc::new(connect.await?);
        // The first call follows at once: a server that asks its caller on the session's own
        // stream (not the call's) must have that stream first.
        opened.until_listening(LISTEN_WAIT).await;
        close_later(self.open.lock().replace(opened.clone()));
        Ok(opened)
    }

    pub(crate) fn touch(&self) {
        *self.used.lock() = Instant::now();
    }

    pub(crate) fn used_at(&self) -> Instant {
        *self.used.lock()
    }

    /// Nobody opens it or holds its session for a call now.
    pub(crate) fn unused(&self) -> bool {
        self.opening.try_lock().is_ok()
            && (self.open.lock().as_ref()).is_none_or(|c| Arc::strong_count(c) == 1)
    }

    /// Closes its session (in the background).
    pub(crate) fn close(&self) {
        close_later(self.open.lock().take());
    }
}

pub(crate) fn close_later(conns: impl IntoIterator<Item = Arc<Connection>>) {
    for conn in conns {
        tokio::spawn(async move { conn.close().await });
    }
}

/// One server's slots, by key.
pub(crate) type ServerSlots<T> = HashMap<String, Arc<Slot<T>>>;

/// Slots by server, then by key.
pub(crate) struct Slots<T>(Mutex<HashMap<String, ServerSlots<T>>>);

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<T> Slots<T> {
    pub(crate) fn lock(&self) -> MutexGuard<'_, HashMap<String, ServerSlots<T>>> {
        self.0.lock()
    }

    /// Sessions open per server now.
    pub(crate) fn open_per_server(&self) -> HashMap<String, usize> {
        (self.lock().iter())
            .map(|(server, of_server)| {
                let open = of_server.values().filter(|s| s.running().is_some()).count();
                (server.clone(), open)
            })
            .filter(|(_, open)| *open > 0)
            .collect()
    }

    /// Closes the sessions unused for `idle` or longer, and every session of a server `keep`
    /// says no longer runs; none in use. How many it closed.
    pub(crate) fn close_idle(&self, idle: Duration, keep: impl Fn(&str) -> bool) -> usize {
        let mut closed = 0;
        let mut slots = self.lock();
        for (server, of_server) in slots.iter_mut() {
            let running = keep(server);
            of_server.retain(|_, slot| {
                if (running && slot.used_at().elapsed() < idle) || !slot.unused() {
                    return true;
                }
                slot.close();
                closed += 1;
                false
            });
        }
        slots.retain(|_, of_server| !of_server.is_empty());
        closed
    }

    /// Closes every session of `server`.
    pub(crate) fn close_server(&self, server: &str) {
        let gone = self.lock().remove(server);
        gone.into_iter()
            .flat_map(|of_server| of_server.into_values())
            .for_each(|slot| slot.close());
    }
}
