//! Resource subscriptions of one downstream session (`resources/subscribe`, and the 2026-07-28
//! `subscriptions/listen` stream): updates delivered under the URI the session watches.

use rmcp::model::{ResourceUpdatedNotificationParam, ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleServer, SubscriptionContext};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use switchboard_core::CallError;
use switchboard_registry::{CallOptions, Registry, ResourceUpdate, ResourceWatch};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinSet;

/// How many updates may wait for a slow session before the oldest are skipped.
const UPDATE_QUEUE: usize = 64;

/// One watched resource: the registry it lives in (by owner) and its upstream subscription.
struct Watched {
    owner: String,
    watch: ResourceWatch,
}

impl Watched {
    fn matches(&self, owner: &str, update: &ResourceUpdate) -> bool {
        self.owner == owner
            && self.watch.server() == &update.server
            && self.watch.upstream_uri() == update.uri
    }
}

#[derive(Default)]
struct State {
    /// By the URI the session subscribed with (the exposed one).
    by_uri: HashMap<String, Watched>,
    /// The task that delivers updates to this session, once the first subscription exists.
    forwarder: Option<JoinSet<()>>,
}

/// The resources one session watches; dropped with the session, which unsubscribes them.
#[derive(Clone, Default)]
pub(crate) struct SessionWatches(Arc<Mutex<State>>);

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

impl SessionWatches {
    /// Subscribes this session to `uri` (again: nothing changes) and starts delivering its
    /// updates to `peer`.
    pub async fn subscribe(
        &self,
        registries: &[Registry],
        uri: &str,
        opts: CallOptions,
        peer: Peer<RoleServer>,
    ) -> Result<(), CallError> {
        if lock(&self.0).by_uri.contains_key(uri) {
            return Ok(());
        }
        // The feed first, so an update announced while the upstream subscribes is read
        // once the subscription is recorded.
        {
            let mut state = lock(&self.0);
            if state.forwarder.is_none() {
                let (updates, mut forwarder) = merged_updates(registries);
                forwarder.spawn(deliver(Arc::downgrade(&self.0), updates, peer));
                state.forwarder = Some(forwarder);
            }
        }
        let watched = watch(registries, uri, opts).await?;
        lock(&self.0)
            .by_uri
            .entry(uri.to_string())
            .or_insert(watched);
        Ok(())
    }

    /// Ends this session's subscription to `uri` (the upstream one too when no other
    /// session watches it); false if it had none.
    pub async fn unsubscribe(&self, uri: &str) -> bool {
        let removed = lock(&self.0).by_uri.remove(uri);
        match removed {
            Some(watched) => {
                watched.watch.end().await;
                true
            }
            None => false,
        }
    }
}

/// Finds the registry that offers `uri` and subscribes there.
async fn watch(
    registries: &[Registry],
    uri: &str,
    opts: CallOptions,
) -> Result<Watched, CallError> {
    let registry = registries
        .iter()
        .find(|r| r.catalog().route_resource(uri).is_some())
        .unwrap_or(&registries[0]);
    let watch = registry.watch_resource(uri, opts).await?;
    Ok(Watched {
        owner: registry.owner().key(),
        watch,
    })
}

/// Every registry's updates on one channel, tagged with the registry's owner; the tasks end
/// when the returned set is dropped.
fn merged_updates(
    registries: &[Registry],
) -> (mpsc::Receiver<(String, ResourceUpdate)>, JoinSet<()>) {
    let (tx, rx) = mpsc::channel(UPDATE_QUEUE);
    let mut tasks = JoinSet::new();
    for registry in registries {
        let owner = registry.owner().key();
        let mut updates = registry.resource_updates();
        let tx = tx.clone();
        tasks.spawn(async move {
            loop {
                match updates.recv().await {
                    Ok(update) => {
                        if tx.send((owner.clone(), update)).await.is_err() {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(
                            "{n} resource updates skipped: the session reads too slowly"
                        );
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }
    (rx, tasks)
}

/// Sends each update a session watches to it, under the URI it subscribed with.
async fn deliver(
    state: Weak<Mutex<State>>,
    mut updates: mpsc::Receiver<(String, ResourceUpdate)>,
    peer: Peer<RoleServer>,
) {
    while let Some((owner, update)) = updates.recv().await {
        let Some(state) = state.upgrade() else { return };
        let uris: Vec<String> = lock(&state)
            .by_uri
            .iter()
            .filter(|(_, w)| w.matches(&owner, &update))
            .map(|(uri, _)| uri.clone())
            .collect();
        drop(state);
        for uri in uris {
            let sent = peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                .await;
            if sent.is_err() || peer.is_transport_closed() {
                return;
            }
        }
    }
}

/// What a 2026-07-28 `subscriptions/listen` may ask of the gateway: list changes, and the
/// resources a registry of this gateway offers (an org's are checked once the stream opens).
pub(crate) fn acceptable(
    requested: &SubscriptionFilter,
    known: impl Fn(&str) -> bool,
) -> SubscriptionFilter {
    let mut accepted = requested.clone();
    if let Some(uris) = &mut accepted.resource_subscriptions {
        uris.retain(|uri| known(uri));
    }
    accepted
}

/// Serves one `subscriptions/listen` stream until the caller cancels it: resource updates
/// under the URIs it named, and list changes it opted in to.
pub(crate) async fn listen(
    registries: Vec<Registry>,
    context: SubscriptionContext,
    opts: CallOptions,
) {
    // The caller holds the acknowledgment already: updates that arrive while the upstream
    // subscriptions are made are kept, and read once they exist.
    let (mut updates, _tasks) = merged_updates(&registries);
    let mut watched = Vec::new();
    for uri in context
        .accepted()
        .resource_subscriptions
        .clone()
        .unwrap_or_default()
    {
        match watch(&registries, &uri, opts.clone()).await {
            Ok(w) => watched.push((uri, w)),
            Err(e) => tracing::warn!("subscriptions/listen could not watch {uri}: {e}"),
        }
    }
    let mut changes = JoinSet::new();
    let (changed_tx, mut changed) = mpsc::channel::<()>(1);
    for registry in &registries {
        let mut rx = registry.subscribe();
        let tx = changed_tx.clone();
        changes.spawn(async move {
            while !matches!(rx.recv().await, Err(broadcast::error::RecvError::Closed)) {
                let _ = tx.try_send(());
            }
        });
    }
    let sink = context.sink().clone();
    loop {
        let notifications = tokio::select! {
            () = context.cancelled() => break,
            Some((owner, update)) = updates.recv() => watched
                .iter()
                .filter(|(_, w)| w.matches(&owner, &update))
                .map(|(uri, _)| ServerNotification::ResourceUpdatedNotification(
                    rmcp::model::ResourceUpdatedNotification::new(
                        ResourceUpdatedNotificationParam::new(uri.clone()),
                    ),
                ))
                .collect::<Vec<_>>(),
            Some(()) = changed.recv() => list_changes(sink.accepted()),
        };
        for notification in notifications {
            if let Err(e) = sink.send(notification).await {
                tracing::debug!("subscriptions/listen ended: {e}");
                return end(watched).await;
            }
        }
    }
    end(watched).await;
}

/// The list-changed notifications a listen stream opted in to.
fn list_changes(accepted: &SubscriptionFilter) -> Vec<ServerNotification> {
    use rmcp::model::{
        PromptListChangedNotification, ResourceListChangedNotification, ToolListChangedNotification,
    };
    let mut out = Vec::new();
    if accepted.tools_list_changed == Some(true) {
        out.push(ServerNotification::ToolListChangedNotification(
            ToolListChangedNotification::default(),
        ));
    }
    if accepted.resources_list_changed == Some(true) {
        out.push(ServerNotification::ResourceListChangedNotification(
            ResourceListChangedNotification::default(),
        ));
    }
    if accepted.prompts_list_changed == Some(true) {
        out.push(ServerNotification::PromptListChangedNotification(
            PromptListChangedNotification::default(),
        ));
    }
    out
}

async fn end(watched: Vec<(String, Watched)>) {
    for (_, w) in watched {
        w.watch.end().await;
    }
}
