//! Resource subscriptions of one downstream session (`resources/subscribe`, and the 2026-07-28
//! `subscriptions/listen` stream): updates delivered under the URI the session watches.

use super::feeds::merged;
use super::view::registry_for;
use rmcp::model::{ResourceUpdatedNotificationParam, ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleServer, SubscriptionContext};
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use switchboard_core::CallError;
use switchboard_registry::{CallOptions, Registry, ResourceUpdate, ResourceWatch};
use switchboard_sync::Mutex;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// One watched resource: the registry it lives in (by owner) and its upstream subscription.
struct Watched {
    owner: Arc<str>,
    watch: ResourceWatch,
}

impl Watched {
    fn matches(&self, owner: &str, update: &ResourceUpdate) -> bool {
        *self.owner == *owner
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
pub(crate) struct SessionWatches {
    state: Arc<Mutex<State>>,
    /// One subscribe or unsubscribe of this session at a time: an unsubscribe never passes
    /// the subscribe it follows.
    changing: Arc<tokio::sync::Mutex<()>>,
}

impl SessionWatches {
    /// Whether the session watches nothing.
    pub(super) fn is_empty(&self) -> bool {
        self.state.lock().by_uri.is_empty()
    }

    /// Subscribes this session to `uri` (again: nothing changes) and starts delivering its
    /// updates to `peer`.
    pub(super) async fn subscribe(
        &self,
        registries: &[Registry],
        uri: &str,
        opts: CallOptions,
        peer: Peer<RoleServer>,
    ) -> Result<(), CallError> {
        let _one_at_a_time = self.changing.lock().await;
        {
            let mut state = self.state.lock();
            if state.by_uri.contains_key(uri) {
                return Ok(());
            }
            if state.forwarder.is_none() {
                let (updates, mut forwarder) = merged(registries, Registry::resource_updates);
                forwarder.spawn(deliver(Arc::downgrade(&self.state), updates, peer));
                state.forwarder = Some(forwarder);
            }
        }
        let watched = watch(registries, uri, opts).await?;
        self.state.lock().by_uri.insert(uri.to_string(), watched);
        Ok(())
    }

    /// Ends this session's subscription to `uri` (the upstream one too when no other
    /// session watches it); false if it had none.
    pub(super) async fn unsubscribe(&self, uri: &str) -> bool {
        let _one_at_a_time = self.changing.lock().await;
        let removed = self.state.lock().by_uri.remove(uri);
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
    let registry = registry_for(registries, |c| c.route_resource(uri).is_some());
    let watch = registry.watch_resource(uri, opts).await?;
    Ok(Watched {
        owner: registry.owner().key().into(),
        watch,
    })
}

/// Sends each update a session watches to it, under the URI it subscribed with.
async fn deliver(
    state: Weak<Mutex<State>>,
    mut updates: mpsc::Receiver<(Arc<str>, ResourceUpdate)>,
    peer: Peer<RoleServer>,
) {
    while let Some((owner, update)) = updates.recv().await {
        let Some(state) = state.upgrade() else { return };
        let uris: Vec<String> = state
            .lock()
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
) -> Result<(), CallError> {
    // The caller holds the acknowledgment already: list changes from now on are kept while
    // the upstream subscriptions are made, and so are the updates of those made first.
    let (mut updates, _update_feeds) = merged(&registries, Registry::resource_updates);
    let (mut changed, _change_feeds) = merged(&registries, Registry::subscribe);
    let mut watched = Vec::new();
    for uri in context
        .accepted()
        .resource_subscriptions
        .clone()
        .unwrap_or_default()
    {
        match watch(&registries, &uri, opts.clone()).await {
            Ok(w) => watched.push((uri, w)),
            // The stream ends with the reason rather than staying open without updates.
            Err(e) => {
                end(watched).await;
                return Err(CallError::new(
                    e.kind,
                    format!("subscriptions/listen cannot watch {uri}: {}", e.message),
                ));
            }
        }
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
            Some(_) = changed.recv() => list_changes(sink.accepted()),
        };
        for notification in notifications {
            if let Err(e) = sink.send(notification).await {
                tracing::debug!("subscriptions/listen ended: {e}");
                end(watched).await;
                return Ok(());
            }
        }
    }
    end(watched).await;
    Ok(())
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
