//! The registries' broadcast feeds (catalogue changes, resource updates) merged onto one
//! channel per session, and the catalogue changes announced to a session.

use rmcp::service::{Peer, RoleServer};
use std::sync::Arc;
use switchboard_registry::Registry;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinSet;

/// How many items may wait for a slow session.
const FEED_QUEUE: usize = 64;

/// Every registry's `feed` on one channel, tagged with the registry's owner key; the tasks
/// end when the returned set is dropped (or the session stops reading).
pub(super) fn merged<T: Clone + Send + 'static>(
    registries: &[Registry],
    feed: impl Fn(&Registry) -> broadcast::Receiver<T>,
) -> (mpsc::Receiver<(Arc<str>, T)>, JoinSet<()>) {
    let (tx, rx) = mpsc::channel(FEED_QUEUE);
    let mut tasks = JoinSet::new();
    for registry in registries {
        let owner: Arc<str> = registry.owner().key().into();
        let mut items = feed(registry);
        let tx = tx.clone();
        tasks.spawn(async move {
            loop {
                match items.recv().await {
                    Ok(item) => {
                        if tx.send((owner.clone(), item)).await.is_err() {
                            return;
                        }
                    }
                    // The newest items are still there: read on from them.
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::debug!("{n} items skipped: the session reads too slowly");
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }
    (rx, tasks)
}

/// Re-announces catalogue changes to one downstream peer until it goes away (or the
/// returned future, which the session owns, is dropped).
pub(super) fn forward_changes(
    registries: &[Registry],
    peer: Peer<RoleServer>,
) -> impl Future<Output = ()> + Send + 'static {
    let (mut changes, tasks) = merged(registries, Registry::subscribe);
    async move {
        let _tasks = tasks;
        while changes.recv().await.is_some() {
            let sent = peer.notify_tool_list_changed().await.is_ok()
                && peer.notify_resource_list_changed().await.is_ok()
                && peer.notify_prompt_list_changed().await.is_ok();
            if !sent || peer.is_transport_closed() {
                return;
            }
        }
    }
}
