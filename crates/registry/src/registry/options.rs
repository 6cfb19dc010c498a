//! How a registry is made (names, egress, limits, observers, the guard) and what a server
//! test reports.

use crate::lifecycle::SnapshotCache;
use std::sync::Arc;
use switchboard_core::{CallGuard, CallObserver, Limits, NamingTemplate, Owner, ServerStatus};
use switchboard_upstream::{EgressPolicy, UpstreamHttp};

/// How a registry names things and reaches upstreams.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RegistryOptions {
    pub naming: NamingTemplate,
    /// How endpoints over this registry hand out tools: all, search meta-tools, or auto.
    pub tools: switchboard_core::ToolsSetting,
    /// The shared outbound HTTP client; `None` builds one enforcing `egress`.
    pub http: Option<UpstreamHttp>,
    pub egress: EgressPolicy,
    pub limits: Limits,
    /// Runtime-hijacking environment variables stdio servers may set anyway.
    pub allow_env: Vec<String>,
    /// How stdio servers are confined (`None`: they are not, and their status says so).
    pub sandbox: Option<Arc<switchboard_upstream::SandboxSetup>>,
    /// The roots an upstream gets when it asks outside any call (`[gateway] roots`).
    pub roots: Vec<String>,
    /// Hears about every tool call (the audit log).
    pub observer: Option<Arc<dyn CallObserver>>,
    /// Keeps discovery snapshots so lazy stdio servers list their tools without running.
    pub snapshots: Option<Arc<dyn SnapshotCache>>,
    /// Lists every running server's offer again this often (±10% jitter), for servers that
    /// change without announcing it. `None`: only on `list_changed` and refresh.
    pub refresh_every: Option<std::time::Duration>,
    /// Token store, pending authorizations and redirect base for OAuth servers.
    pub oauth: Option<switchboard_upstream::auth::OAuthContext>,
    /// The policy pipeline every call passes (and every discovery is reviewed by).
    pub guard: Option<Arc<dyn CallGuard>>,
    /// Who declared this registry's servers (pins and rules are kept under it).
    pub owner: Owner,
    /// Wall time for token expiry, monotonic time for restart backoff.
    pub clock: switchboard_core::SharedClock,
    /// Where end users' credentials for per-end-user servers are found (none: such servers
    /// answer every call `auth_unavailable`).
    pub end_user_grants: Option<Arc<dyn switchboard_core::EndUserGrants>>,
}

impl RegistryOptions {
    /// Reads time from `clock` instead of the system's (tests jump it).
    pub fn with_clock(mut self, clock: switchboard_core::SharedClock) -> Self {
        self.clock = clock;
        self
    }
    pub fn with_oauth(mut self, oauth: switchboard_upstream::auth::OAuthContext) -> Self {
        self.oauth = Some(oauth);
        self
    }
    pub fn with_tools(mut self, tools: switchboard_core::ToolsSetting) -> Self {
        self.tools = tools;
        self
    }
    pub fn with_naming(mut self, naming: NamingTemplate) -> Self {
        self.naming = naming;
        self
    }
    /// `--dev`: allow loopback upstreams, and `http://` to them.
    pub fn with_dev(mut self, dev: bool) -> Self {
        self.egress.dev = dev;
        self
    }
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
    pub fn with_refresh_every(mut self, every: std::time::Duration) -> Self {
        self.refresh_every = Some(every).filter(|e| !e.is_zero());
        self
    }
    pub fn with_snapshots(mut self, snapshots: Arc<dyn SnapshotCache>) -> Self {
        self.snapshots = Some(snapshots);
        self
    }
    pub fn with_observer(mut self, observer: Arc<dyn CallObserver>) -> Self {
        self.observer = Some(observer);
        self
    }
    pub fn with_roots(mut self, roots: Vec<String>) -> Self {
        self.roots = roots;
        self
    }
    pub fn with_allow_env(mut self, names: Vec<String>) -> Self {
        self.allow_env = names;
        self
    }
    /// Confines stdio servers as `setup` says.
    pub fn with_sandbox(mut self, setup: switchboard_upstream::SandboxSetup) -> Self {
        self.sandbox = Some(Arc::new(setup));
        self
    }
    /// The egress policy (operator allowlist, `--dev`).
    pub fn with_egress(mut self, egress: EgressPolicy) -> Self {
        self.egress = egress;
        self
    }
    pub fn with_http(mut self, http: UpstreamHttp) -> Self {
        self.http = Some(http);
        self
    }
    pub fn with_guard(mut self, guard: Arc<dyn CallGuard>) -> Self {
        self.guard = Some(guard);
        self
    }
    pub fn with_end_user_grants(
        mut self,
        grants: Arc<dyn switchboard_core::EndUserGrants>,
    ) -> Self {
        self.end_user_grants = Some(grants);
        self
    }
    pub fn with_owner(mut self, owner: Owner) -> Self {
        self.owner = owner;
        self
    }
}

/// What `test_server` found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TestReport {
    pub name: String,
    pub transport: &'static str,
    pub status: ServerStatus,
    pub protocol_version: Option<String>,
    pub tools: usize,
    pub resources: usize,
    pub resource_templates: usize,
    pub prompts: usize,
    pub tool_names: Vec<String>,
    pub error: Option<String>,
    pub elapsed_ms: u128,
    /// A stdio server's confinement (`full`, `partial: …`, `off (sandbox = false)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}
