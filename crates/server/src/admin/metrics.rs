//! `/metrics`: the Prometheus exposition; open without a `[gateway] token`, else for the
//! operator and orgs' tokens with `gateway:operate` (`edge::callers`).

use crate::control_plane::ControlPlane;
use crate::edge::callers::{Callers, authenticated};
use crate::mcp::sessions::limits::SessionLimits;
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use switchboard_metrics::{Metrics, ServerGauges, Snapshot};
use switchboard_registry::Registry;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

/// What Prometheus reads.
#[derive(Clone)]
pub(crate) struct Scrape {
    pub metrics: Arc<Metrics>,
    pub registry: Registry,
    pub control: Option<ControlPlane>,
    pub sessions: Arc<SessionLimits>,
    pub connections: Arc<switchboard_listener::Connections>,
    pub requests: Arc<crate::edge::request_bounds::RequestBounds>,
    pub resource: Option<crate::edge::identity::ResourceServer>,
}

const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// `/metrics`, for the callers `scrapers` lets in (the `[gateway] token`, when set, or an
/// org's API token with `gateway:operate`).
pub(crate) fn router(scrape: Scrape, token: Option<String>) -> Router {
    let scrapers = Callers::scrapers(token, scrape.control.clone(), scrape.resource.clone());
    let route = Router::new()
        .route("/metrics", get(serve))
        .with_state(scrape);
    authenticated(route, scrapers)
}

async fn serve(State(scrape): State<Scrape>) -> Response {
    let text = scrape.metrics.render(&snapshot(&scrape));
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}

fn snapshot(scrape: &Scrape) -> Snapshot {
    let mut registries = vec![scrape.registry.clone()];
    if let Some(control) = &scrape.control {
        registries.extend(control.orgs.all());
    }
    let servers = registries
        .iter()
        .flat_map(|r| {
            let open = r.capability_sessions();
            let end_users = r.end_user_sessions();
            let org = r.owner().org_id().unwrap_or_default().to_string();
            r.servers().into_iter().map(move |s| ServerGauges {
                org: org.clone(),
                capability_sessions: open.get(s.name.as_str()).copied().unwrap_or_default(),
                end_user_sessions: end_users.get(s.name.as_str()).copied().unwrap_or_default(),
                server: s.name,
                status: s.status.as_str(),
                in_flight: s.calls_in_flight,
                queued: s.calls_queued,
            })
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
        token_refusals: (scrape.resource.as_ref())
            .map(|rs| rs.refusals())
            .unwrap_or_default(),
        ..Snapshot::default()
    };
    if let Some(control) = &scrape.control {
        let stats = control.audit.stats();
        let load = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed);
        now.audit_queued = control.audit.queued();
        now.audit_written = load(&stats.written);
        now.audit_batches = load(&stats.batches);
        now.audit_failed_batches = load(&stats.failed_batches);
        now.audit_dropped = load(&stats.dropped);
        now.audit_failing = stats.failing.load(std::sync::atomic::Ordering::Relaxed);
        now.audit_commit_seconds = load(&stats.commit_micros) as f64 / 1e6;
        (now.store_connections, now.store_idle) = control.store.pool_stats();
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

/// [`spawn_status_watch`] on `registry` and on each org's registry of `control`, those there
/// now and those made later.
pub fn spawn_status_watches(
    registry: &Registry,
    control: &ControlPlane,
    metrics: Arc<Metrics>,
    shutdown: CancellationToken,
) {
    spawn_status_watch(registry, metrics.clone(), shutdown.clone());
    let each = move |org: &Registry| spawn_status_watch(org, metrics.clone(), shutdown.clone());
    if control.orgs.on_each(Arc::new(each)).is_err() {
        tracing::debug!("org registries are watched already");
    }
}

/// Counts `registry`'s server state changes, times each connect + discovery and logs each
/// change in one line (after a server's first state), until `shutdown`.
pub fn spawn_status_watch(registry: &Registry, metrics: Arc<Metrics>, shutdown: CancellationToken) {
    let mut changes = registry.subscribe_status();
    let org = registry.owner().org_id().map(String::from);
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
            metrics.transition(
                org.as_deref().unwrap_or_default(),
                &info.name,
                from,
                to,
                took,
            );
            if from != "none" {
                match &info.last_error {
                    Some(error) if to == "error" => {
                        tracing::warn!(server = %info.name, org = org.as_deref(), from, to, error = %error, "state changed")
                    }
                    _ => {
                        tracing::info!(server = %info.name, org = org.as_deref(), from, to, "state changed")
                    }
                }
            }
            last.insert(info.name, (to, Instant::now()));
        }
    });
}
