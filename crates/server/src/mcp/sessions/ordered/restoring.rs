//! Sessions being restored from the store. rmcp serialises restores of one session, but only
//! among requests that found it missing: a request arriving once the restore has put the
//! session back in memory, before its replayed handshake is in, would reach the session's
//! worker ahead of its `initialize` and kill it. Such requests wait here instead.

use rmcp::transport::streamable_http_server::session::SessionId;
use std::collections::HashMap;
use std::time::Duration;
use switchboard_sync::Mutex;
use tokio::sync::watch;

/// The longest a request waits for another's restore of its session (a restore that failed
/// ends the wait too: its session's transport is dropped).
const RESTORE_WAIT: Duration = Duration::from_secs(10);

/// The sessions whose restore has begun and whose replayed handshake is not in yet, each with
/// its restore's number; an entry's sender is dropped when it ends, which wakes whoever waits.
#[derive(Default)]
pub(super) struct Restoring {
    sessions: Mutex<HashMap<SessionId, (u64, watch::Sender<()>)>>,
    next: std::sync::atomic::AtomicU64,
}

impl Restoring {
    /// `id`'s restore begins: its requests wait until it ends. Its number, for
    /// [`Restoring::end_restore`].
    pub(super) fn begin(&self, id: &SessionId) -> u64 {
        let number = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.sessions
            .lock()
            .insert(id.clone(), (number, watch::channel(()).0));
        number
    }

    /// `id`'s replayed handshake is in: its requests go on.
    pub(super) fn end(&self, id: &SessionId) {
        self.sessions.lock().remove(id);
    }

    /// Restore `number` of `id` is over (its session's service ended, maybe failing): its
    /// requests go on, unless a later restore of the same session is under way.
    pub(super) fn end_restore(&self, id: &SessionId, number: u64) {
        let mut sessions = self.sessions.lock();
        if sessions.get(id).is_some_and(|(n, _)| *n == number) {
            sessions.remove(id);
        }
    }

    /// Waits while `id` is being restored.
    pub(super) async fn wait(&self, id: &SessionId) {
        let Some(mut ended) = self.sessions.lock().get(id).map(|(_, tx)| tx.subscribe()) else {
            return;
        };
        // Nothing is ever sent: the wait ends when the sender is dropped.
        if tokio::time::timeout(RESTORE_WAIT, ended.changed())
            .await
            .is_err()
        {
            tracing::warn!(session = %id, "waited {RESTORE_WAIT:?} for the session's restore; going on");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_wait_ends_when_the_restore_ends_and_not_before() {
        let restoring = std::sync::Arc::new(Restoring::default());
        let id = SessionId::from("s-1");
        restoring.wait(&id).await; // not restoring: no wait
        let first = restoring.begin(&id);
        let waiting = tokio::spawn({
            let (restoring, id) = (restoring.clone(), id.clone());
            async move { restoring.wait(&id).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        restoring.end(&id);
        waiting.await.unwrap();

        // An earlier restore's end does not end a later one's wait.
        let second = restoring.begin(&id);
        restoring.end_restore(&id, first);
        assert!(restoring.sessions.lock().contains_key(&id));
        restoring.end_restore(&id, second);
        assert!(!restoring.sessions.lock().contains_key(&id));
    }
}
