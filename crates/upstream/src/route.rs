//! Where each call in flight on one connection takes what its upstream asks of the caller:
//! the caller itself, or (REST, the CLI) nobody, which refuses and notes it for the audit row.

use crate::relay::{Declined, Upcall, UpcallSender, declined, method_name};
use crate::{CallOptions, Progress, RelayNotes};
use rmcp::model::{
    ClientResult, ErrorData, ProgressToken, RequestId, ServerNotification, ServerRequest,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
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
    pub fn of(opts: &CallOptions) -> Self {
        match &opts.upcalls {
            Some(tap) => Route::Caller(tap.clone()),
            None => Route::Decline {
                progress: opts.progress.clone(),
                notes: opts.relay_notes.clone(),
            },
        }
    }

    /// Asks the caller and waits for its answer (or refuses, when there is nobody to ask).
    pub async fn ask(&self, request: ServerRequest) -> Result<ClientResult, ErrorData> {
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
            Route::Decline { notes, .. } => {
                let refusal = declined(method_name(&request), Declined::NoCaller);
                notes.push(refusal.message.to_string());
                Err(refusal)
            }
        }
    }

    /// Hands the caller one of its call's notifications: waiting while the caller is busy
    /// (`wait`, where one stream serves only this call) or dropping it (a shared stream).
    pub async fn notify(&self, notification: ServerNotification, wait: bool) {
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
}

/// The calls in flight on one connection, by upstream request id and progress token,
/// recorded when their request goes out.
#[derive(Clone, Default)]
pub struct Taps(Arc<Mutex<TapTable>>);

/// A call in flight: its route, whether it still waits, its audit notes.
type InFlight = (Route, Weak<()>, RelayNotes);

#[derive(Default)]
struct TapTable {
    by_id: HashMap<RequestId, InFlight>,
    by_progress: HashMap<ProgressToken, Route>,
}

/// Why no call takes a request.
pub(crate) enum NoRoute {
    /// The call it names has ended.
    Ended,
    /// It names none, and not exactly one call is in flight: the audit notes of those that
    /// are (it could have been any of theirs).
    Ambiguous(Vec<RelayNotes>),
}

impl Taps {
    fn table(&self) -> std::sync::MutexGuard<'_, TapTable> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records a call under its request id and progress token, when it is sent (the
    /// transport taps do this, before any answer can arrive).
    pub(crate) fn insert(&self, id: RequestId, progress: Option<ProgressToken>, tap: &CallTap) {
        // A call abandoned before its request went out has already removed its routes:
        // recording it now would leave them behind for good.
        if tap.alive.strong_count() == 0 {
            return;
        }
        let mut table = self.table();
        table.by_id.insert(
            id,
            (tap.route.clone(), tap.alive.clone(), tap.notes.clone()),
        );
        if let Some(token) = progress {
            table.by_progress.insert(token, tap.route.clone());
        }
    }

    /// Forgets a call's routes when the guard drops (the call ended, however it ended).
    pub(crate) fn remove_on_drop(&self, id: RequestId, progress: ProgressToken) -> TapGuard<'_> {
        TapGuard {
            taps: self,
            id,
            progress,
        }
    }

    /// The call an upstream request names by its request id.
    pub(crate) fn by_id(&self, id: &RequestId) -> Result<Route, NoRoute> {
        match self.table().by_id.get(id) {
            Some((route, alive, _)) if alive.strong_count() > 0 => Ok(route.clone()),
            _ => Err(NoRoute::Ended),
        }
    }

    pub(crate) fn by_progress(&self, token: &ProgressToken) -> Option<Route> {
        self.table().by_progress.get(token).cloned()
    }

    /// The one call in flight, when exactly one is.
    pub(crate) fn sole(&self) -> Result<Route, NoRoute> {
        let table = self.table();
        let mut live = table
            .by_id
            .values()
            .filter(|(_, alive, _)| alive.strong_count() > 0);
        match (live.next(), live.next()) {
            (Some((route, ..)), None) => Ok(route.clone()),
            (first, second) => Err(NoRoute::Ambiguous(
                first
                    .into_iter()
                    .chain(second)
                    .chain(live)
                    .map(|(.., notes)| notes.clone())
                    .collect(),
            )),
        }
    }
}

/// Removes a call's routes when it ends.
pub(crate) struct TapGuard<'a> {
    taps: &'a Taps,
    id: RequestId,
    progress: ProgressToken,
}

impl Drop for TapGuard<'_> {
    fn drop(&mut self) {
        let mut table = self.taps.table();
        table.by_id.remove(&self.id);
        table.by_progress.remove(&self.progress);
    }
}

/// Asks the caller of the call a request belongs to; refuses (saying why) when it belongs
/// to none.
pub(crate) async fn ask(
    route: Result<Route, NoRoute>,
    request: ServerRequest,
) -> Result<ClientResult, ErrorData> {
    match route {
        Ok(route) => route.ask(request).await,
        Err(NoRoute::Ended) => Err(declined(method_name(&request), Declined::CallEnded)),
        Err(NoRoute::Ambiguous(in_flight)) => {
            let refusal = declined(method_name(&request), Declined::NoCall);
            tracing::warn!("{}", refusal.message);
            // Each call that could have asked says so in its audit row.
            for notes in in_flight {
                notes.push(refusal.message.to_string());
            }
            Err(refusal)
        }
    }
}
