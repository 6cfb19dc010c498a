//! REST errors: one enum, classified once, rendered as `{"error": {"kind", "message"}}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use switchboard_core::ErrorKind;
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
        }
    }

    fn kind(&self) -> ErrorKind {
        match self {
            ApiError::Unauthenticated(_) => ErrorKind::AuthUnavailable,
            ApiError::Forbidden(_) => ErrorKind::PolicyDenied,
            ApiError::NotFound(_) => ErrorKind::ToolNotFound,
            ApiError::Invalid(_) | ApiError::Conflict(_) => ErrorKind::InvalidRequest,
            ApiError::Internal(_) => ErrorKind::ServerError,
        }
    }
}

impl ApiError {
    /// What went wrong, in words (internal details included: for logs and stored rows).
    pub fn message(&self) -> &str {
        match self {
            ApiError::Unauthenticated(m)
            | ApiError::Forbidden(m)
            | ApiError::NotFound(m)
            | ApiError::Invalid(m)
            | ApiError::Conflict(m)
            | ApiError::Internal(m) => m,
        }
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
    fn into_response(self) -> Response {
        let message = match &self {
            ApiError::Internal(detail) => {
                tracing::error!("API request failed: {detail}");
                "internal error; the gateway's log has the details".to_string()
            }
            other => other.message().to_string(),
        };
        let body = json!({"error": {"kind": self.kind().as_str(), "message": message}});
        (self.status(), Json(body)).into_response()
    }
}
