//! Calls waiting for an end user's consent: a wake-up whenever a grant changes (here, on
//! another replica, or from the CLI), so a waiting call looks at its grant again at once.

use tokio::sync::broadcast;

/// Grant changes a waiting call may fall behind by before it rereads its grant anyway.
const CHANGES_QUEUE: usize = 64;

/// How waiting for a grant went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantWait {
    /// The end user's grant is there: call again.
    Arrived,
    /// Not yet, at the deadline given.
    NotYet,
}

pub(crate) struct ConsentWaits {
    changed: broadcast::Sender<String>,
}

impl ConsentWaits {
    pub(crate) fn new() -> Self {
        Self {
            changed: broadcast::channel(CHANGES_QUEUE).0,
        }
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
