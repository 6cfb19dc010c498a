//! Upstream failures, classified once into the user-facing error kinds.

use switchboard_core::{CallError, ErrorKind};

#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    #[error(
        "could not start `{command}`: {source}; check that it is installed and on PATH, or give its full path"
    )]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    /// The gateway would not start it as configured (a refused environment variable, a
    /// sandbox grant that would expose secrets, a strict sandbox this machine cannot give).
    #[error("will not start `{command}`: {reason}")]
    StartRefused { command: String, reason: String },
    #[error("{0}")]
    Egress(#[from] switchboard_egress::EgressError),
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    /// The server answered the Streamable HTTP handshake with a 4xx status: it may be a
    /// 2024-11-05 HTTP+SSE server (the spec's backwards-compatibility rule).
    #[error("the MCP handshake failed: {0}")]
    HandshakeRefused(String),
    /// The server did not take up `server/discover`: it offered only revisions that have
    /// `initialize`, or answered with something else (an older server's catch-all). When the
    /// gateway chose the revision, it initializes instead.
    #[error("the MCP handshake failed: {0}")]
    DiscoverFailed(String),
    #[error("the server requires authorization: {0}")]
    Unauthorized(String),
    /// The server refused the request's credentials (401) or their scope (403), saying why in
    /// a `WWW-Authenticate` challenge.
    #[error("{}", challenge_message(.challenge, *.insufficient_scope))]
    Challenged {
        challenge: String,
        insufficient_scope: bool,
    },
    #[error("no answer within {0:?}; if the server is just slow, raise its timeout_ms")]
    Timeout(std::time::Duration),
    #[error("the connection to the server is closed")]
    Closed,
    /// No connection could be made to the server (refused, unresolvable, timed out): the
    /// request was not sent. The server may be down or restarting.
    #[error("could not reach the server: {0}")]
    Unreachable(String),
    #[error("the server answered with an error: {0}")]
    Server(String),
    /// The server answered the request with a JSON-RPC error: its code and data are kept.
    #[error("the server answered with an error: {}", .0.message)]
    Rejected(rmcp::model::ErrorData),
    /// The server asked the caller for input, and the call was to end with that round
    /// ([`crate::Rounds::HandBack`]): the caller answers it on a later request.
    #[error("the server asks the caller for input")]
    InputRequired(Box<rmcp::model::InputRequiredResult>),
    /// The server answered the call with a task (the tasks extension): the caller polls it.
    #[error("the server runs the call as a task")]
    TaskCreated(Box<rmcp::model::CreateTaskResult>),
    #[error("transport failure: {0}")]
    Transport(String),
    #[error("the server answered with an unexpected message type")]
    Unexpected,
    /// The server does not offer what was asked of it (a capability it did not declare).
    #[error("{0}")]
    Unsupported(String),
    #[error("the call was cancelled by the caller")]
    Cancelled,
    #[error(
        "the {what} is {size} bytes, over the {limit}-byte limit; raise [limits] {setting} if that is expected"
    )]
    TooLarge {
        what: &'static str,
        size: usize,
        limit: usize,
        setting: &'static str,
    },
}

impl UpstreamError {
    /// Whether the failure says the connection is gone (the server cannot be reached, or
    /// the transport closed) rather than that one request failed.
    pub fn connection_lost(&self) -> bool {
        matches!(self, UpstreamError::Unreachable(_) | UpstreamError::Closed)
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            UpstreamError::Unauthorized(_) | UpstreamError::Challenged { .. } => {
                ErrorKind::AuthUnavailable
            }
            UpstreamError::Timeout(_) => ErrorKind::Timeout,
            UpstreamError::Server(_)
            | UpstreamError::Rejected(_)
            | UpstreamError::Unexpected
            | UpstreamError::TooLarge { .. } => ErrorKind::ServerError,
            UpstreamError::Egress(_) => ErrorKind::PolicyDenied,
            UpstreamError::InputRequired(_) => ErrorKind::InputRequired,
            UpstreamError::TaskCreated(_) => ErrorKind::TaskCreated,
            UpstreamError::Cancelled | UpstreamError::Unsupported(_) => ErrorKind::InvalidRequest,
            UpstreamError::Spawn { .. }
            | UpstreamError::StartRefused { .. }
            | UpstreamError::Handshake(_)
            | UpstreamError::HandshakeRefused(_)
            | UpstreamError::DiscoverFailed(_)
            | UpstreamError::Closed
            | UpstreamError::Unreachable(_)
            | UpstreamError::Transport(_) => ErrorKind::TransportError,
        }
    }

    pub(crate) fn from_service(e: rmcp::ServiceError) -> Self {
        use rmcp::ServiceError as S;
        match e {
            S::McpError(data) => UpstreamError::Rejected(data),
            S::TransportClosed => UpstreamError::Closed,
            S::Timeout { timeout } => UpstreamError::Timeout(timeout),
            S::Cancelled { .. } => UpstreamError::Cancelled,
            S::UnexpectedResponse => UpstreamError::Unexpected,
            S::TransportSend(e) => crate::http::classify_transport(&e),
            other => UpstreamError::Transport(crate::http::error_chain(&other)),
        }
    }
}

fn challenge_message(challenge: &str, insufficient_scope: bool) -> String {
    let what = if insufficient_scope {
        "the server needs a token with more scope"
    } else {
        "the server refused the request without a valid access token"
    };
    if challenge.is_empty() {
        what.to_string()
    } else {
        format!("{what} (WWW-Authenticate: {challenge})")
    }
}

impl From<UpstreamError> for CallError {
    fn from(e: UpstreamError) -> Self {
        let error = CallError::new(e.kind(), e.to_string());
        match e {
            UpstreamError::Rejected(data) => error.with_upstream_error(data.code.0, data.data),
            // The round travels whole to the surface that hands it to the caller.
            UpstreamError::InputRequired(round) => CallError {
                data: serde_json::to_value(round).ok().map(Box::new),
                ..error
            },
            // So does the task, to the surface that registers it under the gateway's own id.
            UpstreamError::TaskCreated(task) => CallError {
                data: serde_json::to_value(task).ok().map(Box::new),
                ..error
            },
            _ => error,
        }
    }
}
