//! An upstream that no longer knows our session: the spec's 404, and the 400 that many
//! servers built on the TypeScript SDK's examples answer instead, read alike so that rmcp's
//! transport re-initializes and sends the request again (the upstream provably did not run it).

use rmcp::model::{ClientJsonRpcMessage, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{StreamableHttpError, StreamableHttpPostResponse};

/// Phrases of the SDKs' own session checks (TypeScript examples, Python, Go), lower case.
const FORGOTTEN: [&str; 3] = [
    "no valid session id",
    "session not found",
    "invalid or missing session id",
];

/// The request id of a message posted on a session, when it is a request whose answer
/// could say that the session is gone.
pub(crate) fn asked_on_session(
    message: &ClientJsonRpcMessage,
    session: Option<&std::sync::Arc<str>>,
) -> Option<RequestId> {
    match (message, session) {
        (ClientJsonRpcMessage::Request(request), Some(_)) => Some(request.id.clone()),
        _ => None,
    }
}

/// `response` as rmcp's transport should see it: an answer that refuses `asked` because the
/// upstream does not know the session becomes [`StreamableHttpError::SessionExpired`].
pub(crate) fn as_expired<E: std::error::Error + Send + Sync + 'static>(
    asked: Option<RequestId>,
    response: StreamableHttpPostResponse,
) -> Result<StreamableHttpPostResponse, StreamableHttpError<E>> {
    match (&asked, &response) {
        (Some(asked), StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Error(e), _))
            if refuses_session(e.id.as_ref(), &e.error, asked) =>
        {
            tracing::debug!(
                code = e.error.code.0,
                message = %e.error.message,
                "the upstream does not know the session: re-initializing"
            );
            Err(StreamableHttpError::SessionExpired)
        }
        _ => Ok(response),
    }
}

/// Whether an error answer to request `asked` says the session is unknown. An answer
/// without an id was given before the request was read, so any mention of the session
/// will do; an answer to the request itself must use one of the SDKs' own phrases.
fn refuses_session(id: Option<&RequestId>, error: &ErrorData, asked: &RequestId) -> bool {
    let message = error.message.to_lowercase();
    match id {
        None => message.contains("session"),
        Some(id) if id == asked => FORGOTTEN.iter().any(|p| message.contains(p)),
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ErrorCode;

    fn error(message: &'static str) -> ErrorData {
        ErrorData::new(ErrorCode(-32000), message, None)
    }

    #[test]
    fn answers_that_refuse_the_session_and_those_that_do_not() {
        let asked = RequestId::String("sb-1".into());
        let other = RequestId::Number(7);
        // server-everything's (express) answer: no id, the session named.
        let everything = error("Bad Request: No valid session ID provided");
        assert!(refuses_session(None, &everything, &asked));
        assert!(refuses_session(Some(&asked), &everything, &asked));
        assert!(!refuses_session(Some(&other), &everything, &asked));
        assert!(refuses_session(
            Some(&asked),
            &error("Session not found"),
            &asked
        ));
        // A tool's own failure that happens to mention a session is the tool's answer.
        let tool = error("the browser session crashed");
        assert!(!refuses_session(Some(&asked), &tool, &asked));
        assert!(!refuses_session(None, &error("Parse error"), &asked));
    }
}
