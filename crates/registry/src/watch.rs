//! Resource subscriptions shared by every downstream session: one upstream subscription per
//! resource, counted, ended with the last watcher and renewed when the server restarts.

use crate::entry::ServerEntry;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use switchboard_core::ServerSlug;
use switchboard_upstream::Connection;

/// How many watchers each of one server's resource URIs (as the server names them) has.
#[derive(Default)]
pub(crate) struct WatchCounts(Mutex<HashMap<String, usize>>);

impl WatchCounts {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts one more watcher of `uri`; true when it is the first.
    pub fn add(&self, uri: &str) -> bool {
        let mut counts = self.lock();
        let count = counts.entry(uri.to_string()).or_default();
        *count += 1;
        *count == 1
    }

    /// Counts one watcher less; true when it was the last.
    pub fn remove(&self, uri: &str) -> bool {
        let mut counts = self.lock();
        match counts.get_mut(uri) {
            Some(count) if *count > 1 => {
                *count -= 1;
                false
            }
            Some(_) => {
                counts.remove(uri);
                true
            }
            None => false,
        }
    }

    /// True while any resource of the server is watched (it is then never stopped as idle).
    pub fn any(&self) -> bool {
        !self.lock().is_empty()
    }

    pub fn uris(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
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
        if !self.entry.watched.remove(&self.uri) {
            return;
        }
        if let Some(conn) = self.entry.live_connection()
            && let Err(e) = conn.watch_resource(&self.uri, false).await
        {
            tracing::debug!(server = %self.entry.spec.name, "resources/unsubscribe {}: {e}", self.uri);
        }
    }
}

impl std::fmt::Debug for ResourceWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ResourceWatch({}, {})", self.server(), self.uri)
    }
}

impl Drop for ResourceWatch {
    fn drop(&mut self) {
        if !self.counted || !self.entry.watched.remove(&self.uri) {
            return;
        }
        // A stopped server has no subscription left to end.
        let Some(conn) = self.entry.live_connection() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let uri = std::mem::take(&mut self.uri);
        let server = self.entry.spec.name.clone();
        runtime.spawn(async move {
            if let Err(e) = conn.watch_resource(&uri, false).await {
                tracing::debug!(server = %server, "resources/unsubscribe {uri}: {e}");
            }
        });
    }
}

/// Subscribes a new connection to every resource its server's sessions still watch.
pub(crate) fn renew(entry: &ServerEntry, conn: &Arc<Connection>) {
    let uris = entry.watched.uris();
    if uris.is_empty() {
        return;
    }
    let conn = conn.clone();
    let server = entry.spec.name.clone();
    tokio::spawn(async move {
        for uri in uris {
            if let Err(e) = conn.watch_resource(&uri, true).await {
                tracing::warn!(server = %server, "could not renew the subscription to {uri}: {e}");
            }
        }
    });
}
