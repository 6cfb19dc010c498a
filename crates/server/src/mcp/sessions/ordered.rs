//! MCP sessions over Streamable HTTP whose call notifications ride the call's own stream.
//!
//! rmcp's [`LocalSessionManager`] sends every notification except progress and cancellation on
//! the session's GET stream, so a log line an upstream wrote during a call could reach the
//! caller after the call's result, or never when the client opened no GET stream. This
//! manager wraps it: a notification the gateway tags with [`OriginatingRequestId`] goes into
//! a side queue of that request's response stream, which yields it before anything the inner
//! session sends there next (the result included). The gateway awaits each delivery before it
//! answers, so the order the upstream sent is the order the caller reads.
//!
//! A side notification carries no SSE event id: a client that resumes the stream with
//! `Last-Event-ID` gets the stream's own events again, not these (they are not stored).

use crate::mcp::sessions::limits::SessionLimits;
use crate::mcp::sessions::live::{LiveSessions, Ticket};
use crate::mcp::sessions::saved::SharedSessions;
use futures::future::{BoxFuture, Either};
use futures::{FutureExt, Stream, StreamExt};
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, RequestId, ServerJsonRpcMessage};
use rmcp::service::TxJsonRpcMessage;
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionTransport,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use std::sync::Arc;
use std::task::Poll;
use switchboard_sync::Mutex;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

mod restoring;
mod side_queues;

use restoring::Restoring;
pub(crate) use side_queues::Registered;
use side_queues::{Key, SideQueues};

/// [`LocalSessionManager`] with tagged notifications on their request's own stream.
pub struct OrderedSessions {
    inner: LocalSessionManager,
    queues: Arc<SideQueues>,
    live: Arc<LiveSessions>,
    /// The endpoint's name among the process's endpoints (its saved sessions' key prefix).
    scope: Arc<str>,
    /// The process's session bounds, which count this endpoint's sessions.
    limits: Arc<SessionLimits>,
    /// Where the endpoint's sessions are saved, if anywhere.
    saved: Option<Arc<SharedSessions>>,
    /// Cancels that arrived before their request: a client's POSTs travel on separate
    /// connections, so a cancel can overtake the call it cancels.
    early_cancels: Mutex<std::collections::VecDeque<(Key, std::time::Instant)>>,
    /// Sessions whose restore from the store has not replayed their handshake yet.
    restoring: Arc<Restoring>,
}

impl OrderedSessions {
    /// The sessions of endpoint `scope`, counted against `limits` and saved in `saved`.
    pub fn new(
        scope: &str,
        limits: Arc<SessionLimits>,
        saved: Option<Arc<SharedSessions>>,
    ) -> Arc<Self> {
        let mut inner = LocalSessionManager::default();
        // Idle sessions are parked by [`crate::mcp::sessions::parking`], which knows about fast-path calls
        // (rmcp's worker never sees them) and removes a session from rmcp's map; rmcp's own
        // keep-alive would leave a dead handle there, answered with 500 instead of a restore.
        inner.session_config.keep_alive = None;
        let sessions = Arc::new(Self {
            inner,
            queues: Default::default(),
            live: Default::default(),
            scope: scope.into(),
            limits: limits.clone(),
            saved,
            early_cancels: Default::default(),
            restoring: Default::default(),
        });
        limits.add_endpoint(&sessions);
        sessions
    }

    pub fn scope(&self) -> &Arc<str> {
        &self.scope
    }

    pub fn limits(&self) -> &Arc<SessionLimits> {
        &self.limits
    }
}

/// How many early cancels are remembered, and for how long.
const EARLY_CANCELS: usize = 256;
const EARLY_CANCEL_TTL: std::time::Duration = std::time::Duration::from_secs(10);

/// One session's transport: tagged notifications to their request's queue, the rest to rmcp.
pub struct OrderedTransport {
    inner: SessionTransport,
    session: SessionId,
    queues: Arc<SideQueues>,
    live: Arc<LiveSessions>,
    ticket: Ticket,
    /// The restore that made this transport, if one did.
    restore: Option<(Arc<Restoring>, u64)>,
}

impl Drop for OrderedTransport {
    /// The session's service ended: it is no longer live for the fast path, and a restore
    /// that failed no longer holds its requests back.
    fn drop(&mut self) {
        self.live.end(&self.session, &self.ticket);
        if let Some((restoring, number)) = &self.restore {
            restoring.end_restore(&self.session, *number);
        }
    }
}

type InnerError = <SessionTransport as Transport<RoleServer>>::Error;

impl Transport<RoleServer> for OrderedTransport {
    type Error = InnerError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let Some(queue) = self.queues.for_message(&self.session, &item) else {
            return Either::Right(self.inner.send(item));
        };
        // Queued now, not when the future runs: rmcp runs sends concurrently, and the
        // caller's next message must not overtake this one.
        let queued: BoxFuture<'static, Result<(), InnerError>> = match queue.try_send(item) {
            Ok(()) => futures::future::ready(Ok(())).boxed(),
            Err(mpsc::error::TrySendError::Full(item)) => async move {
                let _ = queue.send(item).await;
                Ok(())
            }
            .boxed(),
            // The stream just ended: let rmcp send it where it sends untagged ones.
            Err(mpsc::error::TrySendError::Closed(item)) => self.inner.send(item).boxed(),
        };
        Either::Left(queued)
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

impl OrderedSessions {
    /// A created or restored (by restore `restore`) session's transport; the session now
    /// waits for its handshake.
    fn wrap(
        &self,
        session: SessionId,
        inner: SessionTransport,
        restore: Option<u64>,
    ) -> OrderedTransport {
        OrderedTransport {
            ticket: self.live.begin(session.clone()),
            inner,
            session,
            queues: self.queues.clone(),
            live: self.live.clone(),
            restore: restore.map(|number| (self.restoring.clone(), number)),
        }
    }

    /// The sessions whose gateway registered itself once initialized.
    pub fn live(&self) -> &Arc<LiveSessions> {
        &self.live
    }

    /// A queue for everything a fast-path call sends its caller before the result, requests
    /// to the client included; `cancel` is cancelled if the client cancels the request.
    pub fn open_call_queue(
        &self,
        session: SessionId,
        request: RequestId,
        cancel: CancellationToken,
    ) -> (mpsc::Receiver<ServerJsonRpcMessage>, Registered) {
        let key = (session, request);
        // Under the early-cancel lock, so a cancel is either seen here or finds the queue.
        let mut early = self.early_cancels.lock();
        let opened = self.queues.open(key.clone(), true, Some(cancel.clone()));
        early.retain(|(_, at)| at.elapsed() < EARLY_CANCEL_TTL);
        if let Some(at) = early.iter().position(|(k, _)| *k == key) {
            early.remove(at);
            cancel.cancel();
        }
        opened
    }

    /// Cancels a fast-path call the client cancelled. A cancel for a request not seen yet is
    /// kept for a few seconds, in case its request is still on its way.
    pub fn cancel_call(&self, session: &SessionId, request: &RequestId) {
        let key = (session.clone(), request.clone());
        let mut early = self.early_cancels.lock();
        let cancel = self.queues.lock().get(&key).map(|side| side.cancel.clone());
        match cancel {
            Some(Some(cancel)) => cancel.cancel(),
            Some(None) => {} // rmcp's own call: rmcp cancels it
            None => {
                if early.len() == EARLY_CANCELS {
                    early.pop_front();
                }
                early.push_back((key, std::time::Instant::now()));
            }
        }
    }

    /// Parks a session idle for `idle`: it leaves memory, and its next request restores it
    /// from the session store (rmcp replays its `initialize`).
    pub async fn park(&self, id: &SessionId, idle: std::time::Duration) {
        self.live.remove(id);
        if let Err(e) = self.inner.close_session(id).await {
            tracing::debug!(session = %id, "parking the session: {e}");
        }
        self.limits.parked(&self.scope, id, idle);
        self.mark_used(id).await;
    }

    /// Marks a session's saved row used now, so the store does not prune it as unused.
    pub async fn mark_used(&self, id: &SessionId) {
        if let Some(saved) = &self.saved
            && let Err(e) = saved.mark_used(id).await
        {
            tracing::debug!(session = %id, "marking the saved session used: {e}");
        }
    }
}

impl SessionManager for OrderedSessions {
    type Error = LocalSessionManagerError;
    type Transport = OrderedTransport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, inner) = self.inner.create_session().await?;
        Ok((id.clone(), self.wrap(id, inner, None)))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        // A session being restored is in memory before it can take requests: wait for it.
        // (Its restore is marked before it is put back, so one found here is marked.)
        let present = self.inner.has_session(id).await?;
        if present {
            self.restoring.wait(id).await;
        }
        Ok(present)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // Closed for the fast path at once, as rmcp answers 404 at once.
        self.live.remove(id);
        // Its client's DELETE, or its service ended (parked, or on its own): out of memory,
        // while its saved row may bring it back (a DELETE is forgotten by the admission).
        self.limits
            .parked(&self.scope, id, std::time::Duration::ZERO);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let request = match &message {
            ClientJsonRpcMessage::Request(r) => Some(r.id.clone()),
            _ => None,
        };
        // Registered before the request reaches the session, so nothing it sends is missed.
        let side = request.map(|request| self.queues.open((id.clone(), request), false, None));
        let in_use = self.live.in_use(id);
        let mut inner = Box::pin(self.inner.create_stream(id, message).await?);
        let Some((mut queued, registered)) = side else {
            return Ok(inner.left_stream());
        };
        let stream = futures::stream::poll_fn(move |cx| {
            let _keep = (&registered, &in_use);
            // What was queued went out before the inner session's next message was sent.
            if let Poll::Ready(Some(message)) = queued.poll_recv(cx) {
                let mut event = ServerSseMessage::default();
                event.message = Some(Arc::new(message));
                return Poll::Ready(Some(event));
            }
            inner.poll_next_unpin(cx)
        });
        Ok(stream.right_stream())
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        // rmcp's session cancels the calls it runs; a fast-path call is cancelled here.
        if let ClientJsonRpcMessage::Notification(n) = &message
            && let ClientNotification::CancelledNotification(cancelled) = &n.notification
            && let Some(request) = &cancelled.params.request_id
        {
            self.cancel_call(id, request);
        }
        self.live.touch(id);
        let initialized = matches!(&message, ClientJsonRpcMessage::Notification(n)
            if matches!(n.notification, ClientNotification::InitializedNotification(_)));
        let accepted = self.inner.accept_message(id, message).await;
        if initialized {
            // A restore's replayed handshake is in the session's queue: what comes next is
            // read after it.
            self.restoring.end(id);
        }
        accepted
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let in_use = self.live.in_use(id);
        let stream = self.inner.create_standalone_stream(id).await?;
        Ok(stream.inspect(move |_| {
            let _keep = &in_use;
        }))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let in_use = self.live.in_use(id);
        let stream = self.inner.resume(id, last_event_id).await?;
        Ok(stream.inspect(move |_| {
            let _keep = &in_use;
        }))
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        // Back in memory: past the bound, the longest-idle session makes room (if none is
        // idle, this one comes back all the same; new sessions are refused meanwhile).
        self.limits.make_room().await;
        // Before the session is back in rmcp's map: from then on its other requests wait.
        let number = self.restoring.begin(&id);
        let restored = self.inner.restore_session(id.clone()).await;
        Ok(match restored {
            Ok(RestoreOutcome::Restored(inner)) => {
                self.limits.restored(&self.scope, &id);
                RestoreOutcome::Restored(self.wrap(id, inner, Some(number)))
            }
            other => {
                self.restoring.end_restore(&id, number);
                match other? {
                    RestoreOutcome::AlreadyPresent => RestoreOutcome::AlreadyPresent,
                    _ => RestoreOutcome::NotSupported,
                }
            }
        })
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
