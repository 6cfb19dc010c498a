//! A 2026-07-28 server's list changes: that revision has no session to send them on, so the
//! connection opens one `subscriptions/listen` stream for them, kept while it lives.

use crate::events::EventHandler;
use rmcp::model::{ServerCapabilities, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient};
use tokio::task::JoinHandle;

/// The list changes `caps` says the server announces, or `None` when it announces none.
fn announced(caps: &ServerCapabilities) -> Option<SubscriptionFilter> {
    let announces = |list_changed: Option<bool>| list_changed.filter(|on| *on);
    let mut filter = SubscriptionFilter::new();
    filter.tools_list_changed = announces(caps.tools.as_ref().and_then(|c| c.list_changed));
    filter.prompts_list_changed = announces(caps.prompts.as_ref().and_then(|c| c.list_changed));
    filter.resources_list_changed = announces(caps.resources.as_ref().and_then(|c| c.list_changed));
    (filter != SubscriptionFilter::new()).then_some(filter)
}

/// Listens for the server's list changes and hands each to `handler` (which refreshes the
/// catalogue, as a session's notification does); the task ends with the stream or when the
/// handle is aborted (the connection is dropped).
pub(crate) fn list_changes(
    peer: &Peer<RoleClient>,
    handler: &EventHandler,
) -> Option<JoinHandle<()>> {
    let caps = peer.peer_info()?.capabilities.clone();
    let filter = announced(&caps)?;
    let (peer, handler) = (peer.clone(), handler.clone());
    Some(tokio::spawn(async move {
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(e) => {
                tracing::warn!(server = %handler.server(), "subscriptions/listen was refused, so list changes are not seen until the server is refreshed: {e}");
                return;
            }
        };
        loop {
            match subscription.next().await {
                Ok(Some(notification)) => handler.on_call_stream(notification).await,
                Ok(None) => break,
                Err(e) => {
                    tracing::debug!(server = %handler.server(), "subscriptions/listen ended: {e}");
                    break;
                }
            }
        }
    }))
}
