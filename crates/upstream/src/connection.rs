//! A live session with one upstream: handshake, discovery, calls with timeout and cancellation.

mod requests;

use crate::call::CallOptions;
use crate::direct::{DirectHttp, Link};
use crate::events::EventHandler;
use crate::handshake::{classify_init, http_config, lifecycle, serve_http, serve_legacy_sse};
use crate::input_rounds;
use crate::route::Route;
use crate::stdio::{self, StderrTail};
use crate::{UpstreamError, UpstreamEvent, UpstreamHttp};
use requests::within;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, JsonObject, Prompt,
    Resource, ResourceTemplate, ServerResult, Tool,
};
use rmcp::service::{ClientServiceExt, Peer, RoleClient, RunningService};
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
    /// The roots an upstream gets when it asks outside any call.
    pub roots: Vec<String>,
    /// The log level sessions asked for, applied to each server as it connects.
    pub log_level: crate::LogFloor,
    /// Token store, pending flows and redirect base for OAuth servers.
    pub oauth: Option<crate::auth::OAuthContext>,
    /// Monotonic time for restart backoff (token expiry reads the OAuth context's).
    pub clock: switchboard_core::SharedClock,
}

/// Everything a server offered at discovery time (serialisable: kept so a lazy server's
/// tools are known before it runs).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    pub tools: Vec<Tool>,
    pub resources: Vec<Resource>,
    pub resource_templates: Vec<ResourceTemplate>,
    pub prompts: Vec<Prompt>,
}

pub struct Connection {
    /// Unique in the process: tells this connection from the one that replaces it.
    id: u64,
    server: ServerSlug,
    peer: Peer<RoleClient>,
    handler: EventHandler,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, EventHandler>>>,
    /// Tool calls sent straight over the Streamable HTTP session rmcp's transport opened.
    direct: Option<DirectHttp>,
    protocol_version: String,
    /// The server speaks 2026-07-28: it may answer a call with `input_required`.
    asks_for_input: bool,
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
        let timeout = spec.connect_timeout();
        let (offered, lifecycle) = lifecycle(spec.protocol_version.as_deref())?;
        let handler = EventHandler::new(spec.name.clone(), offered, opts.events.clone())
            .with_roots(&opts.roots);
        let mut stderr = None;
        let mut pid = None;
        let started = tokio::time::timeout(timeout, async {
            match &spec.transport {
                Transport::Stdio(stdio_spec) => {
                    let (child, tail) = stdio::spawn(spec, stdio_spec, &opts.allow_env)?;
                    pid = child.id();
                    stderr = Some(tail);
                    let child = crate::tap::TapTransport {
                        inner: child,
                        taps: handler.taps.clone(),
                    };
                    handler
                        .clone()
                        .serve_with_lifecycle(child, lifecycle)
                        .await
                        .map(|service| (service, None))
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
                    match streamable.await.map(|(service, direct)| (service, Some(direct))) {
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
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let conn = Self {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            server: spec.name.clone(),
            peer,
            handler,
            service: tokio::sync::Mutex::new(Some(service)),
            // A 2026-07-28 server takes its calls with other headers and in rounds: rmcp
            // sends them.
            direct: direct.filter(|_| !asks_for_input),
            protocol_version,
            asks_for_input,
            server_name,
            stderr,
            pid,
            call_timeout: spec.call_timeout(),
            max_result_bytes: opts.limits.max_result_bytes,
        };
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

    pub fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }

    /// Lists everything the server offers, every page, within `timeout`.
    pub async fn discover(&self, timeout: Duration) -> Result<Snapshot, UpstreamError> {
        let caps = self
            .peer
            .peer_info()
            .map(|i| i.capabilities.clone())
            .unwrap_or_default();
        let work = async {
            let peer = &self.peer;
            let tools = async {
                match caps.tools {
                    Some(_) => peer.list_all_tools().await,
                    None => Ok(Vec::new()),
                }
            };
            let resources = async {
                match caps.resources {
                    Some(_) => peer.list_all_resources().await,
                    None => Ok(Vec::new()),
                }
            };
            let templates = async {
                match caps.resources {
                    Some(_) => peer.list_all_resource_templates().await.or_else(|e| {
                        // Some servers offer resources but not templates: not a failure.
                        tracing::debug!(server = %self.server, "resources/templates/list: {e}");
                        Ok(Vec::new())
                    }),
                    None => Ok(Vec::new()),
                }
            };
            let prompts = async {
                match caps.prompts {
                    Some(_) => peer.list_all_prompts().await,
                    None => Ok(Vec::new()),
                }
            };
            let (tools, resources, resource_templates, prompts) =
                tokio::try_join!(tools, resources, templates, prompts)
                    .map_err(UpstreamError::from_service)?;
            Ok(Snapshot {
                tools,
                resources,
                resource_templates,
                prompts,
            })
        };
        tokio::time::timeout(timeout, work)
            .await
            .map_err(|_| UpstreamError::Timeout(timeout))?
            .map_err(|e| with_stderr(e, self.stderr.as_ref()))
    }

    /// Calls one tool. On timeout or when `opts.cancel` fires, the upstream is told to cancel.
    pub async fn call_tool(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        opts: CallOptions,
    ) -> Result<CallToolResult, UpstreamError> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        // Only a 2026-07-28 server asks for input by answering `input_required`; the others
        // get the call once. The direct path sends a copy: if the upstream forgot the
        // session (404), rmcp sends the call again on a new one.
        if !self.asks_for_input {
            if let Some(direct) = &self.direct {
                let link = Link {
                    peer: &self.peer,
                    handler: &self.handler,
                    timeout: opts.timeout.unwrap_or(self.call_timeout),
                };
                if let Some(answer) = direct.call_tool(link, params.clone(), &opts).await {
                    return match answer? {
                        ServerResult::CallToolResult(result) => self.sized(result),
                        _ => Err(UpstreamError::Unexpected),
                    };
                }
            }
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            return match self.request(request, opts).await? {
                ServerResult::CallToolResult(result) => self.sized(result),
                _ => Err(UpstreamError::Unexpected),
            };
        }
        // The caller answers, the call is sent again with the answers: all rounds, and the
        // waits for the caller between them, within the call's one timeout.
        let timeout = opts.timeout.unwrap_or(self.call_timeout);
        let deadline = tokio::time::Instant::now() + timeout;
        let route = Route::of(&opts);
        for round in 1..=input_rounds::MAX_INPUT_ROUNDS {
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self
                .request(request, opts.clone().with_timeout(left))
                .await?
            {
                ServerResult::CallToolResult(result) => return self.sized(result),
                // No more rounds to send answers in: the caller is not asked in vain.
                ServerResult::InputRequiredResult(_) if round == input_rounds::MAX_INPUT_ROUNDS => {
                    break;
                }
                ServerResult::InputRequiredResult(asked) => {
                    let questions = asked.input_requests.unwrap_or_default();
                    let answers = input_rounds::answer(&route, questions);
                    params.input_responses =
                        Some(within(deadline, timeout, opts.cancel.as_ref(), answers).await?);
                    params.request_state = asked.request_state;
                }
                _ => return Err(UpstreamError::Unexpected),
            }
        }
        Err(input_rounds::too_many_rounds())
    }

    /// A tool result within the size limit, or the limit's error.
    fn sized(&self, result: CallToolResult) -> Result<CallToolResult, UpstreamError> {
        let size = result_size(&result);
        if size > self.max_result_bytes {
            return Err(UpstreamError::TooLarge {
                what: "tool result",
                size,
                limit: self.max_result_bytes,
                setting: "max_result_bytes",
            });
        }
        Ok(result)
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
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

/// Bytes a tool result carries: its content blocks and structured content, as serialized.
pub fn result_size(result: &CallToolResult) -> usize {
    let content: usize = result
        .content
        .iter()
        .map(|block| match block.as_text() {
            Some(text) => text.text.len(),
            None => serde_json::to_vec(block).map_or(0, |v| v.len()),
        })
        .sum();
    let structured = result
        .structured_content
        .as_ref()
        .map_or(0, |v| serde_json::to_vec(v).map_or(0, |v| v.len()));
    content + structured
}
