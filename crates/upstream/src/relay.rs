//! What an upstream asks of the caller while serving its call (sampling, elicitation, roots,
//! log lines, progress), routed to the one call that caused it and never to another.

use rmcp::model::{
    ClientCapabilities, ClientResult, ErrorCode, ErrorData, ExtensionCapabilities, InputRequests,
    InputResponses, RootsCapabilities, ServerRequest,
};
use rmcp::model::{ServerJsonRpcMessage, ServerNotification};
use tokio::sync::{mpsc, oneshot};

/// One thing an upstream sent for the caller of a call in flight.
#[derive(Debug)]
pub enum Upcall {
    /// A request only the caller can answer; its answer goes back to the upstream.
    Request {
        request: ServerRequest,
        reply: oneshot::Sender<Result<ClientResult, ErrorData>>,
    },
    /// A round of questions a 2026-07-28 upstream asked at once (`input_required`), under the
    /// upstream's own keys: the caller gets the round whole and its answers go back by key.
    Round {
        requests: InputRequests,
        reply: oneshot::Sender<Result<InputResponses, ErrorData>>,
    },
    /// A notification for the caller (progress, a log line, an elicitation completed), in
    /// the order the upstream sent it, before the call's result.
    Notification(ServerNotification),
}

/// Extensions a caller's opt-in may be passed on for: the gateway carries what they add (MCP
/// Apps: tool `_meta` and `ui://` resources pass through unchanged; tasks: a task's id is
/// mapped to the gateway's own and its `tasks/*` requests routed back).
const RELAYED_EXTENSIONS: [&str; 2] = ["io.modelcontextprotocol/ui", TASKS_EXTENSION];

/// The tasks extension (SEP-2663), a 2026-07-28 extension: a session with an older server
/// never declares it.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// What a 2026-07-28 upstream is told the caller can answer: the caller's own capabilities, as
/// far as the gateway relays them (sampling, elicitation, roots, and the extensions above).
pub fn relayable_capabilities(caller: Option<&ClientCapabilities>) -> ClientCapabilities {
    let mut caps = ClientCapabilities::default();
    let Some(caller) = caller else {
        return caps;
    };
    #[allow(deprecated)] // sampling and roots: deprecated by 2026-07-28, live in older revisions
    {
        caps.sampling = caller.sampling.clone();
        caps.roots = caller.roots.as_ref().map(|_| RootsCapabilities::default());
    }
    caps.elicitation = caller.elicitation.clone();
    caps.extensions = caller.extensions.as_ref().and_then(|extensions| {
        let kept: ExtensionCapabilities = extensions
            .iter()
            .filter(|(name, _)| RELAYED_EXTENSIONS.contains(&name.as_str()))
            .map(|(name, settings)| (name.clone(), settings.clone()))
            .collect();
        (!kept.is_empty()).then_some(kept)
    });
    caps
}

/// Where a call's upcalls go (the caller drains it while the call runs).
pub type UpcallSender = mpsc::Sender<Upcall>;

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

/// Why a server-to-client request could not be relayed.
#[derive(Debug, Clone, Copy)]
pub enum Declined {
    /// Not asked during a tool call in progress (none runs, or it came with another kind of
    /// request).
    NotInCall,
    /// Several calls in flight on a transport that cannot say which one asked.
    SeveralCalls,
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
        Declined::NotInCall => {
            "it was not asked during a tool call in progress, so there is no caller to ask"
        }
        Declined::SeveralCalls => {
            "it is not tied to one call (several calls were in flight on a server that cannot say which one asked: stdio or HTTP+SSE); mark a stdio server `per_session`, or connect an HTTP+SSE server over Streamable HTTP if it offers that"
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

/// The refusal of a whole `input_required` round (see [`declined`]).
pub fn declined_round(why: Declined) -> ErrorData {
    declined("an input_required round", why)
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
