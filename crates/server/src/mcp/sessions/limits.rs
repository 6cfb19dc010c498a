//! Bounds on downstream sessions: how many this replica holds (in all, per client address,
//! per bearer token), how many stay in memory, and how long an unused one is kept.

use crate::mcp::sessions::ordered::OrderedSessions;
use rmcp::transport::streamable_http_server::session::SessionId;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};
use switchboard_core::Limits;
use switchboard_sync::Mutex;

/// The session bounds in force (`[limits]`).
#[derive(Debug, Clone, Copy)]
pub struct SessionCaps {
    pub total: usize,
    pub per_client: usize,
    pub per_token: usize,
    pub in_memory: usize,
    /// How long a session may go unused before this replica forgets it.
    pub expire_after: Duration,
}

impl SessionCaps {
    pub fn from_limits(limits: &Limits) -> Self {
        Self {
            total: limits.max_sessions,
            per_client: limits.max_sessions_per_client,
            per_token: limits.max_sessions_per_token,
            in_memory: limits.max_sessions_in_memory,
            expire_after: Duration::from_secs(limits.session_expire_secs as u64),
        }
    }
}

impl Default for SessionCaps {
    fn default() -> Self {
        Self::from_limits(&Limits::default())
    }
}

/// Who opened a session: the client's address (an IPv6 one by its /64) and a hash of the
/// bearer token it sent, either unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Owner {
    pub client: Option<IpAddr>,
    pub token: Option<u64>,
}

impl Owner {
    pub fn new(client: Option<IpAddr>, token: Option<&str>) -> Self {
        static KEYS: std::sync::OnceLock<std::collections::hash_map::RandomState> =
            std::sync::OnceLock::new();
        let keys = KEYS.get_or_init(Default::default);
        Self {
            client: client.map(switchboard_listener::client_key),
            token: token.map(|t| keys.hash_one(t)),
        }
    }
}

/// The limit a new session ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    Sessions,
    Client,
    Token,
    /// Every session in memory is busy, so none could be parked to make room.
    Memory,
}

impl Full {
    pub const ALL: [Full; 4] = [Full::Sessions, Full::Client, Full::Token, Full::Memory];

    /// The `[limits]` setting that sets it.
    pub fn setting(self) -> &'static str {
        match self {
            Full::Sessions => "max_sessions",
            Full::Client => "max_sessions_per_client",
            Full::Token => "max_sessions_per_token",
            Full::Memory => "max_sessions_in_memory",
        }
    }
}

type SessionKey = (Arc<str>, SessionId);

/// A session this replica holds: who opened it and, once parked, since when it is unused.
struct Held {
    owner: Owner,
    unused_since: Option<Instant>,
}

#[derive(Default)]
struct Ledger {
    held: HashMap<SessionKey, Held>,
    /// Admitted sessions not created yet.
    reserved: usize,
    per_client: HashMap<IpAddr, usize>,
    per_token: HashMap<u64, usize>,
}

impl Ledger {
    fn count<K: Hash + Eq>(map: &mut HashMap<K, usize>, key: Option<K>, up: bool) {
        let Some(key) = key else { return };
        if up {
            *map.entry(key).or_default() += 1;
        } else if let Some(n) = map.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                map.remove(&key);
            }
        }
    }

    fn add(&mut self, owner: Owner) {
        Self::count(&mut self.per_client, owner.client, true);
        Self::count(&mut self.per_token, owner.token, true);
    }

    fn release(&mut self, owner: Owner) {
        Self::count(&mut self.per_client, owner.client, false);
        Self::count(&mut self.per_token, owner.token, false);
    }
}

/// The sessions of every MCP endpoint of this process, counted against [`SessionCaps`].
pub struct SessionLimits {
    caps: SessionCaps,
    ledger: Mutex<Ledger>,
    /// The endpoints whose sessions share the memory bound.
    endpoints: Mutex<Vec<Weak<OrderedSessions>>>,
    refused: [AtomicU64; 4],
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self::new(SessionCaps::default())
    }
}

impl SessionLimits {
    pub fn new(caps: SessionCaps) -> Self {
        Self {
            caps,
            ledger: Mutex::default(),
            endpoints: Mutex::default(),
            refused: Default::default(),
        }
    }

    pub fn caps(&self) -> &SessionCaps {
        &self.caps
    }

    /// Counts an endpoint's sessions in memory against the shared bound.
    pub fn add_endpoint(&self, endpoint: &Arc<OrderedSessions>) {
        let mut endpoints = self.endpoints.lock();
        endpoints.retain(|e| e.strong_count() > 0);
        endpoints.push(Arc::downgrade(endpoint));
    }

    fn endpoints(&self) -> Vec<Arc<OrderedSessions>> {
        let endpoints = self.endpoints.lock();
        endpoints.iter().filter_map(Weak::upgrade).collect()
    }

    /// Room for one more session of `owner`, held until the session is created (then
    /// [`Admitted::created`]) or the guard is dropped.
    pub fn admit(self: &Arc<Self>, owner: Owner) -> Result<Admitted, Full> {
        let mut ledger = self.ledger.lock();
        let full = if ledger.held.len() + ledger.reserved >= self.caps.total {
            Some(Full::Sessions)
        } else if owner
            .client
            .is_some_and(|c| ledger.per_client.get(&c) >= Some(&self.caps.per_client))
        {
            Some(Full::Client)
        } else if owner
            .token
            .is_some_and(|t| ledger.per_token.get(&t) >= Some(&self.caps.per_token))
        {
            Some(Full::Token)
        } else {
            None
        };
        if let Some(full) = full {
            drop(ledger);
            self.refuse(full);
            return Err(full);
        }
        ledger.reserved += 1;
        ledger.add(owner);
        Ok(Admitted {
            limits: self.clone(),
            owner,
            pending: true,
        })
    }

    /// Counts a refusal by `full` (for `/metrics`).
    pub fn refuse(&self, full: Full) {
        self.refused[full as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// Refusals so far, by the limit's setting name.
    pub fn refusals(&self) -> Vec<(&'static str, u64)> {
        Full::ALL
            .iter()
            .map(|f| {
                (
                    f.setting(),
                    self.refused[*f as usize].load(Ordering::Relaxed),
                )
            })
            .collect()
    }

    /// Sessions held now (in memory or parked), and of them in memory.
    pub fn counts(&self) -> (usize, usize) {
        let held = self.ledger.lock().held.len();
        let in_memory = self.endpoints().iter().map(|e| e.live().in_memory()).sum();
        (held, in_memory)
    }

    /// Parks the longest-idle sessions until one more fits in memory; `false` when every
    /// session in memory is busy.
    pub async fn make_room(&self) -> bool {
        loop {
            let endpoints = self.endpoints();
            let in_memory: usize = endpoints.iter().map(|e| e.live().in_memory()).sum();
            if in_memory < self.caps.in_memory {
                return true;
            }
            let oldest = endpoints
                .iter()
                .filter_map(|e| e.live().oldest_idle().map(|(id, idle)| (idle, id, e)))
                .max_by_key(|(idle, _, _)| *idle);
            let Some((idle, id, endpoint)) = oldest else {
                return false;
            };
            tracing::debug!(session = %id, "parked early: sessions in memory at their bound");
            endpoint.park(&id, idle).await;
        }
    }

    /// A session seen again (restored from the store here): held, in memory.
    pub fn restored(&self, scope: &Arc<str>, id: &SessionId) {
        let mut ledger = self.ledger.lock();
        let held = ledger
            .held
            .entry((scope.clone(), id.clone()))
            .or_insert(Held {
                owner: Owner::default(),
                unused_since: None,
            });
        held.unused_since = None;
    }

    /// A session left memory, unused for `idle` already.
    pub fn parked(&self, scope: &Arc<str>, id: &SessionId, idle: Duration) {
        let since = Instant::now()
            .checked_sub(idle)
            .unwrap_or_else(Instant::now);
        if let Some(held) = self
            .ledger
            .lock()
            .held
            .get_mut(&(scope.clone(), id.clone()))
        {
            held.unused_since = Some(since);
        }
    }

    /// A session closed by its client or ended: no longer held.
    pub fn forget(&self, scope: &Arc<str>, id: &SessionId) {
        let mut ledger = self.ledger.lock();
        if let Some(held) = ledger.held.remove(&(scope.clone(), id.clone())) {
            ledger.release(held.owner);
        }
    }

    /// Forgets `scope`'s parked sessions unused past the expiry; returns how many.
    pub fn expire(&self, scope: &Arc<str>) -> usize {
        let after = self.caps.expire_after;
        let mut ledger = self.ledger.lock();
        let mut gone = Vec::new();
        ledger.held.retain(|(s, _), held| {
            let expired = s == scope && held.unused_since.is_some_and(|t| t.elapsed() >= after);
            if expired {
                gone.push(held.owner);
            }
            !expired
        });
        for owner in &gone {
            ledger.release(*owner);
        }
        gone.len()
    }
}

/// Room reserved for a session being created.
pub struct Admitted {
    limits: Arc<SessionLimits>,
    owner: Owner,
    pending: bool,
}

impl Admitted {
    /// The session was created: it is held under its id.
    pub fn created(mut self, scope: &Arc<str>, id: SessionId) {
        self.pending = false;
        let mut ledger = self.limits.ledger.lock();
        ledger.reserved -= 1;
        let key = (scope.clone(), id);
        let held = Held {
            owner: self.owner,
            unused_since: None,
        };
        if let Some(old) = ledger.held.insert(key, held) {
            ledger.release(old.owner);
        }
    }
}

impl Drop for Admitted {
    /// No session came of it: the room is given back.
    fn drop(&mut self) {
        if self.pending {
            let mut ledger = self.limits.ledger.lock();
            ledger.reserved -= 1;
            ledger.release(self.owner);
        }
    }
}

#[cfg(test)]
mod tests;
