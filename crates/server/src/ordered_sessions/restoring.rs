//! Sessions being restored from the store. rmcp serialises restores of one session, but only
//! among requests that found it missing: a request arriving once the restore has put the
//! session back in memory, before its replayed handshake is in, would reach the session's
//! worker ahead of its `initialize` and kill it. Such requests wait here instead.

use rmcp::transport::streamable_http_server::session::SessionId;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;

/// The longest a request waits for another's restore of its session (a restore that failed
/// ends the wait too: its session's transport is dropped).
const RESTORE_WAIT: Duration = Duration::from_secs(10);

/// The sessions whose restore has begun and whose replayed handshake is not in yet; each
/// entry's sender is dropped when it is, which wakes whoever waits.
#[derive(Default)]
pub(super) struct Restoring(Mutex<HashMap<SessionId, watch::Sender<()>>>);

impl Restoring {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, watch::Sender<()>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `id`'s restore begins: its requests wait until [`Restoring::end`].
    pub(super) fn begin(&self, id: &SessionId) {
        self.lock().insert(id.clone(), watch::channel(()).0);
    }

    /// `id`'s replayed handshake is in (or its restore failed): its requests go on.
    pub(super) fn end(&self, id: &SessionId) {
        self.lock().remove(id);
    }

    /// Waits while `id` is being restored.
    pub(super) async fn wait(&self, id: &SessionId) {
        let Some(mut ended) = self.lock().get(id).map(watch::Sender::subscribe) else {
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
        restoring.begin(&id);
        let waiting = tokio::spawn({
            let (restoring, id) = (restoring.clone(), id.clone());
            async move { restoring.wait(&id).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        restoring.end(&id);
        waiting.await.unwrap();
    }
}
