//! The side queues of open request streams: where a notification tagged with its request goes,
//! so it reaches the caller on that request's own stream, before the result.

use rmcp::model::{GetExtensions, RequestId, ServerJsonRpcMessage};
use rmcp::service::OriginatingRequestId;
use rmcp::transport::streamable_http_server::session::SessionId;
use std::collections::HashMap;
use std::sync::Arc;
use switchboard_sync::Mutex;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How many tagged notifications may wait for their stream before the sender waits.
const SIDE_QUEUE: usize = 64;

pub(super) type Key = (SessionId, RequestId);

/// A request stream that takes tagged messages.
pub(super) struct SideQueue {
    pub(super) queue: mpsc::Sender<ServerJsonRpcMessage>,
    /// Whether the caller's requests to the client ride it too (a fast-path call: rmcp's
    /// session does not know the request, so it could not route them).
    pub(super) takes_requests: bool,
    /// Cancels a fast-path call when the client cancels its request.
    pub(super) cancel: Option<CancellationToken>,
}

/// The open request streams that take tagged notifications, by session and request id.
#[derive(Default)]
pub(super) struct SideQueues(Mutex<HashMap<Key, SideQueue>>);

impl SideQueues {
    pub(super) fn lock(&self) -> switchboard_sync::MutexGuard<'_, HashMap<Key, SideQueue>> {
        self.0.lock()
    }

    /// The queue of the request stream a message is tagged for, if that stream is open.
    pub(super) fn for_message(
        &self,
        session: &SessionId,
        message: &ServerJsonRpcMessage,
    ) -> Option<mpsc::Sender<ServerJsonRpcMessage>> {
        let (origin, request) = match message {
            ServerJsonRpcMessage::Notification(n) => (n.notification.extensions(), false),
            ServerJsonRpcMessage::Request(r) => (r.request.extensions(), true),
            _ => return None,
        };
        let origin = origin.get::<OriginatingRequestId>()?;
        let queues = self.lock();
        let side = queues.get(&(session.clone(), origin.0.clone()))?;
        (side.takes_requests || !request).then(|| side.queue.clone())
    }

    /// Registers a request stream's queue until the returned guard is dropped.
    pub(super) fn open(
        self: &Arc<Self>,
        key: Key,
        takes_requests: bool,
        cancel: Option<CancellationToken>,
    ) -> (mpsc::Receiver<ServerJsonRpcMessage>, Registered) {
        let (queue, rx) = mpsc::channel(SIDE_QUEUE);
        let side = SideQueue {
            queue,
            takes_requests,
            cancel,
        };
        self.lock().insert(key.clone(), side);
        let registered = Registered {
            queues: self.clone(),
            key,
        };
        (rx, registered)
    }
}

/// Removes a request stream's queue when the stream is dropped.
pub struct Registered {
    queues: Arc<SideQueues>,
    key: Key,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.queues.lock().remove(&self.key);
    }
}
