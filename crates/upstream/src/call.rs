//! Per-call options and the guard that tells the upstream when a call is abandoned.

use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientNotification, RequestId,
};
use rmcp::service::{Peer, RoleClient};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// One progress update from an upstream server.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// How one call runs.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Bound on the whole call; `None` uses the server's call timeout.
    pub timeout: Option<Duration>,
    /// Sent upstream as `_meta.bound_end_user_id`.
    pub end_user_id: Option<String>,
    /// Receives the upstream's progress notifications for this call.
    pub progress: Option<mpsc::Sender<Progress>>,
    /// Cancelled when the caller goes away; the upstream is then told to cancel.
    pub cancel: Option<CancellationToken>,
    /// Who the call is for (recorded in the audit log).
    pub caller: switchboard_core::Caller,
    /// Receives what the upstream asks of the caller while the call runs (sampling,
    /// elicitation, roots) and its notifications (progress, log lines), in order; without
    /// it such requests are declined and `progress` gets the progress.
    pub upcalls: Option<crate::relay::UpcallSender>,
    /// The calling session's own processes, for stdio servers run once per session.
    pub session_processes: Option<crate::SessionProcesses>,
    /// What the call's audit row should say beyond the policy's verdicts: what the upstream
    /// asked of the caller that could not be relayed, the end user's grant it went out with.
    pub relay_notes: RelayNotes,
    /// The capabilities the caller declared; a 2026-07-28 upstream gets them on each request,
    /// as far as the gateway relays them (nothing without `upcalls`: nobody can answer).
    /// (Shared: options are cloned along a call's way, and most upstreams never read them.)
    pub caller_capabilities: Option<std::sync::Arc<rmcp::model::ClientCapabilities>>,
    /// How a 2026-07-28 server's `input_required` rounds reach the caller.
    pub rounds: Rounds,
    /// What the caller can be asked, as a session with a server before 2026-07-28 declares
    /// it: a call of a caller whose set differs from the shared session's gets a session of
    /// its own set. Made once per downstream session; `None` has it made from
    /// `caller_capabilities` when a server needs it.
    pub capability_set: Option<std::sync::Arc<crate::CapabilitySet>>,
    /// A refusal decided before the pipeline (an end user asserted against the one the
    /// caller's token names): the call is audited with it and never runs.
    pub refusal: Option<switchboard_core::CallError>,
}

/// How a 2026-07-28 server's `input_required` rounds reach the caller.
#[derive(Debug, Clone, Default)]
pub enum Rounds {
    /// Asked through `upcalls` while the call waits (callers with a session, or none).
    #[default]
    Relay,
    /// The call ends with the round (`UpstreamError::InputRequired`) and the caller answers
    /// it on a later request, which may reach another replica: nothing waits in between.
    /// A later leg carries the answers and the server's state for its first request.
    HandBack(Option<std::sync::Arc<RoundAnswers>>),
}

/// A caller's answers to a round handed back, and the server's state from that round.
#[derive(Debug, Clone)]
pub struct RoundAnswers {
    pub responses: rmcp::model::InputResponses,
    pub state: Option<String>,
}

/// Notes for a call's audit row, each with the stage that made it: requests of the upstream
/// that the caller could not be asked (`relay`, saying why), the grant a per-end-user call
/// went out with (`credentials`).
#[derive(Debug, Clone, Default)]
pub struct RelayNotes(std::sync::Arc<switchboard_sync::Mutex<Vec<(&'static str, String)>>>);

impl RelayNotes {
    /// A request of the upstream the caller could not be asked.
    pub fn push(&self, note: String) {
        self.note("relay", note);
    }

    /// A note of `stage` for the audit row.
    pub fn note(&self, stage: &'static str, note: String) {
        self.0.lock().push((stage, note));
    }

    /// The protocol's refusal of `request`, noted for the audit row.
    pub fn refuse(
        &self,
        request: &rmcp::model::ServerRequest,
        why: crate::Declined,
    ) -> rmcp::model::ErrorData {
        let refusal = crate::declined(crate::method_name(request), why);
        self.push(refusal.message.to_string());
        refusal
    }

    /// Every note so far, with its stage, oldest first.
    pub fn take(&self) -> Vec<(&'static str, String)> {
        std::mem::take(&mut *self.0.lock())
    }
}

impl CallOptions {
    pub fn with_rounds(mut self, rounds: Rounds) -> Self {
        self.rounds = rounds;
        self
    }
    pub fn with_caller_capabilities(
        mut self,
        caps: std::sync::Arc<rmcp::model::ClientCapabilities>,
    ) -> Self {
        self.caller_capabilities = Some(caps);
        self
    }
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
    pub fn with_end_user(mut self, id: impl Into<String>) -> Self {
        self.end_user_id = Some(id.into());
        self
    }
    pub fn with_progress(mut self, sink: mpsc::Sender<Progress>) -> Self {
        self.progress = Some(sink);
        self
    }
    pub fn with_cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }
    pub fn with_upcalls(mut self, upcalls: crate::relay::UpcallSender) -> Self {
        self.upcalls = Some(upcalls);
        self
    }
    pub fn with_session_processes(mut self, processes: crate::SessionProcesses) -> Self {
        self.session_processes = Some(processes);
        self
    }
    pub fn with_caller(mut self, caller: switchboard_core::Caller) -> Self {
        self.caller = caller;
        self
    }
}

/// Sends `notifications/cancelled` for a request unless disarmed (the answer arrived).
pub(crate) struct CancelOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: RequestId,
    reason: &'static str,
}

impl CancelOnDrop {
    pub(crate) fn new(peer: Peer<RoleClient>, id: RequestId) -> Self {
        Self {
            peer: Some(peer),
            id,
            reason: "caller went away",
        }
    }

    pub(crate) fn set_reason(&mut self, reason: &'static str) {
        self.reason = reason;
    }

    pub(crate) fn disarm(&mut self) {
        self.peer = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else { return };
        let notification = ClientNotification::CancelledNotification(CancelledNotification::new(
            CancelledNotificationParam::new(Some(self.id.clone()), Some(self.reason.to_string())),
        ));
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                let _ = peer.send_notification(notification).await;
            });
        }
    }
}
