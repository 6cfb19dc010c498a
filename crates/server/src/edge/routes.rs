//! The HTTP listener: `/mcp` (Streamable HTTP), `/healthz`, `/readyz`, `/metrics`, with graceful
//! shutdown.

use crate::control_plane::ControlPlane;
use crate::edge::callers::Callers;
use crate::edge::in_flight::InFlight;
use crate::edge::request_bounds::{RequestBounds, RequestCaps};
use crate::mcp::endpoint::{EndpointSettings, McpEndpoint};
use crate::mcp::gateway::Gateway;
use crate::mcp::sessions::limits::{SessionCaps, SessionLimits};
use crate::mcp::sessions::saved::SharedSessions;
use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use std::sync::Arc;
use std::time::Duration;
use switchboard_core::Limits;
use switchboard_core::ServerStatus;
use switchboard_listener::{Bounds as ConnectionBounds, Connections};
use switchboard_registry::Registry;
use tokio_util::sync::CancellationToken;

/// Browser origins accepted when none are configured: pages served from this machine.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// How the HTTP listener behaves.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Extra `Host` values to accept besides loopback names (e.g. the public host name).
    pub allowed_hosts: Vec<String>,
    /// Browser `Origin`s to accept (requests without an Origin always pass); empty means
    /// loopback origins only.
    pub allowed_origins: Vec<String>,
    /// Bearer token every `/mcp` request must carry (required off loopback).
    pub token: Option<String>,
    /// Cancelled to stop accepting and close every session.
    pub shutdown: CancellationToken,
    /// What the faces share (store, sealer, audit, orgs, policy); without it there is no REST
    /// API, no agent endpoint, no org token on `/mcp` and no session saved for other replicas.
    pub control: Option<ControlPlane>,
    /// Counts answers being written, for a graceful shutdown.
    pub in_flight: InFlight,
    /// How long a session with nothing open stays in memory before it is parked in the
    /// session store; `None` never parks one.
    pub park_sessions_after: Option<Duration>,
    /// The public URL and the issuers whose access tokens are accepted; `None`: static
    /// tokens only, and no metadata served.
    pub resource: Option<crate::edge::identity::ResourceServer>,
    /// Served at `/metrics` when set.
    pub metrics: Option<Arc<switchboard_metrics::Metrics>>,
    /// The bounds on downstream sessions, shared by every MCP endpoint of the process.
    pub sessions: Arc<SessionLimits>,
    /// The bounds on connections: in all, per client address, and the time to send a
    /// request's head.
    pub connections: Arc<Connections>,
    /// The bounds on each request: body size and read time, requests in flight per session
    /// and per token, wrong tokens per client address.
    pub requests: Arc<RequestBounds>,
    /// What `/version` answers: the package version and the commit built from.
    pub version: (String, String),
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            token: None,
            shutdown: CancellationToken::new(),
            control: None,
            in_flight: Default::default(),
            park_sessions_after: Some(crate::mcp::sessions::parking::DEFAULT_PARK_AFTER),
            resource: None,
            metrics: None,
            sessions: Default::default(),
            connections: Connections::new(connection_bounds(&Limits::default())),
            requests: Default::default(),
            version: (env!("CARGO_PKG_VERSION").into(), "unknown".into()),
        }
    }
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl HttpOptions {
    /// `/version` names this version and commit.
    pub fn with_version(mut self, version: &str, commit: &str) -> Self {
        self.version = (version.into(), commit.into());
        self
    }

    pub fn with_shutdown(mut self, shutdown: CancellationToken) -> Self {
        self.shutdown = shutdown;
        self
    }
    pub fn with_allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        self.allowed_hosts = hosts;
        self
    }
    pub fn with_allowed_origins(mut self, origins: Vec<String>) -> Self {
        self.allowed_origins = origins;
        self
    }
    pub fn with_control_plane(mut self, control: ControlPlane) -> Self {
        self.control = Some(control);
        self
    }
    pub fn with_in_flight(mut self, in_flight: InFlight) -> Self {
        self.in_flight = in_flight;
        self
    }
    pub fn with_park_sessions_after(mut self, after: Option<Duration>) -> Self {
        self.park_sessions_after = after;
        self
    }
    pub fn with_metrics(mut self, metrics: Arc<switchboard_metrics::Metrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }
    /// Every bound `[limits]` sets on the downstream side: sessions, connections, requests.
    /// `max_connections` is taken as is: a binary fits it to its open-file limit first
    /// (`switchboard_listener::within_open_files`).
    pub fn with_limits(mut self, limits: &Limits) -> Self {
        self.sessions = Arc::new(SessionLimits::new(SessionCaps::from_limits(limits)));
        self.connections = Connections::new(connection_bounds(limits));
        self.requests = Arc::new(RequestBounds::new(RequestCaps::from_limits(limits)));
        self
    }
    pub fn with_resource_server(mut self, resource: crate::edge::identity::ResourceServer) -> Self {
        self.resource = Some(resource);
        self
    }
    pub fn with_token(mut self, token: Option<String>) -> Self {
        self.token = token;
        self
    }
}

/// The listener's share of `[limits]`.
fn connection_bounds(limits: &Limits) -> ConnectionBounds {
    ConnectionBounds {
        max_connections: limits.max_connections,
        max_connections_per_client: limits.max_connections_per_client,
        header_read_timeout: Duration::from_secs(limits.header_read_secs as u64),
    }
}

/// The Streamable HTTP settings every MCP endpoint shares: accepted hosts and origins, and
/// the shutdown that closes their sessions.
fn mcp_config(options: &HttpOptions) -> StreamableHttpServerConfig {
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(options.allowed_hosts.iter().cloned());
    let origins = if options.allowed_origins.is_empty() {
        LOOPBACK_ORIGINS.iter().map(|o| o.to_string()).collect()
    } else {
        options.allowed_origins.clone()
    };
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_cancellation_token(options.shutdown.child_token())
        .with_max_request_body_bytes(options.requests.caps().max_body_bytes)
}

/// The gateway's routes, ready to be served or nested into a larger app.
pub fn router(registry: Registry, options: &HttpOptions) -> Router {
    let settings = EndpointSettings {
        config: mcp_config(options),
        park_sessions_after: options.park_sessions_after,
        limits: options.sessions.clone(),
    };
    let control = (options.control.clone()).map(|c| {
        c.closing_with(options.shutdown.child_token())
            .with_resource(options.resource.clone())
    });
    // Saved sessions let any replica behind a load balancer serve any session.
    let saved = (control.as_ref()).map(|c| Arc::new(SharedSessions::new(c.store.clone(), "mcp")));
    let serving_registry = registry.clone();
    let serving_control = control.clone();
    let mcp = McpEndpoint::new("mcp", &settings, saved, move || match &serving_control {
        Some(control) => Gateway::with_orgs(serving_registry.clone(), control.clone()),
        None => Gateway::new(serving_registry.clone()),
    })
    .into_router(Some(Callers::gateway(
        options.token.clone(),
        control.clone(),
        options.resource.clone(),
    )));
    let ready_registry = registry.clone();
    let ready_issuers = (options.resource.as_ref()).map(|rs| rs.issuers().clone());
    let draining = options.in_flight.clone();
    let org_routes = (control.clone())
        .map(|control: ControlPlane| {
            crate::rest::router(control.clone()).merge(crate::mcp::agents::router(
                control,
                settings,
                options.resource.clone(),
            ))
        })
        .unwrap_or_default();
    let callback = crate::admin::oauth_callback::router(registry.clone(), control.clone());
    let metrics = match &options.metrics {
        Some(metrics) => crate::admin::metrics::router(
            crate::admin::metrics::Scrape {
                metrics: metrics.clone(),
                registry: registry.clone(),
                control: control.clone(),
                sessions: options.sessions.clone(),
                connections: options.connections.clone(),
                requests: options.requests.clone(),
                resource: options.resource.clone(),
            },
            options.token.clone(),
        ),
        None => Router::new(),
    };
    let routes = Router::new()
        .merge(org_routes)
        .merge(callback)
        .merge(metrics)
        .merge(crate::admin::dashboard::router())
        .merge(crate::edge::identity::metadata_routes(
            options.resource.clone(),
            control.clone(),
        ))
        .merge(crate::admin::sign_in::router(
            control.clone(),
            options.resource.clone(),
        ))
        .merge(crate::admin::consent::router(
            control.clone(),
            (options.resource.as_ref()).is_some_and(|r| !r.issuers().sign_in_issuers().is_empty()),
        ))
        .nest("/mcp", mcp);
    // Without traces recorded the request's span would be a no-op: no layer for it.
    let routes = match crate::edge::traced::recording() {
        true => routes.layer(axum::middleware::from_fn(crate::edge::traced::request_span)),
        false => routes,
    };
    let (version, commit) = options.version.clone();
    let version = serde_json::json!({"name": "switchboard", "version": version, "commit": commit});
    let routes = routes.route(
        "/version",
        get(move || std::future::ready(axum::Json(version.clone()))),
    );
    let routes = routes.route("/healthz", get(|| async { "ok" })).route(
        "/readyz",
        get(move || {
            let servers = ready_registry.servers();
            let draining = draining.is_draining();
            // An issuer that cannot be reached does not make the replica unready (static
            // tokens work, and every replica shares the issuer): it is named.
            let issuers: String = (ready_issuers.iter())
                .flat_map(|i| i.unavailable())
                .map(|(issuer, why)| format!("\nissuer {issuer} unreachable: {why}"))
                .collect();
            async move {
                if draining {
                    return (StatusCode::SERVICE_UNAVAILABLE, "shutting down".to_string());
                }
                let pending = servers
                    .iter()
                    .filter(|s| s.status == ServerStatus::Connecting)
                    .count();
                if pending == 0 {
                    (StatusCode::OK, format!("ready{issuers}"))
                } else {
                    (
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!("{pending} server(s) still connecting"),
                    )
                }
            }
        }),
    );
    // Outermost: bodies are bounded and read here, once, for every route, and answers being
    // written are counted for a graceful shutdown.
    let front_door = crate::edge::request_bounds::FrontDoor {
        bounds: options.requests.clone(),
        in_flight: options.in_flight.clone(),
    };
    routes
        .layer(axum::extract::DefaultBodyLimit::disable())
        .layer(axum::middleware::from_fn_with_state(
            front_door,
            crate::edge::request_bounds::bound,
        ))
}

/// Serves [`router`] on `listener` within `options.connections` until `options.shutdown` is
/// cancelled.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    registry: Registry,
    options: HttpOptions,
) -> std::io::Result<()> {
    let app = router(registry, &options);
    let addr = listener.local_addr().ok();
    tracing::info!(?addr, "listening: MCP endpoint at /mcp");
    switchboard_listener::serve(
        listener,
        app,
        options.connections.clone(),
        options.shutdown.clone(),
    )
    .await
}
