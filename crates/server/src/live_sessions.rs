//! The Streamable HTTP sessions live on this replica, with what the fast path needs to answer
//! their calls itself: each session's gateway and its peer.

use crate::Gateway;
use rmcp::service::{Peer, RoleServer};
use rmcp::transport::streamable_http_server::session::SessionId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How often a session used only through the fast path tells rmcp's worker it is in use.
pub const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(60);

/// One live session: its gateway (with the session's own state) and the peer that reaches
/// its client.
pub struct LiveSession {
    pub gateway: Gateway,
    pub peer: Peer<RoleServer>,
    /// Cancelled when the session ends, with every fast-path call still running in it.
    pub closed: CancellationToken,
    /// When rmcp's worker last heard of this session from the fast path (seconds since
    /// [`epoch`]).
    touched: AtomicU64,
}

impl LiveSession {
    /// True at most once per [`KEEP_ALIVE_EVERY`]: time to tell rmcp's worker.
    pub fn keep_alive_due(&self) -> bool {
        let now = epoch().elapsed().as_secs();
        let touched = self.touched.load(Ordering::Relaxed);
        now.saturating_sub(touched) >= KEEP_ALIVE_EVERY.as_secs()
            && self
                .touched
                .compare_exchange(touched, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}

/// The process's reference instant for [`LiveSession::keep_alive_due`].
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// The live sessions of one endpoint, by session id.
#[derive(Default)]
pub struct LiveSessions {
    sessions: Mutex<HashMap<SessionId, Arc<LiveSession>>>,
    /// The endpoint's shutdown: every session's `closed` is its child.
    shutdown: OnceLock<CancellationToken>,
}

impl LiveSessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Arc<LiveSession>>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sessions end (and their fast-path calls are cancelled) when `shutdown` is cancelled.
    pub fn end_with(&self, shutdown: CancellationToken) {
        let _ = self.shutdown.set(shutdown);
    }

    /// Registers an initialized session (its gateway calls this); a second `initialized`
    /// from the same session changes nothing.
    pub fn insert(&self, id: SessionId, gateway: Gateway, peer: Peer<RoleServer>) {
        let closed = match self.shutdown.get() {
            Some(shutdown) => shutdown.child_token(),
            None => CancellationToken::new(),
        };
        let session = Arc::new(LiveSession {
            gateway,
            peer,
            closed,
            touched: AtomicU64::new(epoch().elapsed().as_secs()),
        });
        {
            let mut sessions = self.lock();
            if sessions
                .get(&id)
                .is_some_and(|s| !s.peer.is_transport_closed())
            {
                return;
            }
            sessions.insert(id.clone(), session.clone());
        }
        // The session may have ended before it registered: its transport is gone already.
        if session.peer.is_transport_closed() {
            self.remove(&id);
        }
    }

    /// The live session by that id; a session whose transport closed is forgotten.
    pub fn get(&self, id: &str) -> Option<Arc<LiveSession>> {
        let session = self.lock().get(id).cloned()?;
        if session.peer.is_transport_closed() {
            self.remove(&SessionId::from(id));
            return None;
        }
        Some(session)
    }

    /// Forgets a session whose service ended, cancelling its fast-path calls.
    pub fn remove(&self, id: &SessionId) {
        let removed = self.lock().remove(id);
        if let Some(session) = removed {
            session.closed.cancel();
        }
    }
}
