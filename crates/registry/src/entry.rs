//! One configured server: its spec, its live connection and what it last offered.

use serde::Serialize;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;
use switchboard_core::{ServerSpec, ServerStatus};
use switchboard_upstream::{Connection, Snapshot};

/// What a person or a script sees about one server.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ServerInfo {
    pub name: String,
    pub transport: &'static str,
    pub status: ServerStatus,
    pub tool_count: usize,
    pub resource_count: usize,
    pub prompt_count: usize,
    pub protocol_version: Option<String>,
    pub last_error: Option<String>,
    pub origin: String,
}

pub(crate) struct ServerEntry {
    pub spec: ServerSpec,
    state: Mutex<State>,
    /// Serialises (re)connection so concurrent callers share one attempt.
    pub connecting: tokio::sync::Mutex<()>,
}

#[derive(Default)]
pub(crate) struct State {
    pub status: Option<ServerStatus>,
    pub connection: Option<Arc<Connection>>,
    pub snapshot: Option<Snapshot>,
    pub last_error: Option<String>,
    pub discovered_at: Option<SystemTime>,
}

impl ServerEntry {
    pub fn new(spec: ServerSpec) -> Self {
        let status = if spec.enabled {
            ServerStatus::Connecting
        } else {
            ServerStatus::Disabled
        };
        Self {
            spec,
            state: Mutex::new(State {
                status: Some(status),
                ..State::default()
            }),
            connecting: tokio::sync::Mutex::new(()),
        }
    }

    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn status(&self) -> ServerStatus {
        self.state().status.unwrap_or(ServerStatus::Connecting)
    }

    pub fn live_connection(&self) -> Option<Arc<Connection>> {
        self.state().connection.clone().filter(|c| !c.is_closed())
    }

    pub fn info(&self) -> ServerInfo {
        let state = self.state();
        let snapshot = state.snapshot.as_ref();
        ServerInfo {
            name: self.spec.name.to_string(),
            transport: self.spec.transport_name(),
            status: state.status.unwrap_or(ServerStatus::Connecting),
            tool_count: snapshot.map_or(0, |s| {
                s.tools
                    .iter()
                    .filter(|t| self.spec.allows_tool(&t.name))
                    .count()
            }),
            resource_count: snapshot.map_or(0, |s| s.resources.len()),
            prompt_count: snapshot.map_or(0, |s| s.prompts.len()),
            protocol_version: state
                .connection
                .as_ref()
                .map(|c| c.protocol_version().to_string()),
            last_error: state.last_error.clone(),
            origin: self.spec.origin.clone(),
        }
    }
}
