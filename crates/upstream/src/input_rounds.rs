//! A 2026-07-28 upstream's `input_required` answers: each round of questions goes to the caller
//! whole, under the upstream's keys, then the request is sent again with the answers and the
//! server's state.

use crate::UpstreamError;
use crate::route::Route;
use rmcp::model::{InputRequest, InputRequests, InputResponses, ServerRequest};

/// How many rounds of questions one request may ask before it is given up.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// The caller's answers to one round of questions, by the server's keys.
pub(crate) async fn answer(
    route: &Route,
    requests: InputRequests,
) -> Result<InputResponses, UpstreamError> {
    all_relayable(&requests)?;
    route
        .ask_round(requests)
        .await
        .map_err(|e| UpstreamError::Unsupported(e.message.to_string()))
}

/// Refuses a round with a question of a kind the gateway cannot put to a caller.
pub(crate) fn all_relayable(requests: &InputRequests) -> Result<(), UpstreamError> {
    match requests
        .iter()
        .find_map(|(key, r)| (!relayable(r)).then_some(key))
    {
        Some(key) => Err(UpstreamError::Unsupported(format!(
            "the server asked for input {key:?} of a kind this gateway cannot relay"
        ))),
        None => Ok(()),
    }
}

fn relayable(request: &InputRequest) -> bool {
    matches!(
        request,
        InputRequest::CreateMessage(_) | InputRequest::Elicitation(_) | InputRequest::ListRoots(_)
    )
}

/// One question of a round as the server-to-client request older revisions send instead.
pub fn as_server_request(request: InputRequest) -> Option<ServerRequest> {
    #[allow(deprecated)] // sampling and roots: deprecated by 2026-07-28, live in older revisions
    match request {
        InputRequest::CreateMessage(r) => Some(ServerRequest::CreateMessageRequest(r)),
        InputRequest::Elicitation(r) => Some(ServerRequest::ElicitRequest(r)),
        InputRequest::ListRoots(r) => Some(ServerRequest::ListRootsRequest(r)),
        _ => None,
    }
}

/// The error for a server that keeps asking.
pub(crate) fn too_many_rounds() -> UpstreamError {
    UpstreamError::Server(format!(
        "the server asked for input more than {MAX_INPUT_ROUNDS} times in one call"
    ))
}
