//! One configured server: its spec, its live connection and what it last offered.

use serde::Serialize;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use std::time::{Instant, SystemTime};
use switchboard_core::{CallError, ErrorKind, Limits, ServerSpec, ServerStatus};
use switchboard_upstream::{ConnectOptions, Connection, Snapshot, UpstreamError};

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
    /// Calls running now, of at most `max_concurrent_calls`.
    pub calls_in_flight: usize,
    pub last_error: Option<String>,
    pub origin: String,
}

pub(crate) struct ServerEntry {
    pub spec: ServerSpec,
    state: Mutex<State>,
    /// One permit per call allowed in flight at once.
    slots: Arc<tokio::sync::Semaphore>,
    max_slots: usize,
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
    pub fn new(spec: ServerSpec, limits: &Limits) -> Self {
        let slots = spec
            .max_concurrent_calls
            .unwrap_or(limits.max_concurrent_calls);
        let status = if spec.enabled {
            ServerStatus::Connecting
        } else {
            ServerStatus::Disabled
        };
        Self {
            spec,
            slots: Arc::new(tokio::sync::Semaphore::new(slots.max(1))),
            max_slots: slots.max(1),
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
            calls_in_flight: self.max_slots - self.slots.available_permits(),
            last_error: state.last_error.clone(),
            origin: self.spec.origin.clone(),
        }
    }
}

impl ServerEntry {
    /// Waits (within the call's timeout) for a free call slot on this server.
    pub async fn acquire(
        &self,
        timeout: Option<Duration>,
    ) -> Result<tokio::sync::OwnedSemaphorePermit, CallError> {
        let timeout = timeout.unwrap_or(self.spec.call_timeout());
        match tokio::time::timeout(timeout, self.slots.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(CallError::new(
                ErrorKind::RateLimited,
                format!(
                    "server {} already has its maximum of calls in flight and none finished within {timeout:?}; raise max_concurrent_calls if it can take more",
                    self.spec.name
                ),
            )),
        }
    }

    /// An upstream failure as callers see it: classified, with this server's secrets hidden.
    pub fn call_error(&self, e: UpstreamError) -> CallError {
        CallError::new(e.kind(), self.spec.redact(&e.to_string()))
    }

    /// Connects and discovers; the outcome becomes the entry's state.
    pub async fn start(&self, connect: &ConnectOptions) {
        if !self.spec.enabled {
            self.state().status = Some(ServerStatus::Disabled);
            return;
        }
        let _one_attempt = self.connecting.lock().await;
        self.state().status = Some(ServerStatus::Connecting);
        let outcome = connect_and_discover(&self.spec, connect).await;
        let mut state = self.state();
        match outcome {
            Ok((conn, snapshot)) => {
                state.connection = Some(Arc::new(conn));
                state.snapshot = Some(snapshot);
                state.status = Some(ServerStatus::Ready);
                state.last_error = None;
                state.discovered_at = Some(SystemTime::now());
            }
            Err(e) => {
                let message = self.spec.redact(&e.to_string());
                tracing::warn!(server = %self.spec.name, "{message}");
                state.status = Some(ServerStatus::Error);
                state.last_error = Some(message);
            }
        }
    }

    /// The live connection, reconnecting once (without re-discovery) if the last one died.
    pub async fn connection(&self, connect: &ConnectOptions) -> Result<Arc<Connection>, CallError> {
        let name = &self.spec.name;
        if let Some(conn) = self.live_connection() {
            return Ok(conn);
        }
        if self.status() == ServerStatus::Disabled {
            return Err(CallError::new(
                ErrorKind::ToolNotFound,
                format!("server {name} is disabled"),
            ));
        }
        let _one_attempt = self.connecting.lock().await;
        if let Some(conn) = self.live_connection() {
            return Ok(conn);
        }
        tracing::warn!(server = %name, "connection lost; reconnecting");
        self.state().status = Some(ServerStatus::Connecting);
        match Connection::connect(&self.spec, connect).await {
            Ok(conn) => {
                let conn = Arc::new(conn);
                let mut state = self.state();
                state.connection = Some(conn.clone());
                state.status = Some(ServerStatus::Ready);
                state.last_error = None;
                Ok(conn)
            }
            Err(e) => {
                let error = self.call_error(e);
                let mut state = self.state();
                state.status = Some(ServerStatus::Error);
                state.last_error = Some(error.message.clone());
                Err(CallError::new(
                    error.kind,
                    format!("server {name}: {}", error.message),
                ))
            }
        }
    }

    /// Ends the connection (a stdio child dies with its process group).
    pub async fn close(&self) {
        let conn = self.state().connection.take();
        if let Some(conn) = conn {
            conn.close().await;
        }
    }
}

/// Connects and discovers within the server's one connect+discovery timeout.
pub(crate) async fn connect_and_discover(
    spec: &ServerSpec,
    opts: &ConnectOptions,
) -> Result<(Connection, Snapshot), UpstreamError> {
    let started = Instant::now();
    let conn = Connection::connect(spec, opts).await?;
    let left = spec.connect_timeout().saturating_sub(started.elapsed());
    match conn.discover(left).await {
        Ok(snapshot) => Ok((conn, snapshot)),
        Err(e) => {
            conn.close().await;
            Err(e)
        }
    }
}
