//! Resource subscriptions shared by every downstream session: one upstream subscription per
//! resource, counted, ended with the last watcher and renewed when the server restarts.

use crate::entry::ServerEntry;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use switchboard_core::{CallError, ServerSlug};
use switchboard_upstream::Connection;

/// How many watchers each of one server's resource URIs (as the server names them) has. A
/// count and the upstream (un)subscription it causes change under one lock, so a first
/// watcher and a last one never cross.
#[derive(Default)]
pub(crate) struct WatchCounts {
    counts: Arc<tokio::sync::Mutex<HashMap<String, usize>>>,
    /// How many URIs are watched, read without the lock by the idle check.
    watched: AtomicUsize,
}

impl WatchCounts {
    /// Counts one more watcher of `uri`; the first is subscribed upstream by `subscribe`,
    /// and counted only once that succeeded.
    pub(crate) async fn add<F, Fut>(&self, uri: &str, subscribe: F) -> Result<(), CallError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(), CallError>>,
    {
        let mut counts = self.counts.lock().await;
        if let Some(count) = counts.get_mut(uri) {
            *count += 1;
            return Ok(());
        }
        subscribe().await?;
        counts.insert(uri.to_string(), 1);
        self.watched.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// True while any resource of the server is watched (it is then never stopped as idle).
    pub(crate) fn any(&self) -> bool {
        self.watched.load(Ordering::Relaxed) > 0
    }
}

/// Counts one watcher of `uri` less; the last is unsubscribed upstream, if the server runs.
async fn unwatch(entry: &ServerEntry, uri: &str) {
    let watched = &entry.watched;
    let mut counts = watched.counts.lock().await;
    match counts.get_mut(uri) {
        Some(count) if *count > 1 => {
            *count -= 1;
            return;
        }
        Some(_) => {
            counts.remove(uri);
            watched.watched.fetch_sub(1, Ordering::Relaxed);
        }
        None => return,
    }
    // Read under the lock: a server restarted meanwhile was renewed on its new connection,
    // which is the one to unsubscribe (a stopped server has no subscription left to end).
    if let Some(conn) = entry.live_connection()
        && let Err(e) = conn.watch_resource(uri, false).await
    {
        tracing::debug!(server = %entry.spec.name, "resources/unsubscribe {uri}: {e}");
    }
}

/// A resource changed upstream (`notifications/resources/updated`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceUpdate {
    pub server: ServerSlug,
    /// The URI as the upstream names it; a session maps it back to the URI it watches.
    pub uri: String,
}

/// One session's subscription to one resource; dropping it unsubscribes upstream when no
/// other session watches the resource.
pub struct ResourceWatch {
    entry: Arc<ServerEntry>,
    uri: String,
    /// Still counted among the resource's watchers (until ended or dropped).
    counted: bool,
}

impl ResourceWatch {
    pub fn server(&self) -> &ServerSlug {
        &self.entry.spec.name
    }

    /// The URI as the upstream names it (what its updates carry).
    pub fn upstream_uri(&self) -> &str {
        &self.uri
    }

    /// A watch of `uri` already counted in `entry.watched`.
    pub(crate) fn counted(entry: Arc<ServerEntry>, uri: String) -> Self {
        Self {
            entry,
            uri,
            counted: true,
        }
    }

    /// Ends the watch now, waiting for the upstream unsubscription when it was the last.
    pub async fn end(mut self) {
        self.counted = false;
        unwatch(&self.entry, &self.uri).await;
    }
}

impl std::fmt::Debug for ResourceWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ResourceWatch({}, {})", self.server(), self.uri)
    }
}

impl Drop for ResourceWatch {
    fn drop(&mut self) {
        if !self.counted {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (entry, uri) = (self.entry.clone(), std::mem::take(&mut self.uri));
        runtime.spawn(async move { unwatch(&entry, &uri).await });
    }
}

/// Subscribes a new connection to every resource its server's sessions still watch.
pub(crate) fn renew(entry: &ServerEntry, conn: &Arc<Connection>) {
    if !entry.watched.any() {
        return;
    }
    let counts = entry.watched.counts.clone();
    let (server, conn) = (entry.spec.name.clone(), conn.clone());
    tokio::spawn(async move {
        // Under the lock: a last watcher leaving meanwhile unsubscribes after this.
        let counts = counts.lock().await;
        for uri in counts.keys() {
            if let Err(e) = conn.watch_resource(uri, true).await {
                tracing::warn!(server = %server, "could not renew the subscription to {uri}: {e}");
            }
        }
    });
}
