//! The REST API's request bodies and their checks, without I/O (small enough to fuzz).

#![forbid(unsafe_code)]

mod actions;
mod credentials;
mod servers;

pub use actions::{ApproveBody, BulkToggle, GetPrompt, Invoke, ReadResource, Toggle};
pub use credentials::{Credentials, MAX_SECRET, UpstreamAuth, upstream_auth};
pub use servers::{CreateServer, MAX_NAME, UpdateServer, validate_name};

/// A body that parsed but says something the API refuses; the message names the field and
/// the fix (the API answers it as `invalid_request`, HTTP 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyError(pub String);

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BodyError {}
