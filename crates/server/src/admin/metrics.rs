//! `/metrics`: the Prometheus exposition; open without a `[gateway] token`, else token-guarded.

use crate::mcp::sessions::limits::SessionLimits;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use switchboard_metrics::{Metrics, ServerGauges, Snapshot};
use switchboard_registry::Registry;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

/// What Prometheus reads, and who may read it.
#[derive(Clone)]
pub(crate) struct Scrape {
    pub metrics: Arc<Metrics>,
    pub registry: Registry,
    pub api: Option<crate::control_plane::ControlPlane>,
    pub sessions: Arc<SessionLimits>,
    pub connections: Arc<switchboard_listener::Connections>,
    pub requests: Arc<crate::edge::request_bounds::RequestBounds>,
    /// `[gateway] token`: when set (always, off loopback), a scrape needs it or an org API
    /// token with `gateway:operate`.
    pub token: Option<Arc<str>>,
}

const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub(crate) fn router(scrape: Scrape) -> Router {
    Router::new()
        .route("/metrics", get(serve))
        .with_state(scrape)
}

async fn serve(State(scrape): State<Scrape>, headers: HeaderMap) -> Response {
    if let Err(refused) = allowed(&scrape, &headers).await {
        return refused;
    }
    let text = scrape.metrics.render(&snapshot(&scrape));
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}

async fn allowed(scrape: &Scrape, headers: &HeaderMap) -> Result<(), Response> {
    let Some(token) = &scrape.token else {
        return Ok(());
    };
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if presented
        .is_some_and(|p| crate::edge::callers::constant_time_eq(p.as_bytes(), token.as_bytes()))
    {
        return Ok(());
    }
    match (presented, &scrape.api) {
        (Some(p), Some(api)) if p.starts_with("sb_") => {
            let caller = api.caller_for_token(p).await.map_err(|e| e.into_response())?;
            caller
                .require_role(crate::control_plane::callers::OPERATE)
                .map_err(|e| e.into_response())
        }
        _ => Err((
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "/metrics needs Authorization: Bearer <the [gateway] token> or an API token with the role gateway:operate\n",
        )
            .into_response()),
    }
}

fn snapshot(scrape: &Scrape) -> Snapshot {
    let mut registries = vec![scrape.registry.clone()];
    if let Some(api) = &scrape.api {
        registries.extend(api.orgs.all());
    }
    let servers = registries
        .iter()
        .flat_map(|r| r.servers())
        .map(|s| ServerGauges {
            server: s.name,
            status: s.status.as_str(),
            in_flight: s.calls_in_flight,
            queued: s.calls_queued,
        })
        .collect();
    let (held, in_memory) = scrape.sessions.counts();
    let mut now = Snapshot {
        servers,
        sessions: in_memory,
        sessions_held: held,
        session_refusals: scrape.sessions.refusals(),
        connections: scrape.connections.open_count(),
        http_refusals: http_refusals(scrape),
        failed_auth: scrape.requests.wrong_tokens(),
        ..Snapshot::default()
    };
    if let Some(api) = &scrape.api {
        let stats = api.audit.stats();
        let load = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed);
        now.audit_queued = api.audit.queued();
        now.audit_written = load(&stats.written);
        now.audit_batches = load(&stats.batches);
        now.audit_failed_batches = load(&stats.failed_batches);
        now.audit_dropped = load(&stats.dropped);
        now.audit_failing = stats.failing.load(std::sync::atomic::Ordering::Relaxed);
        now.audit_commit_seconds = load(&stats.commit_micros) as f64 / 1e6;
        (now.store_connections, now.store_idle) = api.store.pool_stats();
    }
    now
}

/// Connections and requests refused at the front door, by the setting that refused them.
fn http_refusals(scrape: &Scrape) -> Vec<(&'static str, u64)> {
    let connections = &scrape.connections;
    let mut refusals: Vec<_> = (connections.refusals().iter())
        .map(|(refused, n)| (refused.setting(), *n))
        .collect();
    refusals.push(("header_read_secs", connections.slow_heads()));
    refusals.extend(scrape.requests.refusals());
    refusals
}

/// Counts `registry`'s server state changes, times each connect + discovery and logs each
/// change in one line (after a server's first state), until `shutdown`.
pub fn spawn_status_watch(registry: &Registry, metrics: Arc<Metrics>, shutdown: CancellationToken) {
    let mut changes = registry.subscribe_status();
    let mut last: HashMap<String, (&'static str, Instant)> = registry
        .servers()
        .into_iter()
        .map(|s| (s.name, (s.status.as_str(), Instant::now())))
        .collect();
    tokio::spawn(async move {
        loop {
            let info = tokio::select! {
                _ = shutdown.cancelled() => return,
                next = changes.recv() => match next {
                    Ok(info) => info,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                },
            };
            let to = info.status.as_str();
            let (from, since) = last
                .get(&info.name)
                .copied()
                .unwrap_or(("none", Instant::now()));
            if from == to {
                continue;
            }
            let took = (from == "connecting" || from == "authenticating").then(|| since.elapsed());
            metrics.transition(&info.name, from, to, took);
            if from != "none" {
                match &info.last_error {
                    Some(error) if to == "error" => {
                        tracing::warn!(server = %info.name, from, to, error = %error, "state changed")
                    }
                    _ => tracing::info!(server = %info.name, from, to, "state changed"),
                }
            }
            last.insert(info.name, (to, Instant::now()));
        }
    });
}
