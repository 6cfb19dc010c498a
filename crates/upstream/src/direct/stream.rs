//! One directly sent call's answer stream: its answer, and what the upstream asks or says
//! on that stream before it.

use super::{DirectHttp, Link, Target};
use crate::UpstreamError;
use rmcp::model::{
    ClientJsonRpcMessage, RequestId, ServerJsonRpcMessage, ServerNotification, ServerResult,
};
use rmcp::service::{InboundStreamOrigin, RequestContext, RoleClient, Service};
use std::collections::HashMap;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// An upstream's request being answered: dropped, it is cancelled.
struct Asked(CancellationToken);

impl Drop for Asked {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// One call's answer stream: its answer, and the upstream's requests and notifications
/// that come before it.
pub(super) struct CallStream<'a> {
    direct: &'a DirectHttp,
    link: &'a Link<'a>,
    target: &'a Arc<Target>,
    id: &'a RequestId,
    /// The upstream's requests being answered; each is cancelled when the upstream cancels
    /// it or the call ends.
    asked: HashMap<RequestId, Asked>,
}

impl<'a> CallStream<'a> {
    pub(super) fn new(
        direct: &'a DirectHttp,
        link: &'a Link<'a>,
        target: &'a Arc<Target>,
        id: &'a RequestId,
    ) -> Self {
        Self {
            direct,
            link,
            target,
            id,
            asked: HashMap::new(),
        }
    }

    /// The call's answer, when `message` is it; anything else is handled as rmcp would.
    pub(super) async fn take(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> Option<Result<ServerResult, UpstreamError>> {
        match message {
            ServerJsonRpcMessage::Response(r) if r.id == *self.id => Some(Ok(r.result)),
            ServerJsonRpcMessage::Error(e) if e.id.as_ref() == Some(self.id) => Some(Err(
                UpstreamError::from_service(rmcp::ServiceError::McpError(e.error)),
            )),
            ServerJsonRpcMessage::Request(r) => {
                let ct = CancellationToken::new();
                self.asked.insert(r.id.clone(), Asked(ct.clone()));
                self.answer(r.id, r.request, ct);
                None
            }
            ServerJsonRpcMessage::Notification(n) => {
                if let ServerNotification::CancelledNotification(c) = &n.notification {
                    if let Some(asked) = c.params.request_id.as_ref() {
                        self.asked.remove(asked);
                    }
                    return None;
                }
                self.link.handler.on_call_stream(n.notification).await;
                None
            }
            other => {
                tracing::debug!(?other, "a message on a call's stream for no request");
                None
            }
        }
    }

    /// Answers the upstream's request `id` in its own task (it may wait for the caller
    /// while the stream goes on), unless `ct` is cancelled first.
    fn answer(&self, id: RequestId, request: rmcp::model::ServerRequest, ct: CancellationToken) {
        let handler = self.link.handler.clone();
        let poster = self.direct.poster.clone();
        let target = self.target.clone();
        let mut ctx = RequestContext::new(id.clone(), self.link.peer.clone());
        ctx.ct = ct.clone();
        ctx.extensions
            .insert(InboundStreamOrigin::OutboundRequest(self.id.clone()));
        tokio::spawn(async move {
            let handled = Service::<RoleClient>::handle_request(&handler, request, ctx);
            let message = tokio::select! {
                result = handled => match result {
                    Ok(result) => ClientJsonRpcMessage::response(result, id),
                    Err(error) => ClientJsonRpcMessage::error(error, Some(id)),
                },
                _ = ct.cancelled() => return,
            };
            if let Err(e) = poster.post(message, &target).await {
                tracing::debug!("the answer to an upstream's request was not delivered: {e}");
            }
        });
    }
}
