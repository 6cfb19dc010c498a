//! How one session's gateway is made (config servers, an org's, an agent's), what it holds
//! that parking would lose, and how its calls relay what their upstream asks of the caller.

use super::{AgentScope, Gateway, View, new_instance};
use crate::mcp::relay::relay_while;
use rmcp::service::{RequestContext, RoleServer};
use std::sync::atomic::Ordering;
use switchboard_registry::{CallOptions, Registry};

impl Gateway {
    pub fn new(registry: Registry) -> Self {
        Self::serving(registry, None, None)
    }

    /// A gateway that also serves orgs' registries to requests carrying an org token.
    pub fn with_orgs(registry: Registry, control: crate::control_plane::ControlPlane) -> Self {
        Self::serving(registry, Some(control), None)
    }

    /// A gateway for one agent of one org.
    pub(crate) fn for_agent(
        registry: Registry,
        control: crate::control_plane::ControlPlane,
        agent: AgentScope,
    ) -> Self {
        Self::serving(registry, Some(control), Some(agent))
    }

    fn serving(
        registry: Registry,
        orgs: Option<crate::control_plane::ControlPlane>,
        agent: Option<AgentScope>,
    ) -> Self {
        Self {
            registry,
            orgs,
            agent,
            instance: new_instance(),
            log_level: Default::default(),
            watches: Default::default(),
            processes: Default::default(),
            change_feed: Default::default(),
            live: None,
            found: Default::default(),
            session_capabilities: Default::default(),
            audit: None,
        }
    }

    /// Task ends are audited to `audit` (a gateway without a control plane: `stdio`).
    pub fn with_audit(mut self, audit: switchboard_store::AuditWriter) -> Self {
        self.audit = Some(audit);
        self
    }

    /// This gateway registers its session in `live` once initialized.
    pub(crate) fn with_live_sessions(
        mut self,
        live: std::sync::Arc<crate::mcp::sessions::live::LiveSessions>,
    ) -> Self {
        self.live = Some(live);
        self
    }

    /// Whether this session holds state that parking it would lose: a log level it asked
    /// for, resource subscriptions, or processes of its own.
    pub(crate) fn holds_session_state(&self) -> bool {
        self.min_log() != 0
            || !self.watches.is_empty()
            || !self.processes.is_empty()
            || !self.found.is_empty()
    }

    pub(super) fn min_log(&self) -> u8 {
        self.log_level.load(Ordering::Relaxed)
    }

    /// Runs `work` for this request's caller while what its upstream asks of the caller is
    /// relayed (see `relay::relay_while`).
    pub(super) async fn relayed<T, Fut>(
        &self,
        context: &RequestContext<RoleServer>,
        view: &View,
        work: impl FnOnce(CallOptions) -> Fut,
    ) -> T
    where
        Fut: Future<Output = T>,
    {
        let (opts, upcalls) = self.call_options(context, view.caller.clone());
        let notes = opts.relay_notes.clone();
        // The call's spans are children of the downstream request's.
        let span = crate::edge::traced::span_of(&context.extensions);
        let call = std::pin::pin!(tracing::Instrument::instrument(work(opts), span));
        relay_while(call, upcalls, context, self.min_log(), &notes).await
    }
}
