//! A live session with one upstream: handshake, discovery, calls with timeout and cancellation.

mod calls;
mod discovery;
mod extensions;
mod requests;

pub use calls::result_size;
pub use discovery::{Freshness, ListCache, ListHint};
pub use extensions::{TaskAnswer, TaskRequest};

use crate::direct::DirectHttp;
use crate::direct_stdio::{DirectStdio, Replies};
use crate::events::EventHandler;
use crate::handshake::{classify_init, http_config, lifecycle, serve_http, serve_legacy_sse};
use crate::stdio::{self, StderrTail};
use crate::{UpstreamError, UpstreamEvent, UpstreamHttp};
use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, Peer, RoleClient, RunningService};
use std::time::Duration;
use switchboard_core::{HttpWire, Limits, ServerSlug, ServerSpec, Transport};
use tokio::sync::mpsc;

/// Shared pieces every connection is made with.
#[derive(Clone)]
pub struct ConnectOptions {
    pub http: UpstreamHttp,
    /// Receives list-changed announcements from upstreams.
    pub events: Option<mpsc::Sender<UpstreamEvent>>,
    pub limits: Limits,
    /// Runtime-hijacking environment variables the operator allows stdio servers to set.
    pub allow_env: Vec<String>,
    /// How stdio servers are confined (`None`: they are not; their status says so).
    pub sandbox: Option<std::sync::Arc<crate::SandboxSetup>>,
    /// The roots an upstream gets when it asks outside any call.
    pub roots: Vec<String>,
    /// The log level sessions asked for, applied to each server as it connects.
    pub log_level: crate::LogFloor,
    /// Token store, pending flows and redirect base for OAuth servers.
    pub oauth: Option<crate::auth::OAuthContext>,
    /// Monotonic time for restart backoff (token expiry reads the OAuth context's).
    pub clock: switchboard_core::SharedClock,
    /// What the session tells a server before 2026-07-28 its callers can answer; `None`:
    /// everything the gateway relays (the shared session).
    pub capabilities: Option<crate::CapabilitySet>,
}

/// Everything a server offered at discovery time (serialisable: kept so a lazy server's
/// tools are known before it runs).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    pub tools: Vec<Tool>,
    pub resources: Vec<Resource>,
    pub resource_templates: Vec<ResourceTemplate>,
    pub prompts: Vec<Prompt>,
    /// The UI resource (MCP Apps) of each tool that names one, read at discovery, by URI.
    #[serde(default)]
    pub apps: std::collections::BTreeMap<String, crate::apps::AppUi>,
    /// The skills it serves (the skills extension, SEP-2640): every page of `skills/list`.
    #[serde(default)]
    pub skills: Vec<rmcp::model::Skill>,
    /// The extensions it declared in `capabilities.extensions`, with their settings.
    #[serde(default)]
    pub extensions: rmcp::model::ExtensionCapabilities,
    /// How long each list may be cached, as the server said (not kept with a saved snapshot).
    #[serde(skip)]
    pub freshness: Freshness,
}

/// A connection's way to send tool calls without rmcp's service loop in between.
enum Direct {
    Http(DirectHttp),
    Stdio(DirectStdio),
}

pub struct Connection {
    /// Unique in the process: tells this connection from the one that replaces it.
    id: u64,
    server: ServerSlug,
    peer: Peer<RoleClient>,
    handler: EventHandler,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, EventHandler>>>,
    /// Tool calls sent without rmcp's service loop in between: over the Streamable HTTP
    /// session rmcp's transport opened, or onto the stdio server's stdin.
    direct: Option<Direct>,
    protocol_version: String,
    /// The server speaks 2026-07-28: it may answer a call with `input_required`.
    asks_for_input: bool,
    /// For a 2026-07-28 server: the `_meta` every request carries besides the caller's
    /// capabilities (the revision, the gateway's name), made once.
    revision_meta: Option<rmcp::model::RequestMetaObject>,
    /// A 2026-07-28 server's `subscriptions/listen` for its list changes (aborted on drop).
    list_changes: Option<tokio::task::JoinHandle<()>>,
    /// Tools whose arguments rmcp sends as `Mcp-Param-*` headers too (`x-mcp-header` in their
    /// schema, 2026-07-28): rmcp sends their calls.
    param_header_tools: switchboard_sync::Mutex<std::collections::HashSet<String>>,
    server_name: Option<String>,
    stderr: Option<StderrTail>,
    pid: Option<u32>,
    call_timeout: Duration,
    max_result_bytes: usize,
}

impl Connection {
    /// Starts or reaches the server and completes the handshake within its connect timeout.
    pub async fn connect(spec: &ServerSpec, opts: &ConnectOptions) -> Result<Self, UpstreamError> {
        // Boxed: the handshake's future is large and rare; every call's future that may
        // connect would otherwise carry its size.
        Box::pin(Self::open(spec, opts)).await
    }

    async fn open(spec: &ServerSpec, opts: &ConnectOptions) -> Result<Self, UpstreamError> {
        let (offered, lifecycle) = lifecycle(spec.protocol_version.as_deref())?;
        let probing = matches!(lifecycle, ClientLifecycleMode::Auto { .. });
        match Self::open_with(spec, opts, offered.clone(), lifecycle).await {
            // It answered server/discover with older revisions only (an SDK that knows the
            // method but not 2026-07-28), or with something else (a catch-all `{}`): a new
            // connection (or process) initializes instead.
            Err(UpstreamError::DiscoverFailed(reason)) if probing => {
                tracing::debug!(server = %spec.name, "{reason}; initializing instead");
                Self::open_with(spec, opts, offered, ClientLifecycleMode::Initialize).await
            }
            Err(UpstreamError::DiscoverFailed(reason)) => Err(UpstreamError::Handshake(format!(
                "{reason}; the entry's protocol_version names a revision this server does not speak: remove it to let the gateway pick, or name one the server lists"
            ))),
            other => other,
        }
    }

    async fn open_with(
        spec: &ServerSpec,
        opts: &ConnectOptions,
        offered: rmcp::model::ProtocolVersion,
        lifecycle: ClientLifecycleMode,
    ) -> Result<Self, UpstreamError> {
        let timeout = spec.connect_timeout();
        let declared = opts
            .capabilities
            .as_ref()
            .unwrap_or(crate::CapabilitySet::gateway());
        let handler = EventHandler::new(spec.name.clone(), offered, opts.events.clone())
            .with_capabilities(declared.capabilities().clone())
            .with_roots(&opts.roots);
        let mut stderr = None;
        let mut pid = None;
        let started = tokio::time::timeout(timeout, async {
            match &spec.transport {
                Transport::Stdio(stdio_spec) => {
                    let (child, stdin, tail) = stdio::spawn(spec, stdio_spec, &opts.allow_env, opts.sandbox.as_deref())?;
                    pid = child.id();
                    stderr = Some(tail);
                    let replies = Replies::default();
                    let child = crate::tap::TapTransport {
                        inner: child,
                        taps: handler.taps.clone(),
                        replies: replies.clone(),
                    };
                    let direct = Direct::Stdio(DirectStdio::new(stdin, replies));
                    handler
                        .clone()
                        .serve_with_lifecycle(child, lifecycle)
                        .await
                        .map(|service| (service, Some(direct)))
                        .map_err(classify_init)
                }
                Transport::Http(http_spec) if http_spec.wire == HttpWire::LegacySse => {
                    serve_legacy_sse(&handler, http_spec, opts, lifecycle)
                        .await
                        .map(|service| (service, None))
                }
                Transport::Http(http_spec) => {
                    let streamable = async {
                    let config = http_config(http_spec, &opts.http, &opts.limits)?;
                    let client = opts.http.client().clone();
                    match &http_spec.oauth {
                        None => serve_http(&handler, client, config, lifecycle.clone()).await,
                        Some(oauth) => {
                            let ctx = opts.oauth.as_ref().ok_or_else(|| {
                                UpstreamError::Unauthorized(
                                    "this server uses OAuth, and tokens need a token store: embedders pass RegistryOptions::with_oauth; the switchboard commands set one up from [oauth] token_store"
                                        .into(),
                                )
                            })?;
                            let source = crate::auth::token_source(
                                spec,
                                oauth,
                                &config.uri,
                                &opts.http,
                                ctx,
                            )
                            .await?;
                            let client = crate::auth::Authorized {
                                inner: client,
                                source: std::sync::Arc::new(source),
                            };
                            serve_http(&handler, client, config, lifecycle.clone()).await
                        }
                    }
                    };
                    match streamable.await.map(|(service, direct)| (service, Some(Direct::Http(direct)))) {
                        // The spec's backwards-compatibility rule: a URL without a type that
                        // refuses the Streamable HTTP handshake with a 4xx may be an HTTP+SSE
                        // server (a 5xx, a refused connection or a timeout is not).
                        Err(UpstreamError::HandshakeRefused(reason))
                            if http_spec.wire == HttpWire::Auto && http_spec.oauth.is_none() =>
                        {
                            serve_legacy_sse(&handler, http_spec, opts, lifecycle)
                                .await
                                .map(|service| (service, None))
                                .map_err(|sse| {
                                    UpstreamError::Handshake(format!(
                                        "{reason}; as an HTTP+SSE server: {}",
                                        crate::http::error_chain(&sse)
                                    ))
                                })
                        }
                        other => other,
                    }
                }
            }
        })
        .await;
        let (service, direct) = match started {
            Ok(Ok(started)) => started,
            Ok(Err(e)) => {
                if let Some(tail) = &stderr {
                    tail.wait_closed(Duration::from_millis(500)).await;
                }
                return Err(with_stderr(e, stderr.as_ref()));
            }
            Err(_) => {
                return Err(with_stderr(
                    UpstreamError::Timeout(timeout),
                    stderr.as_ref(),
                ));
            }
        };
        let peer = service.peer().clone();
        // The catalogue is the gateway's cache: a refresh must reach the server, and a
        // failing server must not be answered for by a stale copy.
        peer.set_response_cache_config(rmcp::service::ClientCacheConfig::disabled())
            .await;
        let info = peer.peer_info();
        let protocol_version = info
            .as_ref()
            .map(|i| i.protocol_version.to_string())
            .unwrap_or_default();
        let asks_for_input = info
            .as_ref()
            .is_some_and(|i| i.protocol_version >= rmcp::model::ProtocolVersion::V_2026_07_28);
        let server_name = info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(|s| format!("{} {}", s.name, s.version));
        tracing::debug!(server = %spec.name, protocol = %protocol_version, upstream = ?server_name, "initialized");
        let revision_meta = asks_for_input.then(|| {
            let version = info.as_ref().map(|i| i.protocol_version.clone());
            rmcp::model::RequestMetaObject::with_client_context(
                version.unwrap_or(rmcp::model::ProtocolVersion::LATEST),
                handler.client_info().clone(),
                Default::default(),
            )
        });
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut conn = Self {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            server: spec.name.clone(),
            peer,
            handler,
            service: tokio::sync::Mutex::new(Some(service)),
            direct: direct.inspect(|d| {
                // A 2026-07-28 server: calls without a session, with that revision's headers.
                if let (Direct::Http(d), true) = (d, asks_for_input) {
                    d.set_stateless();
                }
            }),
            param_header_tools: Default::default(),
            list_changes: None,
            revision_meta,
            protocol_version,
            asks_for_input,
            server_name,
            stderr,
            pid,
            call_timeout: spec.call_timeout(),
            max_result_bytes: opts.limits.max_result_bytes,
        };
        if conn.asks_for_input {
            conn.list_changes = crate::listen::list_changes(&conn.peer, &conn.handler);
        }
        // A server started after a session asked for a log level gets it too.
        if let Some(level) = opts.log_level.get()
            && let Err(e) = conn.set_log_level(level).await
        {
            tracing::debug!(server = %spec.name, "logging/setLevel: {e}");
        }
        Ok(conn)
    }

    /// This connection's number, unique in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn server(&self) -> &ServerSlug {
        &self.server
    }

    /// The protocol version the server agreed to.
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }

    /// The upstream's own name and version, when it sent them.
    pub fn server_name(&self) -> Option<&str> {
        self.server_name.as_deref()
    }

    /// The child's process id (stdio servers).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The last lines a stdio child wrote to stderr (empty for HTTP servers).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr
            .as_ref()
            .map(StderrTail::lines)
            .unwrap_or_default()
    }

    /// Waits, at most `limit`, until a Streamable HTTP server answered the session's stream
    /// of server messages (at once for stdio): a request it sends there before then, outside
    /// any call's response, could be lost.
    pub async fn until_listening(&self, limit: Duration) {
        if let Some(Direct::Http(direct)) = &self.direct {
            direct.until_listened(limit).await;
        }
    }

    /// Whether the server speaks 2026-07-28, where each request carries the caller's
    /// capabilities (no session fixes them).
    pub fn takes_capabilities_per_request(&self) -> bool {
        self.asks_for_input
    }

    pub fn is_closed(&self) -> bool {
        // A stdio server's end is seen first by the transport's reader, which tells the
        // direct calls at once: the next call must find the connection closed too.
        let direct_closed = matches!(&self.direct, Some(Direct::Stdio(d)) if d.is_closed());
        direct_closed || self.peer.is_transport_closed()
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(listening) = &self.list_changes {
            listening.abort();
        }
        if let Some(pid) = self.pid {
            stdio::kill_group(pid);
        }
    }
}

fn with_stderr(e: UpstreamError, tail: Option<&StderrTail>) -> UpstreamError {
    let lines = tail.map(StderrTail::lines).unwrap_or_default();
    if lines.is_empty() {
        return e;
    }
    let last = lines[lines.len().saturating_sub(5)..].join(" | ");
    match e {
        UpstreamError::Handshake(m) => UpstreamError::Handshake(format!("{m}; stderr: {last}")),
        UpstreamError::Transport(m) => UpstreamError::Transport(format!("{m}; stderr: {last}")),
        other => other,
    }
}
