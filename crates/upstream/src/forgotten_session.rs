//! An upstream that no longer knows our session: the spec's 404, and the 400 that many
//! servers built on the TypeScript SDK's examples answer instead (an error without a request
//! id that names the session), read alike so that rmcp's transport re-initializes and sends
//! the request again. An answer without the request's id was given before the request was
//! read: the upstream provably did not run it. An error that carries the request's id is the
//! request's own answer (a tool may fail with "session not found"), and is left alone.

use rmcp::model::{ClientJsonRpcMessage, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{StreamableHttpError, StreamableHttpPostResponse};

/// Whether `message` is a request posted on a session: its answer could say the session is
/// gone.
pub(crate) fn request_on_session(
    message: &ClientJsonRpcMessage,
    session: Option<&std::sync::Arc<str>>,
) -> bool {
    matches!(message, ClientJsonRpcMessage::Request(_)) && session.is_some()
}

/// `response` as rmcp's transport should see it: an answer to a request on a session that
/// refuses it because the upstream does not know the session becomes
/// [`StreamableHttpError::SessionExpired`].
pub(crate) fn as_expired<E: std::error::Error + Send + Sync + 'static>(
    on_session: bool,
    response: StreamableHttpPostResponse,
) -> Result<StreamableHttpPostResponse, StreamableHttpError<E>> {
    match &response {
        StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Error(e), _)
            if on_session && refuses_session(e.id.as_ref(), &e.error) =>
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

/// Whether an error answer to a request says the session is unknown: it carries no request
/// id (it was given before the request was read) and names the session.
fn refuses_session(id: Option<&RequestId>, error: &ErrorData) -> bool {
    id.is_none() && error.message.to_lowercase().contains("session")
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
        // server-everything's (express) answer: no id, the session named.
        let everything = error("Bad Request: No valid session ID provided");
        assert!(refuses_session(None, &everything));
        // With the request's id it is the request's own answer: a tool may say this.
        assert!(!refuses_session(Some(&asked), &everything));
        assert!(!refuses_session(Some(&asked), &error("Session not found")));
        assert!(!refuses_session(None, &error("Parse error")));
    }
}
