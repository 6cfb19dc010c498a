//! The registry itself: servers in, one catalogue out, calls routed to the right connection.

mod authorization;
mod calls;
mod capabilities;
mod end_users;
mod extensions;
mod items;
mod options;
mod session_requests;
mod tasks;
mod traced;
mod visibility;

pub use calls::TASK_ORIGIN_KEY;
pub use options::{RegistryOptions, TestReport};
use tasks::{reap_idle, refresh_periodically, retire, start_concurrency, watch_changes};

use crate::catalog::Catalog;
use crate::entry::{ServerEntry, ServerInfo, connect_and_discover};
use crate::lifecycle::SnapshotCache;
use futures::StreamExt;
use std::sync::Arc;
use std::time::{Instant, SystemTime};
use switchboard_config::Config;
use switchboard_core::{CallGuard, CallObserver, NamingTemplate, Owner, ServerSpec, ServerStatus};
use switchboard_sync::RwLock;
use switchboard_upstream::{ConnectOptions, Connection, SandboxSetup, Snapshot, UpstreamHttp};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

/// All upstream servers behind one catalogue. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Registry {
    inner: Arc<Inner>,
}

struct Inner {
    naming: NamingTemplate,
    tools: switchboard_core::ToolsSetting,
    connect: ConnectOptions,
    servers: RwLock<Vec<Arc<ServerEntry>>>,
    catalog: RwLock<Arc<Catalog>>,
    changes: broadcast::Sender<()>,
    /// Every server state change, as the server's new [`ServerInfo`].
    status: broadcast::Sender<ServerInfo>,
    shutdown: CancellationToken,
    observer: Option<Arc<dyn CallObserver>>,
    snapshots: Option<Arc<dyn SnapshotCache>>,
    guard: RwLock<Option<Arc<dyn CallGuard>>>,
    owner: Owner,
    /// The org that declared the servers (`None`: the operator), as call records carry it.
    owner_org: Option<Arc<str>>,
    /// Every `notifications/resources/updated` from this registry's upstreams.
    updates: broadcast::Sender<crate::ResourceUpdate>,
    /// Sessions for callers whose capabilities differ from the shared session's.
    capability_sessions: crate::capability_sessions::CapabilitySessions,
    /// Where end users' credentials are found, and each one's own upstream sessions.
    grants: Option<Arc<dyn switchboard_core::EndUserGrants>>,
    end_user_sessions: crate::end_user_sessions::EndUserSessions,
    /// Calls waiting for an end user's consent.
    consent_waits: crate::consent_waits::ConsentWaits,
    /// Where `token_exchange` servers trade callers' tokens (set once the issuers are known;
    /// shared with sibling registries).
    exchange: TokenExchangeSlot,
}

/// The token exchange a registry and its siblings use, once set.
type TokenExchangeSlot = Arc<std::sync::OnceLock<Arc<dyn switchboard_core::TokenExchange>>>;

/// What a registry shares with its siblings.
#[derive(Clone)]
struct Shared {
    naming: NamingTemplate,
    tools: switchboard_core::ToolsSetting,
    connect: ConnectOptions,
    observer: Option<Arc<dyn CallObserver>>,
    snapshots: Option<Arc<dyn SnapshotCache>>,
    refresh_every: Option<std::time::Duration>,
    guard: Option<Arc<dyn CallGuard>>,
    owner: Owner,
    grants: Option<Arc<dyn switchboard_core::EndUserGrants>>,
    exchange: TokenExchangeSlot,
}

const EVENT_QUEUE: usize = 256;
const STATUS_QUEUE: usize = 256;
const UPDATE_QUEUE: usize = 256;
/// How long calls in flight may run on after shutdown begins.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);
/// How often idle stdio servers are looked for.
const IDLE_CHECK: std::time::Duration = std::time::Duration::from_secs(1);

impl Registry {
    /// Creates an empty registry. Must be called inside a tokio runtime: it starts the task
    /// that re-discovers a server when it announces a list change.
    pub fn new(options: RegistryOptions) -> Self {
        let http = options
            .http
            .unwrap_or_else(|| UpstreamHttp::new(options.egress.clone()));
        let connect = ConnectOptions {
            http,
            events: None,
            limits: options.limits,
            allow_env: options.allow_env,
            sandbox: options.sandbox,
            roots: options.roots,
            log_level: Default::default(),
            oauth: options.oauth.map(|o| o.with_clock(options.clock.clone())),
            clock: options.clock,
            capabilities: None,
        };
        Self::assemble(Shared {
            naming: options.naming,
            tools: options.tools,
            connect,
            observer: options.observer,
            snapshots: options.snapshots,
            refresh_every: options.refresh_every,
            guard: options.guard,
            owner: options.owner,
            grants: options.end_user_grants,
            exchange: Default::default(),
        })
    }

    /// A registry over `shared`, with its own change events, re-discovery and idle tasks.
    fn assemble(shared: Shared) -> Self {
        let Shared {
            naming,
            tools,
            mut connect,
            observer,
            snapshots,
            refresh_every,
            guard,
            owner,
            grants,
            exchange,
        } = shared;
        let (events_tx, events_rx) = mpsc::channel(EVENT_QUEUE);
        let (changes, _) = broadcast::channel(16);
        let (status, _) = broadcast::channel(STATUS_QUEUE);
        connect.events = Some(events_tx);
        let capability_sessions =
            crate::capability_sessions::CapabilitySessions::new(&connect.limits);
        let end_user_sessions = crate::end_user_sessions::EndUserSessions::new(&connect.limits);
        let registry = Self {
            inner: Arc::new(Inner {
                naming,
                tools,
                connect,
                servers: RwLock::default(),
                catalog: RwLock::default(),
                changes,
                status,
                shutdown: CancellationToken::new(),
                observer,
                snapshots,
                guard: RwLock::new(guard),
                owner_org: owner.org_id().map(Arc::from),
                owner,
                updates: broadcast::channel(UPDATE_QUEUE).0,
                capability_sessions,
                grants,
                end_user_sessions,
                consent_waits: crate::consent_waits::ConsentWaits::new(),
                exchange,
            }),
        };
        tokio::spawn(watch_changes(Arc::downgrade(&registry.inner), events_rx));
        tokio::spawn(reap_idle(
            Arc::downgrade(&registry.inner),
            registry.inner.shutdown.clone(),
        ));
        if let Some(every) = refresh_every {
            tokio::spawn(refresh_periodically(Arc::downgrade(&registry.inner), every));
        }
        registry
    }

    /// How endpoints over this registry hand out tools (`[gateway] tools_mode`).
    pub fn tools_setting(&self) -> switchboard_core::ToolsSetting {
        self.inner.tools
    }

    /// The naming template in force.
    pub fn naming(&self) -> &NamingTemplate {
        &self.inner.naming
    }

    /// Adds (or replaces) one server and connects it; returns its state afterwards.
    pub async fn add_server(&self, spec: ServerSpec) -> ServerInfo {
        let entry = self.entry_for(spec);
        let old = {
            let mut servers = self.inner.servers.write();
            let old = servers
                .iter()
                .position(|e| e.spec.name == entry.spec.name)
                .map(|i| std::mem::replace(&mut servers[i], entry.clone()));
            if old.is_none() {
                servers.push(entry.clone());
            }
            old
        };
        if let Some(old) = old {
            self.end_user_server_gone(&old.spec);
            retire(old);
        }
        self.start(&entry).await;
        self.rebuild();
        entry.info()
    }

    /// Stops and forgets one server; `false` if there was none by that name.
    pub async fn remove_server(&self, name: &str) -> bool {
        let removed = {
            let mut servers = self.inner.servers.write();
            let at = servers.iter().position(|e| e.spec.name.as_str() == name);
            at.map(|i| servers.remove(i))
        };
        let Some(entry) = removed else { return false };
        self.end_user_server_gone(&entry.spec);
        self.rebuild();
        self.let_go(entry);
        true
    }

    /// Stops `entry`; when no server of its name remains, the guard forgets what discovery
    /// taught it about the server (servers come and go through the API for months).
    fn let_go(&self, entry: Arc<ServerEntry>) {
        let name = &entry.spec.name;
        let gone = !self
            .inner
            .servers
            .read()
            .iter()
            .any(|e| e.spec.name == *name);
        if gone && let Some(guard) = self.guard() {
            guard.forget_server(&self.inner.owner, name);
        }
        retire(entry);
    }

    /// A new, empty registry sharing this one's naming, HTTP client, limits, observer and
    /// guard, for servers `owner` declares (one per org for servers connected through the API).
    pub fn sibling(&self, owner: Owner) -> Registry {
        let mut connect = self.inner.connect.clone();
        // Each registry's upstreams get the level its own sessions ask for.
        connect.log_level = Default::default();
        // The operator's `[gateway] roots` are for the operator's servers, not an org's.
        connect.roots = Vec::new();
        Self::assemble(Shared {
            naming: self.inner.naming.clone(),
            tools: self.inner.tools,
            connect,
            observer: self.inner.observer.clone(),
            snapshots: self.inner.snapshots.clone(),
            // An org's API servers are re-listed by the cluster's scheduled job instead.
            refresh_every: None,
            guard: self.guard(),
            owner,
            grants: self.inner.grants.clone(),
            exchange: self.inner.exchange.clone(),
        })
    }

    /// Where `credentials = "token_exchange"` servers trade callers' access tokens (this
    /// registry's and its siblings'); set once.
    pub fn set_token_exchange(&self, exchange: Arc<dyn switchboard_core::TokenExchange>) {
        let _ = self.inner.exchange.set(exchange);
    }

    /// The policy pipeline calls pass, if any.
    pub fn guard(&self) -> Option<Arc<dyn CallGuard>> {
        self.inner.guard.read().clone()
    }

    /// Installs the pipeline (for a registry built before it); catalogues are reviewed again.
    pub fn set_guard(&self, guard: Arc<dyn CallGuard>) {
        *self.inner.guard.write() = Some(guard);
        self.rebuild();
    }

    /// The outbound HTTP client (egress-checked) this registry reaches upstreams with.
    pub fn http(&self) -> &UpstreamHttp {
        &self.inner.connect.http
    }

    /// Who declared this registry's servers.
    pub fn owner(&self) -> &Owner {
        &self.inner.owner
    }

    /// Reviews every server's tools again (after pins were approved or the policy changed)
    /// and tells subscribers.
    pub fn review_again(&self) {
        self.rebuild();
    }

    /// Makes the registry match `config`: unchanged servers are left alone, changed ones are
    /// replaced, removed ones stopped, and all new ones connected concurrently.
    pub async fn apply_config(&self, config: &Config) -> Vec<ServerInfo> {
        let (to_start, to_close) = {
            let mut servers = self.inner.servers.write();
            let mut next = Vec::with_capacity(config.servers.len());
            let mut to_start = Vec::new();
            for spec in &config.servers {
                match servers.iter().find(|e| e.spec.name == spec.name) {
                    Some(existing) if existing.spec == *spec => next.push(existing.clone()),
                    _ => {
                        let entry = self.entry_for(spec.clone());
                        to_start.push(entry.clone());
                        next.push(entry);
                    }
                }
            }
            let to_close: Vec<_> = servers
                .iter()
                .filter(|e| !next.iter().any(|n| Arc::ptr_eq(n, e)))
                .cloned()
                .collect();
            *servers = next;
            (to_start, to_close)
        };
        self.rebuild();
        for entry in to_start.iter().chain(&to_close) {
            self.end_user_server_gone(&entry.spec);
        }
        for entry in to_close {
            self.let_go(entry);
        }
        // Bounded: fifty interpreters importing their SDKs at once on a small machine each
        // take longer than the connect timeout; a few at a time, each starts quickly.
        futures::stream::iter(&to_start)
            .for_each_concurrent(start_concurrency(), |e| self.start(e))
            .await;
        self.rebuild();
        self.servers()
    }

    /// Every server with its status, in declaration order.
    pub fn servers(&self) -> Vec<ServerInfo> {
        self.inner.servers.read().iter().map(|e| e.info()).collect()
    }

    /// One server with its status.
    pub fn server(&self, name: &str) -> Option<ServerInfo> {
        self.entry(name).map(|e| e.info())
    }

    /// The current catalogue (an immutable snapshot).
    pub fn catalog(&self) -> Arc<Catalog> {
        self.inner.catalog.read().clone()
    }

    pub fn tools(&self) -> Vec<crate::ExposedTool> {
        self.catalog().tools.clone()
    }

    /// Notified whenever the catalogue changes.
    pub fn subscribe(&self) -> broadcast::Receiver<()> {
        self.inner.changes.subscribe()
    }

    /// Every server state change (connecting, ready, idle, error, disabled…), as the server's
    /// new [`ServerInfo`]. A slow receiver skips ahead (`Lagged`) rather than holding anyone up.
    pub fn subscribe_status(&self) -> broadcast::Receiver<ServerInfo> {
        self.inner.status.subscribe()
    }

    /// Stops a server and keeps it stopped (its tools leave the catalogue) until
    /// [`Registry::enable`]; `None` if there is no such server.
    pub async fn disable(&self, name: &str) -> Option<ServerInfo> {
        let entry = self.entry(name)?;
        entry.state().disabled = true;
        entry.close().await;
        {
            let mut state = entry.state();
            state.set_status(ServerStatus::Disabled);
            state.snapshot = None;
        }
        self.rebuild();
        Some(self.publish(&entry))
    }

    /// Starts a disabled server again (a server in `error` is retried at once too).
    pub async fn enable(&self, name: &str) -> Option<ServerInfo> {
        let entry = self.entry(name)?;
        entry.state().disabled = false;
        entry.close().await;
        self.start(&entry).await;
        self.rebuild();
        Some(entry.info())
    }

    /// The (server, upstream tool) an exposed tool name stands for.
    pub fn route(&self, exposed: &str) -> Option<(String, String)> {
        self.catalog()
            .route_tool(exposed)
            .map(|(s, t)| (s.to_string(), t.to_string()))
    }

    /// Lists one server's offer again on its live connection, so calls in flight carry on;
    /// connects first if it has none. For scheduled re-discovery.
    pub async fn rediscover(&self, name: &str) -> Option<ServerInfo> {
        let entry = self.entry(name)?;
        // A server waiting for a person keeps its flow (a new start would register a new
        // client and replace the link the person may be opening).
        if entry.status() == ServerStatus::Authenticating {
            return Some(entry.info());
        }
        match entry.live_connection() {
            Some(conn) => {
                if let Err(e) = relist(&entry, &conn).await {
                    tracing::warn!(server = %name, "re-discovery failed: {e}");
                }
            }
            None => self.start(&entry).await,
        }
        self.rebuild();
        Some(entry.info())
    }

    /// Re-runs discovery for one server on a new connection (the old one is closed).
    pub async fn refresh(&self, name: &str) -> Option<ServerInfo> {
        let entry = self.entry(name)?;
        entry.close().await;
        self.start(&entry).await;
        self.rebuild();
        Some(entry.info())
    }

    /// Starts (or reaches) a server, initializes, lists everything, and stops it again,
    /// without touching the registry.
    pub async fn test_server(&self, spec: &ServerSpec) -> TestReport {
        let started = Instant::now();
        let mut report = TestReport {
            name: spec.name.to_string(),
            transport: spec.transport_name(),
            status: ServerStatus::Error,
            protocol_version: None,
            tools: 0,
            resources: 0,
            resource_templates: 0,
            prompts: 0,
            tool_names: Vec::new(),
            error: None,
            elapsed_ms: 0,
            sandbox: SandboxSetup::describe(self.inner.connect.sandbox.as_deref(), spec),
        };
        match connect_and_discover(spec, &self.inner.connect).await {
            Ok((conn, snap)) => {
                report.status = ServerStatus::Ready;
                report.protocol_version = Some(conn.protocol_version().to_string());
                report.tool_names = snap
                    .tools
                    .iter()
                    .filter(|t| spec.allows_tool(&t.name))
                    .map(|t| t.name.to_string())
                    .collect();
                report.tools = report.tool_names.len();
                report.resources = snap.resources.len();
                report.resource_templates = snap.resource_templates.len();
                report.prompts = snap.prompts.len();
                conn.close().await;
            }
            Err(e) => report.error = Some(e.to_string()),
        }
        report.elapsed_ms = started.elapsed().as_millis();
        report
    }

    /// Whether an upstream URL passes the egress policy; the error names the reason and fix.
    pub fn check_url(&self, url: &str) -> Result<(), String> {
        self.inner
            .connect
            .http
            .check_url(url)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Stops every server (stdio children with their process groups), letting calls in
    /// flight finish for at most `grace` first.
    pub async fn shutdown_within(&self, grace: std::time::Duration) {
        self.inner.shutdown.cancel();
        let entries: Vec<_> = self.inner.servers.read().clone();
        futures::future::join_all(entries.iter().map(|e| e.drain_and_close(grace))).await;
    }

    /// [`Registry::shutdown_within`] the default grace period (10 s).
    pub async fn shutdown(&self) {
        self.shutdown_within(SHUTDOWN_GRACE).await;
    }

    fn entry(&self, name: &str) -> Option<Arc<ServerEntry>> {
        self.inner
            .servers
            .read()
            .iter()
            .find(|e| e.spec.name.as_str() == name)
            .cloned()
    }

    /// Connects and discovers `entry`, or, for a lazy server, lists it from its saved
    /// snapshot without starting it (discovering once and stopping it when there is none).
    async fn start(&self, entry: &Arc<ServerEntry>) {
        let cache = self.inner.snapshots.as_ref();
        let fingerprint = entry.spec.fingerprint();
        if entry.spec.is_lazy()
            && let Some(cache) = cache
            && let Some(snapshot) = cache.load(&fingerprint).await
        {
            let mut state = entry.state();
            state.snapshot = Some(snapshot);
            state.set_status(ServerStatus::Idle);
            drop(state);
            self.publish(entry);
            return;
        }
        if entry.spec.end_user_credentials.is_some() && !self.prepare_end_user_server(entry).await {
            self.publish(entry);
            return;
        }
        self.publish_status(entry, ServerStatus::Connecting);
        entry.start(&self.inner.connect).await;
        // Only lazy servers are ever listed from a snapshot: only theirs are kept.
        if entry.spec.is_lazy()
            && let Some(cache) = cache
        {
            let snapshot = entry.state().snapshot.clone();
            if let Some(snapshot) = snapshot {
                cache.save(&fingerprint, &snapshot).await;
            }
        }
        if entry.spec.is_lazy() && entry.status() == ServerStatus::Ready {
            entry.close().await;
            entry.state().set_status(ServerStatus::Idle);
        }
        self.publish(entry);
    }

    /// A new entry for `spec`, its status saying how it is confined.
    fn entry_for(&self, spec: ServerSpec) -> Arc<ServerEntry> {
        let connect = &self.inner.connect;
        let sandbox = SandboxSetup::describe(connect.sandbox.as_deref(), &spec);
        let entry = ServerEntry::new(spec, &connect.limits, connect.clock.clone());
        Arc::new(entry.with_sandbox(sandbox))
    }

    /// Tells status subscribers how `entry` is now; returns that.
    fn publish(&self, entry: &ServerEntry) -> ServerInfo {
        let info = entry.info();
        let _ = self.inner.status.send(info.clone());
        info
    }

    fn publish_status(&self, entry: &ServerEntry, status: ServerStatus) {
        let mut info = entry.info();
        info.status = status;
        let _ = self.inner.status.send(info);
    }

    fn rebuild(&self) {
        rebuild(&self.inner);
    }
}

fn rebuild(inner: &Inner) {
    let entries: Vec<_> = inner.servers.read().clone();
    let snapshots: Vec<(ServerSpec, Snapshot)> = entries
        .iter()
        .filter_map(|e| e.state().snapshot.clone().map(|s| (e.spec.clone(), s)))
        .collect();
    let refs: Vec<(&ServerSpec, &Snapshot)> = snapshots.iter().map(|(a, b)| (a, b)).collect();
    let guard = inner.guard.read().clone();
    let guard = guard.as_deref().map(|g| (g, &inner.owner));
    let catalog = Arc::new(Catalog::build(
        &inner.naming,
        &refs,
        &inner.connect.limits,
        guard,
    ));
    *inner.catalog.write() = catalog;
    let _ = inner.changes.send(());
}

/// Lists everything `entry` offers again over `conn` and keeps it as the new snapshot.
async fn relist(
    entry: &ServerEntry,
    conn: &Connection,
) -> Result<(), switchboard_upstream::UpstreamError> {
    let snapshot = conn.discover(entry.spec.connect_timeout()).await?;
    let mut state = entry.state();
    state.snapshot = Some(snapshot);
    state.discovered_at = Some(SystemTime::now());
    Ok(())
}
