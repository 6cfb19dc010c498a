//! One MCP endpoint, assembled once for `/mcp` and for every agent endpoint: the layers a
//! request meets, written top to bottom in the order they run, in front of rmcp's Streamable
//! HTTP transport.

use crate::edge::callers::{Callers, authenticated};
use crate::mcp::fast_path::{self, FastPath};
use crate::mcp::gateway::Gateway;
use crate::mcp::sessions::admission;
use crate::mcp::sessions::limits::SessionLimits;
use crate::mcp::sessions::ordered::OrderedSessions;
use crate::mcp::sessions::owners::{self, SessionOwners};
use crate::mcp::sessions::saved::SharedSessions;
use axum::Router;
use axum::middleware::from_fn_with_state;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceBuilder;

/// What every MCP endpoint of the process shares.
#[derive(Clone)]
pub(crate) struct EndpointSettings {
    /// Accepted hosts and origins, the body bound and the shutdown that closes sessions.
    pub(crate) config: StreamableHttpServerConfig,
    /// When an idle session is parked (see [`crate::mcp::sessions::parking`]).
    pub(crate) park_sessions_after: Option<Duration>,
    /// The bounds on downstream sessions.
    pub(crate) limits: Arc<SessionLimits>,
}

/// The parts of one endpoint: its sessions, the fast path in front of them, rmcp's transport.
pub(crate) struct McpEndpoint {
    sessions: Arc<OrderedSessions>,
    owners: Arc<SessionOwners>,
    fast: Arc<FastPath>,
    transport: StreamableHttpService<Gateway, OrderedSessions>,
}

impl McpEndpoint {
    /// The endpoint whose sessions are counted as `scope` and saved in `saved` (so any
    /// replica can serve them), each served by a gateway `serving` makes.
    pub(crate) fn new(
        scope: &str,
        settings: &EndpointSettings,
        saved: Option<Arc<SharedSessions>>,
        serving: impl Fn() -> Gateway + Send + Sync + 'static,
    ) -> Self {
        let mut config = settings.config.clone();
        config.session_store = saved.clone().map(|saved| saved as _);
        let owners = SessionOwners::new(saved.clone());
        let sessions = OrderedSessions::new(scope, settings.limits.clone(), saved);
        let fast = Arc::new(FastPath::new(
            sessions.clone(),
            &config,
            settings.park_sessions_after,
        ));
        let live = sessions.live().clone();
        let transport = StreamableHttpService::new(
            move || Ok(serving().with_live_sessions(live.clone())),
            sessions.clone(),
            config,
        );
        Self {
            sessions,
            owners,
            fast,
            transport,
        }
    }

    /// The endpoint as a route. `callers` is who may call it; `None` for an agent's endpoint,
    /// whose callers the agents' route checked once, before it picked the agent's endpoint
    /// (`mcp::agents`), with the same layer.
    pub(crate) fn into_router(self, callers: Option<Callers>) -> Router {
        let router = Router::new().fallback_service(self.transport).layer(
            ServiceBuilder::new()
                // A request on a session someone else opened is refused here.
                .layer(from_fn_with_state(self.owners, owners::check))
                // A request that opens a session past a bound is refused here.
                .layer(from_fn_with_state(self.sessions, admission::admit))
                // A plain call on a live session is answered here, in front of rmcp.
                .layer(from_fn_with_state(self.fast, fast_path::first)),
        );
        // Who calls, outermost: the operator, or the org whose API token the request bears.
        match callers {
            Some(callers) => authenticated(router, callers),
            None => router,
        }
    }
}
