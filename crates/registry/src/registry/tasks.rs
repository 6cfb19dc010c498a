//! The registry's background work: re-discovery on list-changed notices, periodic refresh,
//! stopping idle stdio servers, and reconnecting remote servers in `error`.

use super::{IDLE_CHECK, Inner, Registry, rebuild, relist};
use crate::entry::ServerEntry;
use std::sync::Arc;
use switchboard_core::ServerStatus;
use switchboard_upstream::UpstreamEvent;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub(super) async fn watch_changes(
    inner: std::sync::Weak<Inner>,
    mut events: mpsc::Receiver<UpstreamEvent>,
) {
    while let Some(event) = events.recv().await {
        let Some(inner) = inner.upgrade() else { return };
        let server = match &event {
            UpstreamEvent::ToolsChanged(s)
            | UpstreamEvent::ResourcesChanged(s)
            | UpstreamEvent::PromptsChanged(s) => s.clone(),
            UpstreamEvent::ResourceUpdated(server, uri) => {
                tracing::debug!(server = %server, "resource updated: {uri}");
                let _ = inner.updates.send(crate::ResourceUpdate {
                    server: server.clone(),
                    uri: uri.clone(),
                });
                continue;
            }
        };
        let entry = inner
            .servers
            .read()
            .iter()
            .find(|e| e.spec.name == server)
            .cloned();
        let Some(entry) = entry else { continue };
        let Some(conn) = entry.live_connection() else {
            continue;
        };
        match relist(&entry, &conn).await {
            Ok(()) => tracing::info!(server = %server, "re-discovered after {event:?}"),
            Err(e) => tracing::warn!(server = %server, "re-discovery failed: {e}"),
        }
        rebuild(&inner);
    }
}

/// How many servers start at once: twice the CPUs, at least 4.
pub(super) fn start_concurrency() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get() * 2)
        .unwrap_or(4)
        .max(4)
}

/// Closes a server that left the registry once its calls in flight are done (within their
/// own timeout), in the background so the change takes effect for new calls at once.
pub(super) fn retire(entry: Arc<ServerEntry>) {
    let grace = entry.spec.call_timeout();
    tokio::spawn(async move { entry.drain_and_close(grace).await });
}

/// Lists every running server again every `every` (±10%), until the registry goes away.
pub(super) async fn refresh_periodically(
    registry: std::sync::Weak<Inner>,
    every: std::time::Duration,
) {
    use rand::Rng;
    loop {
        let jitter = rand::rng().random_range(0.9..=1.1);
        let shutdown = match registry.upgrade() {
            Some(inner) => inner.shutdown.clone(),
            None => return,
        };
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(every.mul_f64(jitter)) => {}
        }
        let Some(inner) = registry.upgrade() else {
            return;
        };
        let registry = Registry { inner };
        for server in registry.servers() {
            if server.status == ServerStatus::Ready {
                registry.rediscover(&server.name).await;
            }
        }
    }
}

/// Stops stdio servers left idle, until the registry is dropped or shut down.
pub(super) async fn reap_idle(inner: std::sync::Weak<Inner>, shutdown: CancellationToken) {
    let mut tick = tokio::time::interval(IDLE_CHECK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        let Some(inner) = inner.upgrade() else { return };
        let entries: Vec<_> = inner.servers.read().clone();
        let running = |server: &str| {
            (entries.iter())
                .any(|e| e.spec.name.as_str() == server && e.status() == ServerStatus::Ready)
        };
        inner.capability_sessions.close_idle(running);
        inner.end_user_sessions.close_idle(running);
        for entry in crate::lifecycle::stop_idle(&entries).await {
            let _ = inner.status.send(entry.info());
        }
        for entry in crate::lifecycle::expire_authorizations(&entries) {
            let _ = inner.status.send(entry.info());
        }
        for entry in entries.into_iter().filter(|e| e.reconnect_due()) {
            tokio::spawn(reconnect(Arc::downgrade(&inner), entry));
        }
    }
}

/// One background reconnect of a remote server in `error`; what it offers now becomes the
/// catalogue's when it is back.
async fn reconnect(inner: std::sync::Weak<Inner>, entry: Arc<ServerEntry>) {
    let Some(connect) = inner.upgrade().map(|i| i.connect.clone()) else {
        return;
    };
    if !entry.reconnect(&connect).await {
        return;
    }
    let Some(inner) = inner.upgrade() else { return };
    if entry.status() == ServerStatus::Ready {
        rebuild(&inner);
    }
    let _ = inner.status.send(entry.info());
}
