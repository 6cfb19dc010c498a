//! A 2026-07-28 server's list changes: that revision has no session to send them on, so the
//! connection opens one `subscriptions/listen` stream for them, kept while it lives.

use crate::events::EventHandler;
use rmcp::model::{ServerCapabilities, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient};
use tokio::task::JoinHandle;

/// The list changes `caps` says the server announces, or `None` when it announces none.
fn announced(caps: &ServerCapabilities) -> Option<SubscriptionFilter> {
    let mut filter = SubscriptionFilter::builder();
    let mut any = false;
    if caps
        .tools
        .as_ref()
        .is_some_and(|t| t.list_changed == Some(true))
    {
        filter = filter.tools_list_changed();
        any = true;
    }
    if caps
        .prompts
        .as_ref()
        .is_some_and(|p| p.list_changed == Some(true))
    {
        filter = filter.prompts_list_changed();
        any = true;
    }
    if caps
        .resources
        .as_ref()
        .is_some_and(|r| r.list_changed == Some(true))
    {
        filter = filter.resources_list_changed();
        any = true;
    }
    any.then(|| filter.build())
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
