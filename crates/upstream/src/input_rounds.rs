//! A 2026-07-28 upstream's `input_required` answers: each question relayed to the caller like a
//! server-to-client request, then the call retried with the answers and the server's state.

use crate::UpstreamError;
use crate::route::Route;
use rmcp::model::{InputRequest, InputRequests, InputResponses, ServerRequest};

/// How many rounds of questions one call may ask before it is given up.
pub(crate) const MAX_INPUT_ROUNDS: usize = 8;

/// The caller's answers to one round of questions, by the server's keys.
pub(crate) async fn answer(
    route: &Route,
    requests: InputRequests,
) -> Result<InputResponses, UpstreamError> {
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let request = match request {
            InputRequest::CreateMessage(r) => ServerRequest::CreateMessageRequest(r),
            InputRequest::Elicitation(r) => ServerRequest::ElicitRequest(r),
            InputRequest::ListRoots(r) => ServerRequest::ListRootsRequest(r),
            _ => {
                return Err(UpstreamError::Unsupported(format!(
                    "the server asked for input {key:?} of a kind this gateway cannot relay"
                )));
            }
        };
        let answer = route
            .ask(request)
            .await
            .map_err(|e| UpstreamError::Unsupported(e.message.to_string()))?;
        let answer =
            serde_json::to_value(answer).map_err(|e| UpstreamError::Transport(e.to_string()))?;
        responses.insert(key, answer);
    }
    Ok(responses)
}

/// The error for a server that keeps asking.
pub(crate) fn too_many_rounds() -> UpstreamError {
    UpstreamError::Server(format!(
        "the server asked for input more than {MAX_INPUT_ROUNDS} times in one call"
    ))
}
