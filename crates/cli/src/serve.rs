//! `switchboard serve`: the gateway over HTTP with its REST API, store, audit, scheduled
//! jobs and metrics, until a signal or the control socket stops it.

use crate::args::Global;
use crate::commands::{DEFAULT_LISTEN, announce, shutdown_signal};
use crate::control::Control;
use crate::setup;
use anyhow::Context;
use std::process::ExitCode;
use std::sync::Arc;
use switchboard_core::{CallObserver, ServerStatus};
use switchboard_server::{ControlPlane, JobOptions};
use switchboard_server::{HttpOptions, InFlight, serve_http};
use tokio_util::sync::CancellationToken;

pub(crate) async fn serve(
    global: &Global,
    listen: Option<String>,
    no_audit: bool,
    watch: bool,
) -> anyhow::Result<ExitCode> {
    let config = setup::load_serving_config(global)?;
    let mut control = Control::open(global).await?;
    let (audit, audit_task) = control.audit(&config.gateway.audit);
    crate::sandbox_cmds::audit_unconfined(&audit, &config);
    let metrics = switchboard_metrics::Metrics::shared();
    // Metrics read each call's record; the audit log, last, keeps it.
    let observer: Arc<dyn CallObserver> = if no_audit {
        tracing::warn!("--no-audit: tool calls are not audited (benchmarks only)");
        metrics.clone()
    } else {
        Arc::new(switchboard_core::Observers(vec![
            metrics.clone(),
            Arc::new(audit.clone()),
        ]))
    };
    let addr = listen
        .or(config.gateway.listen.clone())
        .unwrap_or_else(|| DEFAULT_LISTEN.to_string());
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .with_context(|| format!("cannot listen on {addr}; pick another with --listen"))?;
    let bound = listener.local_addr().ok();
    if bound.is_some_and(|a| a.ip().is_unspecified())
        && config.gateway.oauth_redirect_base.is_none()
        && config.gateway.public_url.is_none()
        && setup::uses_oauth(&config)
    {
        tracing::warn!(
            "listening on every address: browsers cannot come back to http://{}; set [gateway] public_url (or [oauth] redirect_base) to the address people reach this gateway at",
            bound.map(|a| a.to_string()).unwrap_or_default()
        );
    }
    control.sandbox_net = Some(crate::sandbox_cmds::SandboxNet::serving(
        bound,
        audit.clone(),
        metrics.clone(),
    ));
    let bound = (config.gateway).oauth_redirect_base_or(bound.map(|a| format!("http://{a}")));
    let oauth = setup::oauth(global, &config, Some(&control), bound)?;
    let (pipeline, registry) = setup::guarded_registry(
        global,
        &config,
        &control,
        Some(audit.clone()),
        Some(observer),
        Some(control.snapshots()),
        Some(oauth),
    )
    .await?;
    let api = ControlPlane::new(
        registry.clone(),
        control.store.clone(),
        control.sealer.clone(),
        audit,
    )
    .with_pipeline(pipeline)
    .with_grants(control.grants.clone());
    let g = &config.gateway;
    let loopback = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
    let issuers = g.issuers.as_ref().is_some_and(|i| !i.is_empty());
    if !loopback && g.token.is_none() && !issuers {
        anyhow::bail!(
            "listening on {addr} (not loopback) needs a bearer token or an issuer: set [gateway] token = \"${{SWITCHBOARD_TOKEN}}\" or [[identity.issuers]] in switchboard.toml, or listen on 127.0.0.1"
        );
    }
    let resource = match listener.local_addr() {
        Ok(bound) => Some(crate::identity::resource_server(global, &config, bound)?),
        Err(_) => None,
    };
    if !loopback && g.allowed_hosts.is_none() {
        tracing::warn!(
            "listening off loopback: requests whose Host is not localhost are refused until you list your host names in [gateway] allowed_hosts"
        );
    }
    let local = listener.local_addr().map(|a| a.to_string()).unwrap_or(addr);
    let shutdown = CancellationToken::new();
    let in_flight = InFlight::default();
    let mut limits = g.limits();
    limits.max_connections = switchboard_listener::within_open_files(limits.max_connections);
    let options = HttpOptions::default()
        .with_version(env!("CARGO_PKG_VERSION"), env!("SWITCHBOARD_COMMIT"))
        .with_shutdown(shutdown.clone())
        .with_in_flight(in_flight.clone())
        .with_park_sessions_after(match limits.session_park_secs {
            0 => None,
            secs => Some(std::time::Duration::from_secs(secs as u64)),
        })
        .with_limits(&limits)
        .with_token(g.token.clone())
        .with_metrics(metrics.clone())
        .with_allowed_hosts(g.allowed_hosts.clone().unwrap_or_default())
        .with_allowed_origins(g.allowed_origins.clone().unwrap_or_default())
        .with_control_plane(api.clone());
    let options = match resource {
        Some(resource) => {
            crate::identity::warm(&resource);
            // `credentials = "token_exchange"` servers trade callers' tokens at their issuers.
            let issuers = resource.issuers();
            if issuers.exchanges() {
                let exchanges = switchboard_identity::Exchanges::new(issuers.clone());
                registry.set_token_exchange(std::sync::Arc::new(exchanges));
            }
            options.with_resource_server(resource)
        }
        None => options,
    };
    switchboard_server::spawn_status_watches(&registry, &api, metrics, shutdown.clone());
    let server = tokio::spawn(serve_http(listener, registry.clone(), options));
    announce(
        global,
        &format!("switchboard listening on http://{local}/mcp"),
    );
    setup::connect_all(&registry, &config).await;
    let watching = match watch {
        true => Some(crate::watch::spawn(
            global.clone(),
            registry.clone(),
            api.pipeline.clone(),
            shutdown.clone(),
        )?),
        false => None,
    };
    #[cfg(unix)]
    let _hangups = crate::watch::reload_on_hangup(
        global.clone(),
        registry.clone(),
        api.pipeline.clone(),
        shutdown.clone(),
    )?;
    // Listen before loading, so no change another replica makes meanwhile is missed.
    let listener = switchboard_server::spawn_change_listener(api.clone(), shutdown.clone())
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen for other replicas' changes: {e:?}"))?;
    match api.load_servers().await {
        Ok(0) => {}
        Ok(n) => tracing::info!("connected {n} server(s) stored through the API"),
        Err(e) => tracing::error!("cannot load servers stored through the API: {e:?}"),
    }
    let refresh = g.refresh_interval_secs.unwrap_or(600) as u64;
    let jobs = switchboard_server::spawn_jobs(
        api.clone(),
        JobOptions::default()
            .with_refresh_every(std::time::Duration::from_secs(refresh))
            .with_session_expiry(std::time::Duration::from_secs(
                g.limits().session_expire_secs as u64,
            ))
            .with_audit_retention(
                (g.audit.retention_days)
                    .map(|days| std::time::Duration::from_secs(days as u64 * 86_400)),
            ),
        shutdown.clone(),
    );
    if switchboard_store::Store::backend(control.store.as_ref())
        == switchboard_store::Backend::Postgres
    {
        // Replicas may keep no file: each logs the chain's signed head instead.
        let every = (config.gateway.audit.head_log_secs)
            .map(|secs| std::time::Duration::from_secs(secs as u64))
            .unwrap_or(switchboard_store::HEAD_LOG_EVERY);
        switchboard_store::spawn_head_log(
            control.store.clone(),
            control.chain(),
            every,
            shutdown.clone(),
        );
    }
    let servers = registry.servers();
    for s in &servers {
        tracing::info!(server = %s.name, status = %s.status, tools = s.tool_count, "server");
    }
    let ready = servers
        .iter()
        .filter(|s| s.status == ServerStatus::Ready)
        .count();
    // Listening for SIGTERM before saying ready: a stop right after the line is graceful too.
    let signal = shutdown_signal();
    let line = format!(
        "switchboard ready: {ready}/{} server(s), {} tool(s)",
        servers.len(),
        registry.catalog().tools.len()
    );
    announce(global, &line);
    signal.await;
    // Calls in flight finish and their answers reach the callers first (within the grace
    // period), then sessions close.
    let grace = switchboard_registry::SHUTDOWN_GRACE;
    tracing::info!(
        "shutting down: {} request(s) in flight get up to {grace:?} to finish",
        in_flight.count()
    );
    in_flight.begin_drain();
    if !in_flight.wait_idle(grace).await {
        tracing::warn!("requests still running after {grace:?}; stopping anyway");
    }
    shutdown.cancel();
    let _ = server.await;
    // A job part-way through is safe to stop: each row it saves is saved whole.
    jobs.abort();
    let _ = jobs.await;
    if let Some(watching) = watching {
        let _ = watching.await;
    }
    if let Some(listener) = listener {
        let _ = listener.await;
    }
    let orgs = api.orgs.clone();
    drop(api);
    audit_task.finish().await;
    orgs.shutdown().await;
    registry.shutdown().await;
    Ok(ExitCode::SUCCESS)
}
