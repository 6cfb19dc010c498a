//! The Streamable HTTP sessions live on this replica, with what the fast path needs to answer
//! their calls itself (each session's gateway and its peer) and what parking needs to know
//! (whether anything of the session is open, and since when it has been idle).

use crate::mcp::gateway::Gateway;
use rmcp::service::{Peer, RoleServer};
use rmcp::transport::streamable_http_server::session::SessionId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use switchboard_sync::Mutex;
use tokio_util::sync::CancellationToken;

/// How long a session may take from its creation to `notifications/initialized`.
pub(crate) const HANDSHAKE_LIMIT: Duration = Duration::from_secs(60);

/// How long a session that holds state of its own (a log level, subscriptions, its own
/// processes) stays idle in memory before it is parked anyway, losing that state.
pub(crate) const STATEFUL_IDLE_LIMIT: Duration = Duration::from_secs(300);

/// One live session: its gateway (with the session's own state) and the peer that reaches
/// its client.
pub struct LiveSession {
    pub gateway: Gateway,
    pub peer: Peer<RoleServer>,
    /// Cancelled when the session ends, with every fast-path call still running in it.
    pub closed: CancellationToken,
    usage: Arc<Usage>,
}

/// What of a session is open, and since when it has been idle: counted from the session's
/// creation on, before its gateway registers it as live.
struct Usage {
    /// Requests, streams and calls of this session open now.
    open: AtomicU32,
    /// When the last of them ended (milliseconds since [`now`]'s epoch).
    last_used: AtomicU64,
    /// When the session's saved row was last marked used.
    row_marked: AtomicU64,
}

impl Usage {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            open: AtomicU32::new(0),
            last_used: AtomicU64::new(now()),
            row_marked: AtomicU64::new(now()),
        })
    }

    fn touch(&self) {
        self.last_used.store(now(), Ordering::Release);
    }

    /// How long the session has been idle, or `None` while something of it is open.
    fn idle_for(&self) -> Option<Duration> {
        if self.open.load(Ordering::Acquire) > 0 {
            return None;
        }
        let last = self.last_used.load(Ordering::Acquire);
        Some(Duration::from_millis(now().saturating_sub(last)))
    }

    /// Counted open until the returned guard is dropped (call under the sessions' lock).
    fn open(self: &Arc<Self>) -> InUse {
        self.open.fetch_add(1, Ordering::AcqRel);
        InUse(self.clone())
    }
}

/// One incarnation of a session, from its creation or restore to the end of its service.
pub struct Ticket(Arc<Usage>);

/// A session in use by one request, stream or call: it is not parked while this lives.
pub struct InUse(Arc<Usage>);

impl Drop for InUse {
    fn drop(&mut self) {
        // Stamped before the count falls, so a sweep that sees it idle sees the new time.
        self.0.touch();
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Milliseconds since the process's reference instant: whole seconds would let a session
/// used a moment ago look a second idle across a second's boundary.
fn now() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64
}

#[derive(Default)]
struct Sessions {
    live: HashMap<SessionId, Arc<LiveSession>>,
    /// Every session's usage, live or still handshaking.
    usage: HashMap<SessionId, Arc<Usage>>,
    /// Sessions created and not yet initialized, with when they were created.
    handshaking: HashMap<SessionId, Instant>,
}

/// The live sessions of one endpoint, by session id.
#[derive(Default)]
pub struct LiveSessions {
    sessions: Mutex<Sessions>,
    /// The endpoint's shutdown: every session's `closed` is its child.
    shutdown: OnceLock<CancellationToken>,
}

impl LiveSessions {
    /// Sessions end (and their fast-path calls are cancelled) when `shutdown` is cancelled.
    pub fn end_with(&self, shutdown: CancellationToken) {
        let _ = self.shutdown.set(shutdown);
    }

    /// Notes a session created (or restored) and waiting for its handshake; the ticket ends
    /// this incarnation of it (see [`LiveSessions::end`]).
    pub fn begin(&self, id: SessionId) -> Ticket {
        let usage = Usage::new();
        let mut sessions = self.sessions.lock();
        sessions.usage.insert(id.clone(), usage.clone());
        sessions.handshaking.insert(id, Instant::now());
        Ticket(usage)
    }

    /// Forgets a session whose service ended, unless it was restored since (a parked
    /// session's old service can end after its next request restored it).
    pub fn end(&self, id: &SessionId, ticket: &Ticket) {
        let current = self
            .sessions
            .lock()
            .usage
            .get(id)
            .is_some_and(|usage| Arc::ptr_eq(usage, &ticket.0));
        if current {
            self.remove(id);
        }
    }

    /// Registers an initialized session (its gateway calls this); a second `initialized`
    /// from the same session changes nothing.
    pub fn insert(&self, id: SessionId, gateway: Gateway, peer: Peer<RoleServer>) {
        let closed = match self.shutdown.get() {
            Some(shutdown) => shutdown.child_token(),
            None => CancellationToken::new(),
        };
        let mut sessions = self.sessions.lock();
        let usage = sessions.usage.entry(id.clone()).or_insert_with(Usage::new);
        let session = Arc::new(LiveSession {
            gateway,
            peer,
            closed,
            usage: usage.clone(),
        });
        {
            sessions.handshaking.remove(&id);
            if sessions
                .live
                .get(&id)
                .is_some_and(|s| !s.peer.is_transport_closed())
            {
                return;
            }
            sessions.live.insert(id.clone(), session.clone());
        }
        drop(sessions);
        // The session may have ended before it registered: its transport is gone already.
        if session.peer.is_transport_closed() {
            self.remove(&id);
        }
    }

    /// The live session by that id, marked in use until the guard is dropped; a session
    /// whose transport closed is forgotten.
    pub fn checkout(&self, id: &str) -> Option<(Arc<LiveSession>, InUse)> {
        let (session, in_use) = {
            let sessions = self.sessions.lock();
            let session = sessions.live.get(id)?;
            // Counted under the lock, so a sweep never parks a session being checked out.
            (session.clone(), session.usage.open())
        };
        if session.peer.is_transport_closed() {
            drop(in_use);
            self.remove(&SessionId::from(id));
            return None;
        }
        Some((session, in_use))
    }

    /// Marks a session (live or still handshaking) in use until the guard is dropped.
    pub fn in_use(&self, id: &str) -> Option<InUse> {
        self.sessions.lock().usage.get(id).map(|usage| usage.open())
    }

    /// Marks a session used now.
    pub fn touch(&self, id: &str) {
        if let Some(usage) = self.sessions.lock().usage.get(id) {
            usage.touch();
        }
    }

    /// Forgets a session whose service ended, cancelling its fast-path calls.
    pub fn remove(&self, id: &SessionId) {
        let removed = {
            let mut sessions = self.sessions.lock();
            sessions.handshaking.remove(id);
            sessions.usage.remove(id);
            sessions.live.remove(id)
        };
        if let Some(session) = removed {
            session.closed.cancel();
        }
    }

    /// Sessions in memory now: live, or created and still handshaking.
    pub fn in_memory(&self) -> usize {
        self.sessions.lock().usage.len()
    }

    /// The session in memory idle the longest (nothing open), with how long it has been idle.
    pub fn oldest_idle(&self) -> Option<(SessionId, Duration)> {
        let sessions = self.sessions.lock();
        sessions
            .usage
            .iter()
            .filter_map(|(id, usage)| usage.idle_for().map(|idle| (id, idle)))
            .max_by_key(|(_, idle)| *idle)
            .map(|(id, idle)| (id.clone(), idle))
    }

    /// Sessions used since their saved row was last marked, and not marked for `every`:
    /// marked now (the caller marks their rows), so a session busy in memory for long is
    /// not pruned from the store as unused.
    pub fn rows_to_mark(&self, every: Duration) -> Vec<SessionId> {
        let now = now();
        let every = every.as_millis() as u64;
        let sessions = self.sessions.lock();
        let mut due = Vec::new();
        for (id, usage) in &sessions.usage {
            let marked = usage.row_marked.load(Ordering::Acquire);
            let used = usage.open.load(Ordering::Acquire) > 0
                || usage.last_used.load(Ordering::Acquire) > marked;
            if used && now.saturating_sub(marked) >= every {
                usage.row_marked.store(now, Ordering::Release);
                due.push(id.clone());
            }
        }
        due
    }

    /// Takes out the sessions to park, with how long each has been idle: idle with nothing
    /// open for `after` (or for [`STATEFUL_IDLE_LIMIT`] when they hold state of their own),
    /// and those whose handshake has not finished within [`HANDSHAKE_LIMIT`].
    pub fn take_idle(&self, after: Duration) -> Vec<(SessionId, Duration)> {
        let mut guard = self.sessions.lock();
        let sessions = &mut *guard;
        let stateful_after = after.max(STATEFUL_IDLE_LIMIT);
        let mut parked: Vec<(SessionId, Duration)> = Vec::new();
        sessions.live.retain(|id, session| {
            let Some(idle) = session.usage.idle_for() else {
                return true;
            };
            let limit = match session.gateway.holds_session_state() {
                true => stateful_after,
                false => after,
            };
            if idle < limit {
                return true;
            }
            session.closed.cancel();
            parked.push((id.clone(), idle));
            false
        });
        let usage = &sessions.usage;
        sessions.handshaking.retain(|id, since| {
            let idle = usage.get(id).and_then(|u| u.idle_for());
            let keep = idle.is_none() || since.elapsed() < HANDSHAKE_LIMIT;
            if !keep {
                parked.push((id.clone(), idle.unwrap_or_default()));
            }
            keep
        });
        for (id, _) in &parked {
            sessions.usage.remove(id);
        }
        parked
    }

    /// How many sessions are live in memory now.
    pub fn len(&self) -> usize {
        self.sessions.lock().live.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
