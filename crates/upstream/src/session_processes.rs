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

#[derive(Default)]
struct Processes(tokio::sync::Mutex<HashMap<String, Arc<Connection>>>);

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
        let mut conns = self.0.0.lock().await;
        if let Some(conn) = conns.get(key)
            && !conn.is_closed()
        {
            return Ok(conn.clone());
        }
        tracing::info!(server = %spec.name, "starting a process for one session");
        let conn = Arc::new(Connection::connect(spec, connect).await?);
        if let Some(dead) = conns.insert(key.to_string(), conn.clone()) {
            tokio::spawn(async move { dead.close().await });
        }
        Ok(conn)
    }

    /// Tells this session's processes that its roots changed (they are its own: the session's
    /// caller answers their `roots/list`).
    pub async fn roots_changed(&self) {
        let conns: Vec<_> = self.0.0.lock().await.values().cloned().collect();
        for conn in conns {
            conn.notify_roots_changed().await;
        }
    }

    /// How many processes this session runs now.
    pub async fn running(&self) -> usize {
        self.0.0.lock().await.len()
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        let conns = std::mem::take(self.0.get_mut());
        if conns.is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            for (_, conn) in conns {
                tracing::info!(server = %conn.server(), "session ended: stopping its process");
                conn.close().await;
            }
        });
    }
}
