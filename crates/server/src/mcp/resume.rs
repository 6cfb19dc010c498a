//! Multi-round-trip requests for callers on the stateless 2026-07-28 revision: a tool call,
//! prompt or resource read whose upstream asks the caller something is parked, answered with
//! `input_required`, and resumed when the caller retries with its answers and the
//! `requestState` handle. A 2026-07-28 upstream's round reaches the caller whole, under the
//! upstream's own keys; an older upstream's requests (sampling, elicitation, roots) become
//! rounds of one under keys the gateway makes.

use crate::mcp::relay::{can_answer, deliver, drain};
use rmcp::model::{
    CallToolResult, ClientResult, ErrorData, GetPromptResult, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, ReadResourceResult, ServerRequest,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::LazyLock;
use std::time::Duration;
use switchboard_sync::Mutex;
use switchboard_upstream::method_name;
use switchboard_upstream::{Declined, RelayNotes, Upcall, as_server_request, declined};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// How long a parked call waits for its caller to come back with answers.
pub(crate) const PARKED_TTL: Duration = Duration::from_secs(300);

/// What a request that may ask for input ends with.
pub(crate) enum Outcome {
    Tool(CallToolResult),
    Prompt(GetPromptResult),
    Resource(ReadResourceResult),
    /// A 2026-07-28 upstream's round, handed back whole (see `crate::mcp::handed_back`).
    HandedBack(InputRequiredResult),
    /// The gateway's own round: the end user's consent (see `mcp::gateway::consent`).
    Consent(InputRequiredResult),
    /// The upstream runs the call as a task (the tasks extension).
    Task(Box<rmcp::model::CreateTaskResult>),
}

impl Outcome {
    /// `error` as the round it stands for, when the call ended handing one back.
    pub(crate) fn handed_back(error: &switchboard_core::CallError) -> Option<Outcome> {
        if error.kind != switchboard_core::ErrorKind::InputRequired {
            return None;
        }
        let round = serde_json::from_value(error.data.as_deref()?.clone()).ok()?;
        Some(Outcome::HandedBack(round))
    }
}

/// How a driven request stands: finished, or waiting for the caller's answers.
pub(crate) enum Step {
    Done(Outcome),
    Asked(InputRequiredResult),
}

/// What the parked request waits for.
enum Waiting {
    /// One request of an older upstream, under the key the gateway made.
    One {
        key: String,
        kind: Kind,
        reply: oneshot::Sender<Result<ClientResult, ErrorData>>,
    },
    /// A 2026-07-28 upstream's whole round, answered by its own keys.
    Round(oneshot::Sender<Result<InputResponses, ErrorData>>),
}

/// A request in flight between rounds: its task keeps running (timeouts and cancellation
/// still apply) while the upstream waits for the answers.
pub(crate) struct Flight {
    /// The request's outcome, or the upstream's own JSON-RPC error.
    call: JoinHandle<Result<Outcome, ErrorData>>,
    upcalls: mpsc::Receiver<Upcall>,
    waiting: Option<Waiting>,
    /// Who may resume it: the caller's identity and what it asked for.
    owner: String,
    next_key: u64,
    /// Requests of the upstream this caller could not be asked (for the audit row).
    notes: RelayNotes,
}

#[derive(Clone, Copy)]
enum Kind {
    Sampling,
    Elicitation,
    Roots,
}

impl Drop for Flight {
    fn drop(&mut self) {
        // A request nobody resumes is abandoned: the upstream is told to cancel.
        self.call.abort();
    }
}

impl Flight {
    pub(crate) fn start(
        call: impl Future<Output = Result<Outcome, ErrorData>> + Send + 'static,
        upcalls: mpsc::Receiver<Upcall>,
        owner: String,
        notes: RelayNotes,
    ) -> Self {
        Self {
            call: tokio::spawn(call),
            upcalls,
            waiting: None,
            owner,
            next_key: 0,
            notes,
        }
    }
}

/// The parked requests of this process, by `requestState` handle.
static PARKED: LazyLock<Mutex<HashMap<String, Flight>>> = LazyLock::new(Mutex::default);

/// Takes back a parked request for its owner and hands it the caller's answers.
pub(crate) fn resume(
    state: &str,
    owner: &str,
    responses: Option<InputResponses>,
) -> Result<Flight, ErrorData> {
    let mut flight = {
        let mut table = PARKED.lock();
        // Only its owner takes it; anyone else learns nothing, not even that it exists.
        match table.get(state) {
            Some(f) if f.owner == owner => table.remove(state).ok_or_else(unknown_state)?,
            _ => return Err(unknown_state()),
        }
    };
    let mut responses = responses.unwrap_or_default();
    match flight.waiting.take() {
        Some(Waiting::One { key, kind, reply }) => {
            let answer = match responses.remove(&key) {
                Some(value) => parse(kind, value),
                None => Err(ErrorData::invalid_params(
                    format!("inputResponses has no answer for {key:?}"),
                    None,
                )),
            };
            let _ = reply.send(answer);
        }
        // The upstream judges its own round: missing or extra answers are its to refuse.
        Some(Waiting::Round(reply)) => {
            let _ = reply.send(Ok(responses));
        }
        None => {}
    }
    Ok(flight)
}

pub(crate) fn unknown_state() -> ErrorData {
    ErrorData::invalid_params(
        "requestState is unknown or expired: send the request again without it",
        None,
    )
}

fn parse(kind: Kind, value: Value) -> Result<ClientResult, ErrorData> {
    let bad =
        |e: serde_json::Error| ErrorData::invalid_params(format!("inputResponses: {e}"), None);
    Ok(match kind {
        Kind::Sampling => {
            ClientResult::CreateMessageResult(Box::new(serde_json::from_value(value).map_err(bad)?))
        }
        Kind::Elicitation => {
            ClientResult::ElicitResult(serde_json::from_value(value).map_err(bad)?)
        }
        Kind::Roots => ClientResult::ListRootsResult(serde_json::from_value(value).map_err(bad)?),
    })
}

/// Runs the request until it ends or its upstream asks something: then parks it and answers
/// `input_required` with the questions.
pub(crate) async fn drive(
    mut flight: Flight,
    ctx: &RequestContext<RoleServer>,
    min_log: u8,
) -> Result<Step, ErrorData> {
    let caps = ctx.client_capabilities().unwrap_or_default();
    loop {
        tokio::select! {
            biased;
            Some(upcall) = flight.upcalls.recv() => match upcall {
                Upcall::Notification(n) => deliver(n, ctx, min_log).await,
                Upcall::Request { request, reply } => {
                    if !can_answer(&request, &caps) {
                        let _ = reply.send(Err(flight.notes.refuse(&request, Declined::NotDeclared)));
                        continue;
                    }
                    let method = method_name(&request).to_string();
                    let Some((kind, input)) = as_input(request) else {
                        let refusal = declined(&method, Declined::NotOnRevision);
                        flight.notes.push(refusal.message.to_string());
                        let _ = reply.send(Err(refusal));
                        continue;
                    };
                    flight.next_key += 1;
                    let key = format!("upstream-{}", flight.next_key);
                    let mut asks = InputRequests::new();
                    asks.insert(key.clone(), input);
                    flight.waiting = Some(Waiting::One { key, kind, reply });
                    return Ok(park(flight, asks));
                }
                Upcall::Round { requests, reply } => {
                    // The upstream was told what this caller can answer; a question beyond
                    // that is refused as a request of it would be.
                    let undeclared = requests.values().find_map(|r| {
                        as_server_request(r.clone()).filter(|r| !can_answer(r, &caps))
                    });
                    if let Some(request) = undeclared {
                        let _ = reply.send(Err(flight.notes.refuse(&request, Declined::NotDeclared)));
                        continue;
                    }
                    flight.waiting = Some(Waiting::Round(reply));
                    return Ok(park(flight, requests));
                }
            },
            joined = &mut flight.call => {
                drain(&mut flight.upcalls, ctx, min_log, &flight.notes).await;
                let outcome = joined.unwrap_or_else(|e| {
                    Err(ErrorData::internal_error(format!("the request stopped: {e}"), None))
                })?;
                return Ok(Step::Done(outcome));
            }
        }
    }
}

fn park(flight: Flight, asks: InputRequests) -> Step {
    let state = switchboard_store::new_id("rs");
    PARKED.lock().insert(state.clone(), flight);
    let expire = state.clone();
    tokio::spawn(async move {
        tokio::time::sleep(PARKED_TTL).await;
        PARKED.lock().remove(&expire);
    });
    Step::Asked(InputRequiredResult::new(Some(asks), Some(state)))
}

fn as_input(request: ServerRequest) -> Option<(Kind, InputRequest)> {
    #[allow(deprecated)]
    match request {
        ServerRequest::CreateMessageRequest(r) => {
            Some((Kind::Sampling, InputRequest::CreateMessage(r)))
        }
        ServerRequest::ElicitRequest(r) => Some((Kind::Elicitation, InputRequest::Elicitation(r))),
        ServerRequest::ListRootsRequest(r) => Some((Kind::Roots, InputRequest::ListRoots(r))),
        _ => None,
    }
}
