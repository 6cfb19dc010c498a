//! What an upstream asks of the caller while serving its call (sampling, elicitation, roots,
//! log lines, progress), routed to the one call that caused it and never to another.

use rmcp::model::{ClientResult, ErrorCode, ErrorData, ProgressToken, RequestId, ServerRequest};
use rmcp::model::{ServerJsonRpcMessage, ServerNotification};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// One thing an upstream sent for the caller of a call in flight.
#[derive(Debug)]
pub enum Upcall {
    /// A request only the caller can answer; its answer goes back to the upstream.
    Request {
        request: ServerRequest,
        reply: oneshot::Sender<Result<ClientResult, ErrorData>>,
    },
    /// A notification for the caller (progress, a log line, an elicitation completed), in
    /// the order the upstream sent it, before the call's result.
    Notification(ServerNotification),
}

/// Where a call's upcalls go (the caller drains it while the call runs).
pub type UpcallSender = mpsc::Sender<Upcall>;

/// Marker in an outbound request's extensions (never on the wire): the call's upcall
/// channel, read by the transport taps when the request is sent.
#[derive(Clone, Debug)]
pub struct CallTap(pub UpcallSender);

/// The calls in flight on one connection that accept upcalls, by upstream request id and
/// progress token.
#[derive(Clone, Default)]
pub struct Taps {
    inner: Arc<Mutex<TapTable>>,
}

#[derive(Default)]
struct TapTable {
    by_id: HashMap<RequestId, UpcallSender>,
    by_progress: HashMap<ProgressToken, UpcallSender>,
    /// Calls in flight on this connection, tapped or not: a request that cannot be tied to
    /// a call is routed only when exactly one call is running.
    running: usize,
}

impl Taps {
    /// Records a tapped call under its request id and progress token, when it is sent (the
    /// transport taps do this, before any answer can arrive).
    pub fn insert(&self, id: RequestId, progress: Option<ProgressToken>, tap: UpcallSender) {
        let mut table = lock(&self.inner);
        table.by_id.insert(id, tap.clone());
        if let Some(token) = progress {
            table.by_progress.insert(token, tap);
        }
    }

    /// Forgets a call's routes when the guard drops (the call ended, however it ended).
    pub fn remove_on_drop(&self, id: RequestId, progress: ProgressToken) -> TapGuard {
        TapGuard {
            taps: self.clone(),
            id,
            progress,
        }
    }

    /// Counts a call as running (tapped or not) until the guard drops.
    pub fn running(&self) -> RunningGuard {
        lock(&self.inner).running += 1;
        RunningGuard { taps: self.clone() }
    }

    pub fn by_id(&self, id: &RequestId) -> Option<UpcallSender> {
        lock(&self.inner).by_id.get(id).cloned()
    }

    pub fn by_progress(&self, token: &ProgressToken) -> Option<UpcallSender> {
        lock(&self.inner).by_progress.get(token).cloned()
    }

    /// The one call in flight, when exactly one runs and it accepts upcalls.
    pub fn sole(&self) -> Option<UpcallSender> {
        let table = lock(&self.inner);
        match (table.running, table.by_id.len()) {
            (1, 1) => table.by_id.values().next().cloned(),
            _ => None,
        }
    }
}

/// Removes a call's routes when it ends.
pub struct TapGuard {
    taps: Taps,
    id: RequestId,
    progress: ProgressToken,
}

impl Drop for TapGuard {
    fn drop(&mut self) {
        let mut table = lock(&self.taps.inner);
        table.by_id.remove(&self.id);
        table.by_progress.remove(&self.progress);
    }
}

pub struct RunningGuard {
    taps: Taps,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        let mut table = lock(&self.taps.inner);
        table.running = table.running.saturating_sub(1);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A notification that belongs to the call whose stream carried it (the taps take these
/// out of the stream so they reach the caller in order, before the result).
pub(crate) fn is_call_notification(notification: &ServerNotification) -> bool {
    match notification {
        ServerNotification::ProgressNotification(_)
        | ServerNotification::LoggingMessageNotification(_) => true,
        ServerNotification::CustomNotification(n) => {
            n.method == "notifications/elicitation/complete"
        }
        _ => false,
    }
}

/// The quick test before parsing an SSE event: only notifications are taken.
pub(crate) fn may_be_call_notification(data: &str) -> bool {
    data.contains("\"notifications/")
}

/// Parses an event's data as a notification the call should get, if it is one.
pub(crate) fn call_notification(data: &str) -> Option<ServerNotification> {
    if !may_be_call_notification(data) {
        return None;
    }
    match serde_json::from_str::<ServerJsonRpcMessage>(data).ok()? {
        ServerJsonRpcMessage::Notification(n) if is_call_notification(&n.notification) => {
            Some(n.notification)
        }
        _ => None,
    }
}

/// Sends a request to the caller of a call and waits for its answer.
pub(crate) async fn ask(
    tap: Option<UpcallSender>,
    request: ServerRequest,
    what: &str,
) -> Result<ClientResult, ErrorData> {
    let Some(tap) = tap else {
        return Err(declined(what));
    };
    let (reply, answer) = oneshot::channel();
    if tap.send(Upcall::Request { request, reply }).await.is_err() {
        return Err(declined(what));
    }
    answer.await.unwrap_or_else(|_| Err(declined(what)))
}

/// The protocol's refusal when no caller can answer `what` (no call it belongs to, the
/// caller did not declare the capability, or it came over REST or a CLI without a terminal).
pub fn declined(what: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!(
            "{what} cannot be relayed: no caller of this server's call can answer it (it was not tied to one call, or its caller did not declare the capability)"
        ),
        None,
    )
}
