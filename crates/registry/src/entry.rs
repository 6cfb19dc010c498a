//! One configured server: its spec, its live connection and what it last offered.

mod starting;
mod state;

pub(crate) use starting::connect_and_discover;

use serde::Serialize;
pub use state::StatusChange;
pub(crate) use state::{DiscoveryGrant, State};
use std::sync::Arc;
use std::time::Duration;
use switchboard_core::{CallError, ErrorKind, Limits, ServerSpec, ServerStatus};
use switchboard_sync::{Mutex, MutexGuard};
use switchboard_upstream::{Connection, UpstreamError};

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
    /// Calls waiting for a slot now.
    pub calls_queued: usize,
    pub last_error: Option<String>,
    pub origin: String,
    /// The stdio child's process id while it runs.
    pub pid: Option<u32>,
    /// While `authenticating`: the URL a person opens to authorize the gateway.
    pub authorize_url: Option<String>,
    /// The last state changes, oldest first (at most [`state::HISTORY`]).
    pub status_history: Vec<StatusChange>,
    /// `per_end_user` for a server that acts as each end user with their own credential.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credentials: Option<&'static str>,
    /// A per-end-user server: what its tools were listed with (its discovery credential, or
    /// one end user's grant).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listed_with: Option<String>,
    /// A stdio server's confinement: `full`, `partial: …`, `not sandboxed: …` or `off
    /// (sandbox = false)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

pub(crate) struct ServerEntry {
    pub spec: ServerSpec,
    state: Mutex<State>,
    /// One permit per call allowed in flight at once.
    slots: Arc<tokio::sync::Semaphore>,
    max_slots: usize,
    /// Calls waiting for a slot now, and how many may.
    queued: std::sync::atomic::AtomicUsize,
    max_queued: usize,
    /// Serialises (re)connection so concurrent callers share one attempt.
    pub connecting: tokio::sync::Mutex<()>,
    /// Resources downstream sessions watch on this server.
    pub watched: crate::watch::WatchCounts,
    /// Restart backoff reads its monotonic time.
    clock: switchboard_core::SharedClock,
    /// How the server is confined, as its status says it.
    sandbox: Option<String>,
}

impl ServerEntry {
    pub(crate) fn new(
        spec: ServerSpec,
        limits: &Limits,
        clock: switchboard_core::SharedClock,
    ) -> Self {
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
            queued: Default::default(),
            max_queued: limits.max_queued_calls,
            state: Mutex::new(State::starting(status)),
            connecting: tokio::sync::Mutex::new(()),
            watched: Default::default(),
            clock,
            sandbox: None,
        }
    }

    /// The entry whose status says it is confined as `sandbox` says.
    pub(crate) fn with_sandbox(mut self, sandbox: Option<String>) -> Self {
        self.sandbox = sandbox;
        self
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    pub(crate) fn status(&self) -> ServerStatus {
        self.state().status()
    }

    /// What the shared connection is opened with: the spec, or for a per-end-user server
    /// without a discovery credential, the spec with the grant it lists its tools with.
    pub(crate) fn connect_spec(&self) -> std::borrow::Cow<'_, ServerSpec> {
        match &self.state().discovery_grant {
            Some(grant) => {
                std::borrow::Cow::Owned(self.spec.as_end_user(&grant.key, &grant.secret))
            }
            None => std::borrow::Cow::Borrowed(&self.spec),
        }
    }

    /// `text` with this server's secrets hidden: its own, its discovery grant's, and `more`.
    pub(crate) fn redact(&self, text: &str, more: Option<&str>) -> String {
        let state = self.state();
        let listing = state.discovery_grant.as_ref().map(|g| g.secret.as_str());
        let more: Vec<&str> = listing.into_iter().chain(more).collect();
        self.spec.redact_with(text, &more)
    }

    pub(crate) fn live_connection(&self) -> Option<Arc<Connection>> {
        self.state().connection.clone().filter(|c| !c.is_closed())
    }

    pub(crate) fn info(&self) -> ServerInfo {
        let state = self.state();
        let snapshot = state.snapshot.as_ref();
        ServerInfo {
            name: self.spec.name.to_string(),
            transport: self.spec.transport_name(),
            status: state.status(),
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
            calls_in_flight: self.in_flight(),
            calls_queued: self.queued.load(std::sync::atomic::Ordering::Relaxed),
            last_error: state.last_error.clone(),
            origin: self.spec.origin.clone(),
            pid: state
                .connection
                .as_ref()
                .filter(|c| !c.is_closed())
                .and_then(|c| c.pid()),
            authorize_url: state.authorize_url.clone(),
            status_history: state.history().collect(),
            credentials: (self.spec.end_user_credentials.as_ref()).map(|_| "per_end_user"),
            listed_with: self.listed_with(&state),
            sandbox: self.sandbox.clone(),
        }
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.max_slots - self.slots.available_permits()
    }

    /// A call ended: restart the idle clock; a success also ends a run of failures.
    pub(crate) fn mark_used(&self, succeeded: bool) {
        let mut state = self.state();
        state.last_used = Some(tokio::time::Instant::now());
        if succeeded {
            state.failures = 0;
        }
    }
}

impl ServerEntry {
    /// Waits (at most `timeout`, the call's whole budget) for a free call slot on this server.
    pub(crate) async fn acquire(
        &self,
        timeout: Duration,
    ) -> Result<tokio::sync::OwnedSemaphorePermit, CallError> {
        use std::sync::atomic::Ordering;
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            return Ok(permit);
        }
        if self.queued.fetch_add(1, Ordering::AcqRel) >= self.max_queued {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            return Err(CallError::new(
                ErrorKind::RateLimited,
                format!(
                    "server {} has {} calls in flight and {} waiting; try again later, or raise max_concurrent_calls / max_queued_calls if it can take more",
                    self.spec.name, self.max_slots, self.max_queued
                ),
            ));
        }
        // Counted out on drop, so a caller that gives up while waiting leaves the queue too.
        struct Waiting<'a>(&'a std::sync::atomic::AtomicUsize);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
            }
        }
        let _waiting = Waiting(&self.queued);
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
    pub(crate) fn call_error(&self, e: UpstreamError) -> CallError {
        self.call_error_hiding(e, None)
    }

    /// [`ServerEntry::call_error`], hiding `secret` too (the end user's own, on their call).
    pub(crate) fn call_error_hiding(&self, e: UpstreamError, secret: Option<&str>) -> CallError {
        let mut error = CallError::from(e);
        error.message = self.redact(&error.message, secret);
        // The upstream's own error data reaches the caller too: its secrets hidden as well.
        if let Some(data) = error.data.as_deref_mut() {
            self.redact_strings(data, secret);
        }
        error
    }

    /// Every string in `value` with this server's secrets (and `secret`) hidden.
    fn redact_strings(&self, value: &mut serde_json::Value, secret: Option<&str>) {
        match value {
            serde_json::Value::String(text) => *text = self.redact(text, secret),
            serde_json::Value::Array(items) => items
                .iter_mut()
                .for_each(|v| self.redact_strings(v, secret)),
            serde_json::Value::Object(fields) => {
                (fields.values_mut()).for_each(|v| self.redact_strings(v, secret))
            }
            _ => {}
        }
    }

    /// A per-end-user server: what its tools were listed with, as `status` says.
    fn listed_with(&self, state: &State) -> Option<String> {
        self.spec.end_user_credentials.as_ref()?;
        if self.spec.has_discovery_credential() {
            return Some("its discovery credential".into());
        }
        match &state.discovery_grant {
            Some(grant) => Some(format!("end user grant {}", grant.id)),
            None if self.spec.end_user_credentials.as_ref()?.oauth => {
                Some("its own authorization (an operator's, for listing only)".into())
            }
            None => None,
        }
    }

    /// Waits (at most `grace`) until no call is in flight; `false` if some still are.
    pub(crate) async fn wait_idle(&self, grace: Duration) -> bool {
        let all = u32::try_from(self.max_slots).unwrap_or(u32::MAX);
        tokio::time::timeout(grace, self.slots.acquire_many(all))
            .await
            .is_ok()
    }

    /// Waits (at most `grace`) for the calls in flight to finish, then closes: a replaced or
    /// removed server (no longer routed to) ends without cutting anyone off.
    pub(crate) async fn drain_and_close(&self, grace: Duration) {
        if !self.wait_idle(grace).await {
            tracing::warn!(server = %self.spec.name, "calls still running after {grace:?}; closing anyway");
        }
        self.close().await;
    }

    /// Ends the connection (a stdio child dies with its process group).
    pub(crate) async fn close(&self) {
        let conn = self.state().connection.take();
        if let Some(conn) = conn {
            conn.close().await;
        }
    }
}
