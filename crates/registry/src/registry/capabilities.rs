//! Which upstream session serves a call: the shared one, or the one for what its caller can
//! answer (servers before 2026-07-28 learn that once per session).

use super::Registry;
use std::sync::Arc;
use switchboard_core::ServerSpec;
use switchboard_upstream::{CallOptions, CapabilitySet, Connection, UpstreamError};

impl Registry {
    /// `shared`, unless the call's caller can answer something else than it declares and the
    /// server fixes capabilities per session: then the session for the caller's set.
    pub(super) async fn for_callers_set(
        &self,
        spec: &ServerSpec,
        opts: &CallOptions,
        shared: Arc<Connection>,
    ) -> Result<Arc<Connection>, UpstreamError> {
        // REST and the CLI (nobody answers) keep the shared session, and a 2026-07-28 server
        // gets each caller's capabilities with each request.
        if opts.upcalls.is_none() || shared.takes_capabilities_per_request() {
            return Ok(shared);
        }
        // A session's set is made once; a sessionless request's only here, when needed.
        let made;
        let set = match opts.capability_set.as_deref() {
            Some(set) => set,
            None => {
                made = CapabilitySet::of(opts.caller_capabilities.as_deref());
                &made
            }
        };
        (self.inner.capability_sessions)
            .connection(spec, &self.inner.connect, set, shared)
            .await
    }

    /// Sessions open per server for callers' capability sets, beside the shared ones.
    pub fn capability_sessions(&self) -> std::collections::HashMap<String, usize> {
        self.inner.capability_sessions.open_per_server()
    }
}
