//! Stdio servers run once per downstream session (`per_session`): each session's own
//! processes, started on its first call to them and stopped when the session ends.

use crate::{ConnectOptions, Connection, UpstreamError};
use std::collections::HashMap;
use std::sync::Arc;
use switchboard_core::ServerSpec;

/// One downstream session's processes, by registry and server. Cheap to clone; the last
/// clone dropped (the session gone) stops them all.
#[derive(Clone, Default)]
pub struct SessionProcesses(Arc<Processes>);

/// One server's process for this session: its own lock, so a slow start holds up only the
/// calls to that server.
type Slot = Arc<tokio::sync::Mutex<Option<Arc<Connection>>>>;

#[derive(Default)]
struct Processes(switchboard_sync::Mutex<HashMap<String, Slot>>);

impl std::fmt::Debug for SessionProcesses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionProcesses")
    }
}

impl SessionProcesses {
    /// This session's connection to `spec` (kept under `key`), started if it has none or
    /// its process died.
    pub async fn connection(
        &self,
        key: &str,
        spec: &ServerSpec,
        connect: &ConnectOptions,
    ) -> Result<Arc<Connection>, UpstreamError> {
        let slot = self.0.0.lock().entry(key.to_string()).or_default().clone();
        let mut slot = slot.lock().await;
        if let Some(conn) = slot.as_ref()
            && !conn.is_closed()
        {
            return Ok(conn.clone());
        }
        tracing::info!(server = %spec.name, "starting a process for one session");
        let conn = Arc::new(Connection::connect(spec, connect).await?);
        if let Some(dead) = slot.replace(conn.clone()) {
            tokio::spawn(async move { dead.close().await });
        }
        Ok(conn)
    }

    /// Whether this session has started no process of its own.
    pub fn is_empty(&self) -> bool {
        self.0.0.lock().is_empty()
    }

    /// Tells this session's processes that its roots changed (a `roots/list` they send
    /// during one of the session's calls is answered by its caller). A process still
    /// starting asks for them anyway.
    pub async fn roots_changed(&self) {
        for conn in self.running().await {
            conn.notify_roots_changed().await;
        }
    }

    /// Asks this session's running processes for the level the session asked for.
    #[allow(deprecated)] // logging: deprecated by the 2026-07-28 revision, live in older ones
    pub async fn set_log_level(&self, level: rmcp::model::LoggingLevel) {
        for conn in self.running().await {
            if let Err(e) = conn.set_log_level(level).await {
                tracing::debug!(server = %conn.server(), "logging/setLevel: {e}");
            }
        }
    }

    /// The processes running now (each slot is read after the one a start holds is free).
    async fn running(&self) -> Vec<Arc<Connection>> {
        let slots: Vec<Slot> = self.0.0.lock().values().cloned().collect();
        let mut running = Vec::new();
        for slot in slots {
            if let Some(conn) = slot.lock().await.clone() {
                running.push(conn);
            }
        }
        running
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        let running: Vec<_> = self
            .0
            .lock()
            .drain()
            .filter_map(|(_, slot)| slot.try_lock().ok().and_then(|mut s| s.take()))
            .collect();
        if running.is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            for conn in running {
                tracing::info!(server = %conn.server(), "session ended: stopping its process");
                conn.close().await;
            }
        });
    }
}
