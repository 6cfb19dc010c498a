//! What an upstream asks of the caller while serving its call (sampling, elicitation, roots,
//! log lines, progress), routed to the one call that caused it and never to another.

use rmcp::model::{ClientResult, ErrorCode, ErrorData, ProgressToken, RequestId, ServerRequest};
use rmcp::model::{ServerJsonRpcMessage, ServerNotification};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// How many requests of a call without a caller may wait for their refusal.
pub(crate) const DECLINE_QUEUE: usize = 8;

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
    /// Calls in flight on this connection, tapped or not: a request that cannot be tied to
    /// a call is routed only when exactly one call is running.
    running: Arc<AtomicUsize>,
}

#[derive(Default)]
struct TapTable {
    by_id: HashMap<RequestId, UpcallSender>,
    by_progress: HashMap<ProgressToken, UpcallSender>,
}

impl Taps {
    /// Records a tapped call under its request id and progress token, when it is sent (the
    /// transport taps do this, before any answer can arrive).
    pub fn insert(&self, id: RequestId, progress: Option<ProgressToken>, tap: UpcallSender) {
        // A call abandoned before its request went out has already removed its routes:
        // recording it now would leave them behind for good.
        if tap.is_closed() {
            return;
        }
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
        self.running.fetch_add(1, Ordering::Relaxed);
        RunningGuard {
            running: self.running.clone(),
        }
    }

    pub fn by_id(&self, id: &RequestId) -> Option<UpcallSender> {
        lock(&self.inner).by_id.get(id).cloned()
    }

    pub fn by_progress(&self, token: &ProgressToken) -> Option<UpcallSender> {
        lock(&self.inner).by_progress.get(token).cloned()
    }

    /// The one call in flight, when exactly one runs and it accepts upcalls.
    pub fn sole(&self) -> Option<UpcallSender> {
        if self.running.load(Ordering::Relaxed) != 1 {
            return None;
        }
        let mut table = lock(&self.inner);
        table.by_id.retain(|_, tap| !tap.is_closed());
        match table.by_id.len() {
            1 => table.by_id.values().next().cloned(),
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
    running: Arc<AtomicUsize>,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.running.fetch_sub(1, Ordering::Relaxed);
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

/// The methods of the notifications a call's caller gets (see `is_call_notification`).
const CALL_NOTIFICATIONS: [&str; 3] = [
    "notifications/progress",
    "notifications/message",
    "notifications/elicitation/complete",
];

/// Parses an event's data as a notification the call should get, if it is one. Only events
/// that mention a notification method are probed, and only their top-level `method` is read
/// before the full parse: results are left for rmcp to parse once.
pub(crate) fn call_notification(data: &str) -> Option<ServerNotification> {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
        id: Option<serde::de::IgnoredAny>,
    }
    // Most events are results: a substring test spares them any parsing here.
    if !data.contains("\"notifications/") {
        return None;
    }
    let probe: Probe = serde_json::from_str(data).ok()?;
    let method = probe.method?;
    if probe.id.is_some() || !CALL_NOTIFICATIONS.contains(&method.as_ref()) {
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
        let refusal = declined(what, Declined::NoCall);
        tracing::warn!("{}", refusal.message);
        return Err(refusal);
    };
    let (reply, answer) = oneshot::channel();
    if tap.send(Upcall::Request { request, reply }).await.is_err() {
        return Err(declined(what, Declined::CallEnded));
    }
    answer
        .await
        .unwrap_or_else(|_| Err(declined(what, Declined::CallEnded)))
}

/// Why a server-to-client request could not be relayed.
#[derive(Debug, Clone, Copy)]
pub enum Declined {
    /// Not tied to one call: no call in flight, or several on a transport that cannot say
    /// which.
    NoCall,
    /// The call came over REST or a CLI without a terminal: nobody to ask.
    NoCaller,
    /// The call it belonged to had already ended.
    CallEnded,
    /// The caller did not declare the capability.
    NotDeclared,
    /// The caller's protocol revision has no way to carry it.
    NotOnRevision,
}

/// The protocol's refusal when no caller can answer `what`, saying why and what would help.
pub fn declined(what: &str, why: Declined) -> ErrorData {
    let reason = match why {
        Declined::NoCall => {
            "it is not tied to one call (a server shared by several calls on stdio or HTTP+SSE); mark the server `per_session`, or call over Streamable HTTP"
        }
        Declined::NoCaller => {
            "the call came over REST or `switchboard call`, where nobody can answer; call over /mcp or `switchboard stdio` with a client that answers it"
        }
        Declined::CallEnded => "the call it belongs to has ended",
        Declined::NotDeclared => {
            "the caller did not declare the capability; use a client that declares it"
        }
        Declined::NotOnRevision => "the caller's protocol revision cannot carry it",
    };
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("{what} cannot be relayed: {reason}"),
        None,
    )
}

/// Answers every request of a call that has no caller to ask (REST, the CLI) with the
/// refusal, noting each for the audit row, and hands its progress to `progress`.
pub(crate) async fn decline_all(
    mut upcalls: mpsc::Receiver<Upcall>,
    progress: Option<mpsc::Sender<crate::Progress>>,
    notes: crate::RelayNotes,
) {
    while let Some(upcall) = upcalls.recv().await {
        match upcall {
            Upcall::Request { request, reply } => {
                let refusal = declined(crate::relay::method_name(&request), Declined::NoCaller);
                notes.push(refusal.message.to_string());
                let _ = reply.send(Err(refusal));
            }
            Upcall::Notification(ServerNotification::ProgressNotification(n)) => {
                if let Some(sink) = &progress {
                    let _ = sink.try_send(crate::Progress {
                        progress: n.params.progress,
                        total: n.params.total,
                        message: n.params.message,
                    });
                }
            }
            Upcall::Notification(_) => {}
        }
    }
}

/// A server-to-client request's method, for messages.
pub fn method_name(request: &ServerRequest) -> &str {
    match request {
        ServerRequest::PingRequest(_) => "ping",
        ServerRequest::CreateMessageRequest(_) => "sampling/createMessage",
        ServerRequest::ListRootsRequest(_) => "roots/list",
        ServerRequest::ElicitRequest(_) => "elicitation/create",
        ServerRequest::CustomRequest(r) => &r.method,
        _ => "a request",
    }
}
