//! Calls waiting for an end user's consent: which grant each consent link stands for, and a
//! wake-up whenever a grant changes (here, on another replica, or from the CLI).

use std::collections::HashMap;
use std::time::{Duration, Instant};
use switchboard_sync::Mutex;
use tokio::sync::broadcast;

/// How long a consent link is remembered (it works for ten minutes).
const KEPT: Duration = Duration::from_secs(600);
/// Links remembered at most; past it, a new one is not waited for (its caller gets `-32042`).
const MAX_KEPT: usize = 10_000;
/// Grant changes a waiting call may fall behind by before it rereads its grant anyway.
const CHANGES_QUEUE: usize = 64;

/// How waiting for a consent went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantWait {
    /// The end user's grant is there: call again.
    Arrived,
    /// Not yet, at the deadline given.
    NotYet,
    /// This replica did not make that link (or forgot it): nothing to wait for.
    Unknown,
}

pub(crate) struct ConsentWaits {
    /// Consent id → the grant's store key, and when it was asked.
    asked: Mutex<HashMap<String, (String, Instant)>>,
    changed: broadcast::Sender<String>,
}

impl ConsentWaits {
    pub(crate) fn new() -> Self {
        Self {
            asked: Mutex::default(),
            changed: broadcast::channel(CHANGES_QUEUE).0,
        }
    }

    /// The consent `id` asks for the grant kept as `store_key`.
    pub(crate) fn asked(&self, id: &str, store_key: &str) {
        let mut asked = self.asked.lock();
        if asked.len() >= MAX_KEPT {
            asked.retain(|_, (_, at)| at.elapsed() < KEPT);
        }
        if asked.len() < MAX_KEPT {
            asked.insert(id.to_string(), (store_key.to_string(), Instant::now()));
        }
    }

    /// The store key of the grant consent `id` asks for, while remembered.
    pub(crate) fn store_key(&self, id: &str) -> Option<String> {
        let asked = self.asked.lock();
        let (key, at) = asked.get(id)?;
        (at.elapsed() < KEPT).then(|| key.clone())
    }

    pub(crate) fn done(&self, id: &str) {
        self.asked.lock().remove(id);
    }

    /// A grant changed: waiting calls look again (after its cached copy was forgotten).
    pub(crate) fn changed(&self, store_key: &str) {
        if self.changed.receiver_count() > 0 {
            let _ = self.changed.send(store_key.to_string());
        }
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<String> {
        self.changed.subscribe()
    }
}
