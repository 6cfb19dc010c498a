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
const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(60);

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
pub struct LiveSessions(Mutex<HashMap<SessionId, Arc<LiveSession>>>);

impl LiveSessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Arc<LiveSession>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers an initialized session (its gateway calls this).
    pub fn insert(&self, id: SessionId, gateway: Gateway, peer: Peer<RoleServer>) {
        let session = LiveSession {
            gateway,
            peer,
            closed: CancellationToken::new(),
            touched: AtomicU64::new(epoch().elapsed().as_secs()),
        };
        if let Some(old) = self.lock().insert(id, Arc::new(session)) {
            old.closed.cancel();
        }
    }

    /// The live session by that id, if its transport is still open.
    pub fn get(&self, id: &str) -> Option<Arc<LiveSession>> {
        let session = self.lock().get(id).cloned()?;
        (!session.peer.is_transport_closed()).then_some(session)
    }

    /// Forgets a session whose service ended, cancelling its fast-path calls.
    pub fn remove(&self, id: &SessionId) {
        let removed = self.lock().remove(id);
        if let Some(session) = removed {
            session.closed.cancel();
        }
    }
}
