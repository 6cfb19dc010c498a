//! The states a server can be in, spelled the same on every surface.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A server's state as people read it (library, REST, CLI, dashboard).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerStatus {
    Connecting,
    Authenticating,
    Ready,
    Error,
    Disabled,
    Idle,
}

impl ServerStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ServerStatus::Connecting => "connecting",
            ServerStatus::Authenticating => "authenticating",
            ServerStatus::Ready => "ready",
            ServerStatus::Error => "error",
            ServerStatus::Disabled => "disabled",
            ServerStatus::Idle => "idle",
        }
    }
}

impl fmt::Display for ServerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
