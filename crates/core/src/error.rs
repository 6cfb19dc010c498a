//! The machine-readable failure kinds every surface reports (SPEC.md "Calls").

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a call failed, as scripts and agents see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    AuthUnavailable,
    TransportError,
    Timeout,
    ServerError,
    ToolNotFound,
    PolicyDenied,
    RateLimited,
    InvalidRequest,
    /// `[audit] durability = "strict"` and the call's audit row could not be committed: the
    /// answer is withheld (fail closed).
    AuditUnavailable,
    /// Not a failure: a 2026-07-28 upstream asked the caller for input and the call ended
    /// with its round, which the caller answers on a later request (the audit row of each
    /// leg but the last). Callers get the round itself, never this kind.
    InputRequired,
    /// Not a failure: the upstream answered the call with a task (the tasks extension,
    /// `resultType: "task"`); the caller polls the gateway's task id for its outcome, and the
    /// task's end is audited on its own row.
    #[serde(rename = "task")]
    TaskCreated,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::AuthUnavailable,
        ErrorKind::TransportError,
        ErrorKind::Timeout,
        ErrorKind::ServerError,
        ErrorKind::ToolNotFound,
        ErrorKind::PolicyDenied,
        ErrorKind::RateLimited,
        ErrorKind::InvalidRequest,
        ErrorKind::AuditUnavailable,
        ErrorKind::InputRequired,
        ErrorKind::TaskCreated,
    ];

    /// Whether the call failed: every kind but `input_required`, a call that ended asking
    /// its caller, and `task`, a call that goes on as a task (health, traces and error
    /// ratios leave them out).
    pub fn is_failure(self) -> bool {
        !matches!(self, ErrorKind::InputRequired | ErrorKind::TaskCreated)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::AuthUnavailable => "auth_unavailable",
            ErrorKind::TransportError => "transport_error",
            ErrorKind::Timeout => "timeout",
            ErrorKind::ServerError => "server_error",
            ErrorKind::ToolNotFound => "tool_not_found",
            ErrorKind::PolicyDenied => "policy_denied",
            ErrorKind::RateLimited => "rate_limited",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::AuditUnavailable => "audit_unavailable",
            ErrorKind::InputRequired => "input_required",
            ErrorKind::TaskCreated => "task",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed call: its kind plus a message for people (never containing secrets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct CallError {
    pub kind: ErrorKind,
    pub message: String,
    /// For `rate_limited`: when a retry may succeed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// The upstream's own JSON-RPC error code (e.g. `-32042`, URL required), when the upstream
    /// answered the request with an error rather than a result: callers get it unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// That error's `data`, unchanged (boxed: errors travel in every call's `Result`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Box<serde_json::Value>>,
}

impl CallError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            retry_after_ms: None,
            code: None,
            data: None,
        }
    }

    /// The upstream answered with JSON-RPC error `code` (and `data`): kept for the caller.
    pub fn with_upstream_error(mut self, code: i32, data: Option<serde_json::Value>) -> Self {
        self.code = Some(code);
        self.data = data.map(Box::new);
        self
    }

    pub fn with_retry_after_ms(mut self, ms: u64) -> Self {
        self.retry_after_ms = Some(ms);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_serialize_as_their_wire_names() {
        for kind in ErrorKind::ALL {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, serde_json::Value::String(kind.as_str().into()));
        }
    }
}
