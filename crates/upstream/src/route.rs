//! Where each call in flight on one connection takes what its upstream asks of the caller:
//! the caller itself, or (REST, the CLI) nobody, which refuses and notes it for the audit row.

use crate::relay::{Declined, Upcall, UpcallSender, declined, declined_round, method_name};
use crate::{CallOptions, Progress, RelayNotes};
use rmcp::model::{
    ClientResult, ErrorData, InputRequests, InputResponses, ProgressToken, RequestId,
    ServerNotification, ServerRequest,
};
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use switchboard_sync::Mutex;
use switchboard_telemetry::TraceHeaders;
use tokio::sync::{mpsc, oneshot};

/// One call's route for its upstream's requests and notifications.
#[derive(Clone, Debug)]
pub(crate) enum Route {
    /// To the caller, who drains the channel while the call runs.
    Caller(UpcallSender),
    /// Nobody can answer (REST, the CLI): requests are refused and noted, progress goes to
    /// the call's progress sink, if any.
    Decline {
        progress: Option<mpsc::Sender<Progress>>,
        notes: RelayNotes,
    },
}

impl Route {
    pub(crate) fn of(opts: &CallOptions) -> Self {
        match &opts.upcalls {
            Some(tap) => Route::Caller(tap.clone()),
            None => Route::Decline {
                progress: opts.progress.clone(),
                notes: opts.relay_notes.clone(),
            },
        }
    }

    /// Asks the caller and waits for its answer (or refuses, when there is nobody to ask).
    pub(crate) async fn ask(&self, request: ServerRequest) -> Result<ClientResult, ErrorData> {
        match self {
            Route::Caller(tap) => {
                let what = method_name(&request).to_string();
                let ended = || declined(&what, Declined::CallEnded);
                let (reply, answer) = oneshot::channel();
                if tap.send(Upcall::Request { request, reply }).await.is_err() {
                    return Err(ended());
                }
                answer.await.unwrap_or_else(|_| Err(ended()))
            }
            Route::Decline { notes, .. } => Err(notes.refuse(&request, Declined::NoCaller)),
        }
    }

    /// Asks the caller a whole round of questions and waits for its answers, by key (or
    /// refuses, when there is nobody to ask).
    pub(crate) async fn ask_round(
        &self,
        requests: InputRequests,
    ) -> Result<InputResponses, ErrorData> {
        match self {
            Route::Caller(tap) => {
                let ended = || declined_round(Declined::CallEnded);
                let (reply, answer) = oneshot::channel();
                if tap.send(Upcall::Round { requests, reply }).await.is_err() {
                    return Err(ended());
                }
                answer.await.unwrap_or_else(|_| Err(ended()))
            }
            Route::Decline { notes, .. } => {
                let first = requests.into_values().find_map(crate::as_server_request);
                Err(match first {
                    Some(request) => notes.refuse(&request, Declined::NoCaller),
                    None => declined_round(Declined::NoCaller),
                })
            }
        }
    }

    /// Hands the caller one of its call's notifications: waiting while the caller is busy
    /// (`wait`, where one stream serves only this call) or dropping it (a shared stream).
    pub(crate) async fn notify(&self, notification: ServerNotification, wait: bool) {
        match self {
            Route::Caller(tap) => {
                let upcall = Upcall::Notification(notification);
                let delivered = if wait {
                    tap.send(upcall).await.is_ok()
                } else {
                    tap.try_send(upcall).is_ok()
                };
                if !delivered {
                    tracing::debug!("a call's notification dropped: its caller is busy or gone");
                }
            }
            // Progress is advisory: a slow consumer loses updates rather than stalling.
            Route::Decline {
                progress: Some(sink),
                ..
            } => {
                if let ServerNotification::ProgressNotification(n) = notification {
                    let _ = sink.try_send(Progress {
                        progress: n.params.progress,
                        total: n.params.total,
                        message: n.params.message,
                    });
                }
            }
            Route::Decline { .. } => {}
        }
    }
}

/// Marker in an outbound request's extensions (never on the wire): the call's route, and
/// whether the call still waits (a request the transport sends after its call was abandoned
/// records nothing).
#[derive(Clone, Debug)]
pub(crate) struct CallTap {
    pub route: Route,
    pub alive: Weak<()>,
    /// The call's audit notes, for a request refused because it could have been this call's.
    pub notes: RelayNotes,
    /// `traceparent` (and `tracestate`) of the call's upstream span, sent with its POST over
    /// Streamable HTTP; empty when no trace is recorded.
    pub trace: TraceHeaders,
}

/// The calls in flight on one connection, by upstream request id (and progress token),
/// recorded when their request goes out.
#[derive(Clone, Default)]
pub(crate) struct Taps(Arc<Mutex<TapTable>>);

/// A call in flight: its route and its audit notes.
struct InFlight {
    route: Route,
    notes: RelayNotes,
    alive: Weak<()>,
}

#[derive(Default)]
struct TapTable {
    by_id: HashMap<RequestId, InFlight>,
    by_progress: HashMap<ProgressToken, RequestId>,
}

/// Why no call takes a request.
pub(crate) enum NoRoute {
    /// It was not asked during a tool call in progress: none runs, its call has ended, or it
    /// came on the stream of another kind of request (discovery, a subscription…).
    NotInCall,
    /// It names no call and several are in flight on a transport that cannot say which.
    Several,
}

impl Taps {
    /// Records a call under its request id and progress token, when it is sent (the
    /// transport taps do this, before any answer can arrive).
    pub(crate) fn insert(&self, id: RequestId, progress: Option<ProgressToken>, tap: &CallTap) {
        let mut table = self.0.lock();
        // Checked under the lock the call's guard takes to forget it: a call abandoned
        // before its request went out is never recorded, so nothing is left behind.
        if tap.alive.strong_count() == 0 {
            return;
        }
        if let Some(token) = progress {
            table.by_progress.insert(token, id.clone());
        }
        let call = InFlight {
            route: tap.route.clone(),
            notes: tap.notes.clone(),
            alive: tap.alive.clone(),
        };
        table.by_id.insert(id, call);
    }

    /// A guard that keeps the call `alive` (see [`CallTap`]) and forgets its routes when
    /// dropped, however the call ends; `sent` names its request once it went out.
    pub(crate) fn guard(&self, alive: Arc<()>) -> TapGuard<'_> {
        TapGuard {
            taps: self,
            alive: Some(alive),
            sent: None,
        }
    }

    /// The call an upstream request names by its request id.
    pub(crate) fn by_id(&self, id: &RequestId) -> Result<Route, NoRoute> {
        match self.0.lock().by_id.get(id) {
            Some(call) => Ok(call.route.clone()),
            None => Err(NoRoute::NotInCall),
        }
    }

    pub(crate) fn by_progress(&self, token: &ProgressToken) -> Option<Route> {
        let table = self.0.lock();
        let id = table.by_progress.get(token)?;
        table.by_id.get(id).map(|call| call.route.clone())
    }

    /// The one call in flight, when exactly one is.
    pub(crate) fn sole(&self) -> Result<Route, NoRoute> {
        let table = self.0.lock();
        let mut calls = table.by_id.values();
        match (calls.next(), calls.next()) {
            (Some(call), None) => Ok(call.route.clone()),
            (None, _) => Err(NoRoute::NotInCall),
            (Some(_), Some(_)) => Err(NoRoute::Several),
        }
    }

    /// Notes `refusal` in the audit row of every call in flight (any could have asked).
    fn note_all(&self, refusal: &ErrorData) {
        for call in self.0.lock().by_id.values() {
            call.notes.push(refusal.message.to_string());
        }
    }
}

/// Keeps a call alive in the table's eyes, and removes its routes when it ends.
pub(crate) struct TapGuard<'a> {
    taps: &'a Taps,
    alive: Option<Arc<()>>,
    sent: Option<(RequestId, ProgressToken)>,
}

impl TapGuard<'_> {
    /// The call's request went out under `id` (and `progress`).
    pub(crate) fn sent(&mut self, id: RequestId, progress: ProgressToken) {
        self.sent = Some((id, progress));
    }
}

impl Drop for TapGuard<'_> {
    fn drop(&mut self) {
        let mut table = self.taps.0.lock();
        match self.sent.take() {
            Some((id, progress)) => {
                table.by_id.remove(&id);
                table.by_progress.remove(&progress);
            }
            // Abandoned while its request was being sent: the transport may have recorded
            // it already, under an id this call never learnt.
            None => {
                if let Some(alive) = &self.alive {
                    let ours = Arc::downgrade(alive);
                    table.by_id.retain(|_, call| !call.alive.ptr_eq(&ours));
                    let TapTable { by_id, by_progress } = &mut *table;
                    by_progress.retain(|_, id| by_id.contains_key(id));
                }
            }
        }
        // The call stops counting as alive while the lock is held (see `Taps::insert`).
        self.alive = None;
    }
}

/// Asks the caller of the call a request belongs to; refuses (saying why) when it belongs
/// to none.
pub(crate) async fn ask(
    taps: &Taps,
    route: Result<Route, NoRoute>,
    request: ServerRequest,
) -> Result<ClientResult, ErrorData> {
    match route {
        Ok(route) => route.ask(request).await,
        Err(NoRoute::NotInCall) => Err(declined(method_name(&request), Declined::NotInCall)),
        Err(NoRoute::Several) => {
            let refusal = declined(method_name(&request), Declined::SeveralCalls);
            tracing::warn!("{}", refusal.message);
            taps.note_all(&refusal);
            Err(refusal)
        }
    }
}
