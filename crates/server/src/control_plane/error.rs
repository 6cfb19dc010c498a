//! The control plane's and the REST API's errors: one enum, classified once, rendered as
//! `{"error": {"kind", "message"}}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use switchboard_core::{CallError, ErrorKind};
use switchboard_store::StoreError;

#[derive(Debug)]
pub enum ApiError {
    /// No or unknown bearer token.
    Unauthenticated(String),
    /// Token lacks the role, or the org lacks the feature.
    Forbidden(String),
    NotFound(String),
    Invalid(String),
    Conflict(String),
    /// Something inside failed; the message is logged, not returned.
    Internal(String),
    /// A tool call failed with its own kind (and, for `rate_limited`, a retry time).
    Call(CallError),
}

/// The HTTP status of a failed call's kind: the one place REST maps kinds to statuses.
fn call_status(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::AuthUnavailable => StatusCode::BAD_GATEWAY,
        ErrorKind::TransportError | ErrorKind::ServerError => StatusCode::BAD_GATEWAY,
        ErrorKind::Timeout => StatusCode::GATEWAY_TIMEOUT,
        ErrorKind::ToolNotFound => StatusCode::NOT_FOUND,
        ErrorKind::PolicyDenied => StatusCode::FORBIDDEN,
        ErrorKind::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorKind::InvalidRequest => StatusCode::BAD_REQUEST,
        ErrorKind::AuditUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        // REST calls relay no rounds, so none is handed back; were one, REST cannot answer.
        ErrorKind::InputRequired | ErrorKind::TaskCreated => StatusCode::BAD_GATEWAY,
    }
}

impl ApiError {
    fn status(&self) -> StatusCode {
        match self {
            ApiError::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Invalid(_) => StatusCode::BAD_REQUEST,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Call(e) => call_status(e.kind),
        }
    }

    fn kind(&self) -> ErrorKind {
        match self {
            ApiError::Unauthenticated(_) => ErrorKind::AuthUnavailable,
            ApiError::Forbidden(_) => ErrorKind::PolicyDenied,
            ApiError::NotFound(_) => ErrorKind::ToolNotFound,
            ApiError::Invalid(_) | ApiError::Conflict(_) => ErrorKind::InvalidRequest,
            ApiError::Internal(_) => ErrorKind::ServerError,
            ApiError::Call(e) => e.kind,
        }
    }
}

impl ApiError {
    /// The `kind` an answer names: the REST API's own (`unauthenticated`, `forbidden`,
    /// `not_found`, `invalid_request`, `conflict`, `internal`), or a failed call's kind.
    pub fn wire_kind(&self) -> &'static str {
        match self {
            ApiError::Unauthenticated(_) => "unauthenticated",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::NotFound(_) => "not_found",
            ApiError::Invalid(_) => "invalid_request",
            ApiError::Conflict(_) => "conflict",
            ApiError::Internal(_) => "internal",
            ApiError::Call(e) => e.kind.as_str(),
        }
    }

    /// What went wrong, in words (internal details included: for logs and stored rows).
    pub fn message(&self) -> &str {
        match self {
            ApiError::Unauthenticated(m)
            | ApiError::Forbidden(m)
            | ApiError::NotFound(m)
            | ApiError::Invalid(m)
            | ApiError::Conflict(m)
            | ApiError::Internal(m) => m,
            ApiError::Call(e) => &e.message,
        }
    }
}

impl From<switchboard_api_types::BodyError> for ApiError {
    fn from(e: switchboard_api_types::BodyError) -> Self {
        ApiError::Invalid(e.0)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict { what } => ApiError::Conflict(what),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(mut self) -> Response {
        let message = match &self {
            ApiError::Internal(detail) => {
                tracing::error!("API request failed: {detail}");
                "internal error; the gateway's log has the details".to_string()
            }
            other => other.message().to_string(),
        };
        let mut body = json!({"error": {"kind": self.wire_kind(), "message": message}});
        // The upstream's own JSON-RPC error code and data, unchanged.
        if let ApiError::Call(CallError {
            code: Some(code),
            data,
            ..
        }) = &mut self
        {
            body["error"]["code"] = json!(code);
            if let Some(data) = data.take() {
                body["error"]["data"] = *data;
            }
        }
        let retry_after = match &self {
            ApiError::Call(e) => e.retry_after_ms,
            _ => None,
        };
        let mut response = match retry_after {
            Some(ms) => {
                body["error"]["retry_after_ms"] = json!(ms);
                let secs = ms.div_ceil(1000).to_string();
                (
                    self.status(),
                    [(axum::http::header::RETRY_AFTER, secs)],
                    Json(body),
                )
                    .into_response()
            }
            None => (self.status(), Json(body)).into_response(),
        };
        // RFC 6750: a 401 names the scheme the client must use.
        if matches!(self, ApiError::Unauthenticated(_)) {
            (response.headers_mut()).insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        response.extensions_mut().insert(self.kind());
        response
    }
}
