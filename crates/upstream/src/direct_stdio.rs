//! `tools/call` to a stdio server written by the calling task: one line onto the child's
//! stdin, its answer handed over by the reader as it passes, without the hops through rmcp's
//! service loop and per-send task that every other request takes. The server's requests and
//! notifications during the call still go through rmcp and the call's tap, as before.

use crate::UpstreamError;
use crate::call::CallOptions;
use crate::direct::{Link, request};
use crate::stdio_child::StdinLine;
use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, NumberOrString, RequestId, ServerJsonRpcMessage,
    ServerResult,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use switchboard_sync::Mutex;
use tokio::sync::oneshot;

/// The prefix of a direct call's id (`direct::request::tool_call`).
const ID_PREFIX: &str = "sb-";

/// The direct calls waiting for their answers on one connection, by request id.
#[derive(Clone, Default)]
pub(crate) struct Replies(Arc<Mutex<Waiting>>);

#[derive(Default)]
struct Waiting {
    by_id: HashMap<RequestId, oneshot::Sender<ServerJsonRpcMessage>>,
    /// The transport ended: nothing more will be answered.
    closed: bool,
}

impl Replies {
    /// Hands `message` to the direct call it answers and returns `None`; gives back any other
    /// message. An answer to a direct call that no longer waits (it timed out or was
    /// cancelled) is dropped here, as rmcp drops a late answer to its own.
    pub(crate) fn deliver(&self, message: ServerJsonRpcMessage) -> Option<ServerJsonRpcMessage> {
        let id = match &message {
            ServerJsonRpcMessage::Response(r) => &r.id,
            ServerJsonRpcMessage::Error(e) => match &e.id {
                Some(id) => id,
                None => return Some(message),
            },
            _ => return Some(message),
        };
        if !matches!(id, NumberOrString::String(s) if s.starts_with(ID_PREFIX)) {
            return Some(message);
        }
        let waiter = self.0.lock().by_id.remove(id);
        match waiter {
            Some(waiter) => {
                let _ = waiter.send(message);
            }
            None => tracing::debug!(%id, "an answer to a direct call that no longer waits"),
        }
        None
    }

    /// The transport ended: every waiting call learns it now, and no new one waits.
    pub(crate) fn close(&self) {
        let mut waiting = self.0.lock();
        waiting.closed = true;
        waiting.by_id.clear();
    }

    fn is_closed(&self) -> bool {
        self.0.lock().closed
    }

    /// Waits for the answer to `id`, until the returned guard is dropped; `None` once closed.
    fn expect(&self, id: RequestId) -> Option<Expected<'_>> {
        let (tx, rx) = oneshot::channel();
        let mut waiting = self.0.lock();
        if waiting.closed {
            return None;
        }
        waiting.by_id.insert(id.clone(), tx);
        Some(Expected {
            replies: self,
            id,
            answer: rx,
        })
    }
}

/// A direct call's place among the waiting: forgotten however the call ends.
struct Expected<'a> {
    replies: &'a Replies,
    id: RequestId,
    answer: oneshot::Receiver<ServerJsonRpcMessage>,
}

impl Drop for Expected<'_> {
    fn drop(&mut self) {
        self.replies.0.lock().by_id.remove(&self.id);
    }
}

/// A stdio connection's direct way to send `tools/call`.
pub(crate) struct DirectStdio {
    stdin: StdinLine,
    replies: Replies,
    next_id: AtomicU64,
}

impl DirectStdio {
    pub(crate) fn new(stdin: StdinLine, replies: Replies) -> Self {
        Self {
            stdin,
            replies,
            next_id: AtomicU64::new(1),
        }
    }

    /// The transport has ended (the server exited or closed its stdout).
    pub(crate) fn is_closed(&self) -> bool {
        self.replies.is_closed()
    }

    /// Sends the call and waits for its answer, within `link.timeout` and until `opts.cancel`;
    /// `None` when rmcp must send it instead (the transport has ended: rmcp says how).
    pub(crate) async fn call_tool(
        &self,
        mut link: Link<'_>,
        params: CallToolRequestParams,
        opts: &CallOptions,
    ) -> Option<Result<ServerResult, UpstreamError>> {
        let request::Outgoing {
            id,
            progress,
            request,
            tap,
            untap: _untap,
        } = request::outgoing(&self.next_id, &mut link, params, opts);
        // Recorded as the line goes out.
        link.handler.taps.insert(id.clone(), Some(progress), &tap);
        let message = ClientJsonRpcMessage::request(request, id.clone());
        let mut line = match serde_json::to_vec(&message) {
            Ok(line) => line,
            Err(e) => return Some(Err(UpstreamError::Transport(e.to_string()))),
        };
        line.push(b'\n');
        let mut expected = self.replies.expect(id.clone())?;
        // The write is timed too: a server that stops reading its stdin fills the pipe.
        let exchange = async {
            if let Err(e) = self.stdin.write(line).await {
                tracing::debug!("a direct call not written ({e}): rmcp sends it");
                return None;
            }
            Some(match (&mut expected.answer).await {
                Ok(ServerJsonRpcMessage::Response(r)) => Ok(r.result),
                Ok(ServerJsonRpcMessage::Error(e)) => Err(UpstreamError::from_service(
                    rmcp::ServiceError::McpError(e.error),
                )),
                Ok(_) => Err(UpstreamError::Unexpected),
                // The transport ended before the answer came.
                Err(_) => Err(UpstreamError::Closed),
            })
        };
        request::bounded(&link, &id, opts, exchange).await
    }
}
