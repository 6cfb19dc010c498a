//! How a server comes up and back: the first start, a start for a call, a connection found
//! lost, and the background reconnects of a remote server, with backoff after failures.

use super::ServerEntry;
use crate::lifecycle::{MAX_FAILURES, backoff};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use switchboard_core::{CallError, ErrorKind, ServerStatus};
use switchboard_upstream::{ConnectOptions, Connection, Snapshot, UpstreamError};

impl ServerEntry {
    /// Connects and discovers; the outcome becomes the entry's state. Starts afresh: any run
    /// of failures is forgotten.
    pub(crate) async fn start(&self, connect: &ConnectOptions) {
        if !self.spec.enabled || self.state().disabled {
            self.state().set_status(ServerStatus::Disabled);
            return;
        }
        let _one_attempt = self.connecting.lock().await;
        {
            let mut state = self.state();
            state.set_status(ServerStatus::Connecting);
            state.failures = 0;
            state.retry_at = None;
            state.auth_refused = false;
            state.attempts += 1;
        }
        let outcome = connect_and_discover(&self.connect_spec(), connect).await;
        if let Err(e) = &outcome
            && self.authorize(e, connect, false).await.is_some()
        {
            return;
        }
        match outcome {
            Ok((conn, snapshot)) => self.connected(conn, snapshot),
            Err(e) => {
                let message = self.redact(&e.to_string(), None);
                tracing::warn!(server = %self.spec.name, "{message}");
                if self.spec.is_remote() {
                    // Tried again in the background until it answers.
                    self.failed(message);
                } else {
                    let mut state = self.state();
                    state.set_status(ServerStatus::Error);
                    state.last_error = Some(message);
                }
            }
        }
    }

    /// A connection and what it offers become the server's state: `ready`.
    fn connected(&self, conn: Connection, snapshot: Snapshot) {
        let _ = self.connected_if(conn, snapshot, false);
    }

    /// As `connected`; when `still_in_error`, only if the server still waits for a reconnect
    /// (checked under the same lock), else the connection comes back unused.
    fn connected_if(
        &self,
        conn: Connection,
        snapshot: Snapshot,
        still_in_error: bool,
    ) -> Option<Connection> {
        let conn = {
            let mut state = self.state();
            let waiting = state.status() == ServerStatus::Error
                && !state.disabled
                && state.connection.is_none();
            if still_in_error && !waiting {
                return Some(conn);
            }
            let conn = Arc::new(conn);
            state.connection = Some(conn.clone());
            state.snapshot = Some(snapshot);
            state.set_status(ServerStatus::Ready);
            state.last_error = None;
            state.clear_link();
            state.failures = 0;
            state.retry_at = None;
            state.discovered_at = Some(SystemTime::now());
            state.last_used = Some(tokio::time::Instant::now());
            let snapshot = state.snapshot.as_ref();
            tracing::info!(
                server = %self.spec.name,
                protocol = conn.protocol_version(),
                upstream = conn.server_name().unwrap_or("?"),
                tools = snapshot.map_or(0, |s| s.tools.len()),
                resources = snapshot.map_or(0, |s| s.resources.len()),
                prompts = snapshot.map_or(0, |s| s.prompts.len()),
                "connected"
            );
            conn
        };
        crate::watch::renew(self, &conn);
        None
    }

    /// The live connection; starts the server if it is idle or its process died (after the
    /// backoff its failures earned, if that fits in the call's time), without re-discovery.
    /// A remote server is tried at once, so the first call after it is back succeeds.
    pub(crate) async fn connection(
        &self,
        connect: &ConnectOptions,
        budget: Duration,
    ) -> Result<Arc<Connection>, CallError> {
        if let Some(conn) = self.live_connection() {
            return Ok(conn);
        }
        // Boxed: starting a server is rare, and its future would size every call's.
        Box::pin(self.start_for_call(connect, budget)).await
    }

    async fn start_for_call(
        &self,
        connect: &ConnectOptions,
        budget: Duration,
    ) -> Result<Arc<Connection>, CallError> {
        let attempts_before = self.state().attempts;
        let _one_attempt = self.connecting.lock().await;
        if let Some(conn) = self.live_connection() {
            return Ok(conn);
        }
        self.note_crash();
        let name = &self.spec.name;
        // Calls that waited while another attempt failed share its outcome: a server that
        // is down is not asked once per waiting call.
        if self.spec.is_remote() && self.state().attempts != attempts_before {
            return Err(self.unavailable());
        }
        let wait = self.startable(budget)?;
        tokio::time::sleep(wait).await;
        match self.status() {
            ServerStatus::Idle => tracing::info!(server = %name, "starting for a call"),
            ServerStatus::Error if self.spec.is_remote() => {
                tracing::info!(server = %name, "reconnecting for a call")
            }
            _ => tracing::warn!(server = %name, "restarting"),
        }
        let was = {
            let mut state = self.state();
            state.attempts += 1;
            let was = state.status();
            state.set_status(ServerStatus::Connecting);
            was
        };
        match Connection::connect(&self.connect_spec(), connect).await {
            Ok(conn) => {
                let conn = Arc::new(conn);
                let mut state = self.state();
                state.connection = Some(conn.clone());
                state.set_status(ServerStatus::Ready);
                state.last_error = None;
                state.clear_link();
                state.retry_at = None;
                state.last_used = Some(tokio::time::Instant::now());
                drop(state);
                if was == ServerStatus::Error {
                    tracing::info!(server = %name, "reconnected");
                }
                crate::watch::renew(self, &conn);
                Ok(conn)
            }
            Err(e) => {
                if let Some(refused) = self.authorize(&e, connect, false).await {
                    return Err(refused);
                }
                let error = self.call_error(e);
                self.failed(error.message.clone());
                Err(CallError::new(
                    error.kind,
                    format!("server {name}: {}", error.message),
                ))
            }
        }
    }

    /// Why a call cannot have this server now: its last failure, as a transport error (or
    /// the authorization it waits for).
    fn unavailable(&self) -> CallError {
        if self.status() == ServerStatus::Authenticating {
            return self.waiting_for_authorization();
        }
        let state = self.state();
        let kind = match state.auth_refused {
            true => ErrorKind::AuthUnavailable,
            false => ErrorKind::TransportError,
        };
        let last = state.last_error.clone().unwrap_or_default();
        CallError::new(kind, format!("server {}: {last}", self.spec.name))
    }

    /// A connection that closed without us closing it is a crash: it counts as a failure,
    /// and its last stderr lines become the server's error.
    fn note_crash(&self) {
        let dead = self.state().connection.take();
        if let Some(dead) = dead {
            let tail = dead.stderr_tail();
            let message = match tail.last() {
                Some(_) => format!("the server exited; stderr: {}", tail.join(" | ")),
                None => "the connection closed".to_string(),
            };
            tracing::warn!(server = %self.spec.name, "{message}");
            self.failed(message);
        }
    }

    /// A call found the connection numbered `conn` to a remote server gone (the server
    /// unreachable, or its transport closed): it is dropped, and the server is in `error`
    /// until a call or the background reconnect brings it back. Whether the state changed.
    pub(crate) fn lost(&self, conn: u64, e: &UpstreamError) -> bool {
        let dropped = {
            let mut state = self.state();
            match &state.connection {
                Some(c) if c.id() == conn => state.connection.take(),
                _ => None,
            }
        };
        let Some(dropped) = dropped else { return false };
        let message = self.redact(&e.to_string(), None);
        self.failed(message.clone());
        let retry = self.state().retry_at.map(|at| {
            let left = at.saturating_duration_since(self.clock.monotonic());
            format!(
                "; reconnecting in {:.1} s, or at the next call",
                left.as_secs_f64()
            )
        });
        tracing::warn!(server = %self.spec.name, "connection lost: {message}{}", retry.unwrap_or_default());
        tokio::spawn(async move { dropped.close().await });
        true
    }

    /// Whether a background reconnect is due: a remote server in `error` whose backoff is
    /// over, with no attempt running (credentials refused wait for a person).
    pub(crate) fn reconnect_due(&self) -> bool {
        self.spec.is_remote() && self.connecting.try_lock().is_ok() && self.awaits_reconnect(true)
    }

    /// In `error` without a connection, neither disabled nor refused its credentials; and,
    /// when `backoff_over`, past its backoff.
    fn awaits_reconnect(&self, backoff_over: bool) -> bool {
        let state = self.state();
        state.status() == ServerStatus::Error
            && !state.disabled
            && !state.auth_refused
            && state.connection.is_none()
            && (!backoff_over || (state.retry_at).is_some_and(|at| at <= self.clock.monotonic()))
    }

    /// One background attempt to bring a remote server in `error` back: connect and discover
    /// (it may offer other tools after a restart). Whether an attempt ran (its outcome is the
    /// server's state).
    pub(crate) async fn reconnect(&self, connect: &ConnectOptions) -> bool {
        let Ok(_one_attempt) = self.connecting.try_lock() else {
            return false;
        };
        if !self.spec.is_remote() || !self.awaits_reconnect(true) {
            return false;
        }
        self.state().attempts += 1;
        let outcome = connect_and_discover(&self.connect_spec(), connect).await;
        if let Err(e) = &outcome
            && self.authorize(e, connect, false).await.is_some()
        {
            return true;
        }
        match outcome {
            Ok((conn, snapshot)) => match self.connected_if(conn, snapshot, true) {
                None => tracing::info!(server = %self.spec.name, "reconnected"),
                // Disabled or refreshed meanwhile: that is the server's state now.
                Some(unwanted) => unwanted.close().await,
            },
            Err(e) if self.awaits_reconnect(false) => {
                let message = self.redact(&e.to_string(), None);
                tracing::debug!(server = %self.spec.name, "reconnect failed: {message}");
                self.failed(message);
            }
            Err(_) => {}
        }
        true
    }

    /// Records a failed start or a crash: back off, or give up after [`MAX_FAILURES`] (a
    /// remote server is never given up on: it backs off up to the longest wait).
    pub(crate) fn failed(&self, message: String) {
        let mut state = self.state();
        state.failures += 1;
        state.set_status(ServerStatus::Error);
        if state.failures >= MAX_FAILURES && !self.spec.is_remote() {
            state.retry_at = None;
            state.last_error = Some(format!(
                "{message} ({} failures in a row; fix it, then refresh or enable the server)",
                state.failures
            ));
        } else {
            let wait = backoff(state.failures);
            state.retry_at = Some(self.clock.monotonic() + wait);
            state.last_error = Some(message);
        }
    }

    /// How long to wait before starting, or why not to start at all.
    fn startable(&self, budget: Duration) -> Result<Duration, CallError> {
        let name = &self.spec.name;
        let state = self.state();
        if state.disabled || state.status() == ServerStatus::Disabled {
            return Err(CallError::new(
                ErrorKind::ToolNotFound,
                format!("server {name} is disabled"),
            ));
        }
        if state.status() == ServerStatus::Authenticating {
            drop(state);
            return Err(self.waiting_for_authorization());
        }
        let last = state.last_error.clone().unwrap_or_default();
        let kind = match state.auth_refused {
            true => ErrorKind::AuthUnavailable,
            false => ErrorKind::TransportError,
        };
        if state.failures >= MAX_FAILURES && (state.auth_refused || !self.spec.is_remote()) {
            return Err(CallError::new(kind, format!("server {name}: {last}")));
        }
        // The backoff paces a process that keeps crashing; a remote server is only asked.
        if self.spec.is_remote() {
            return Ok(Duration::ZERO);
        }
        let wait = state
            .retry_at
            .map(|at| at.saturating_duration_since(self.clock.monotonic()))
            .unwrap_or_default();
        if wait > budget {
            return Err(CallError::new(
                kind,
                format!("server {name} is restarting in {wait:.1?} after: {last}"),
            ));
        }
        Ok(wait)
    }
}

/// Connects and discovers within the server's one connect+discovery timeout.
pub(crate) async fn connect_and_discover(
    spec: &switchboard_core::ServerSpec,
    opts: &ConnectOptions,
) -> Result<(Connection, Snapshot), UpstreamError> {
    let started = std::time::Instant::now();
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
