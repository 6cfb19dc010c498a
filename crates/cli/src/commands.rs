//! What each subcommand does.

use crate::admin;
use crate::args::{
    AuditCommand, AuthCommand, Cli, Command, ConfigCommand, Global, KeysCommand, OrgCommand,
    TokenCommand,
};
use crate::control::Control;
use crate::{setup, table};
use anyhow::Context;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use std::process::ExitCode;
use std::sync::Arc;
use switchboard_core::{CallError, CallObserver, Caller, ErrorKind, ServerStatus};
use switchboard_registry::CallOptions;
use switchboard_server::api::{ApiState, JobOptions};
use switchboard_server::{HttpOptions, InFlight, serve_http, serve_stdio};
use tokio_util::sync::CancellationToken;

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8750";

pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let global = &cli.global;
    match cli.command {
        Command::Serve {
            listen,
            no_audit,
            watch,
        } => serve(global, listen, no_audit, watch).await,
        Command::Status {
            remote,
            watch,
            json,
        } => crate::remote::status(&remote, watch, json).await,
        Command::Auth {
            command:
                AuthCommand::Login {
                    server,
                    open_with,
                    port,
                    force,
                    timeout,
                    json,
                },
        } => {
            let wait = std::time::Duration::from_secs(timeout);
            crate::login::run(global, &server, open_with, port, force, wait, json).await
        }
        Command::Server {
            operation,
            id,
            remote,
            json,
        } => crate::remote::operate(&remote, operation, &id, json).await,
        Command::Stdio => stdio(global).await,
        Command::Test { server, json } => test(global, server, json).await,
        Command::Tools {
            command: None,
            json,
        } => crate::policy_cmds::tools(global, json).await,
        Command::Tools {
            command: Some(command),
            ..
        } => crate::policy_cmds::tools_command(global, command).await,
        Command::Scan { tools, json } => crate::policy_cmds::scan(global, tools, json).await,
        Command::Call {
            tool,
            args,
            end_user,
            json,
        } => call(global, &tool, args, end_user, json).await,
        Command::Config {
            command: ConfigCommand::Check { json },
        } => crate::config_cmds::check(global, json),
        Command::Config {
            command: ConfigCommand::Discover { json },
        } => crate::config_cmds::discover(json),
        Command::Input { command } => crate::inputs::run(global, command).await,
        Command::Audit {
            command: AuditCommand::Verify { json },
        } => admin::audit_verify(global, json).await,
        Command::Org {
            command:
                OrgCommand::Create {
                    name,
                    features,
                    json,
                },
        } => admin::org_create(global, &name, &features, json).await,
        Command::Token {
            command: TokenCommand::Create { org, roles, json },
        } => admin::token_create(global, &org, &roles, json).await,
        Command::Keys {
            command: KeysCommand::Rotate,
        } => admin::keys_rotate(global).await,
    }
}

async fn serve(
    global: &Global,
    listen: Option<String>,
    no_audit: bool,
    watch: bool,
) -> anyhow::Result<ExitCode> {
    let config = setup::load_serving_config(global)?;
    let control = Control::open(global).await?;
    let (audit, audit_task) = control.audit();
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
        && setup::uses_oauth(&config)
    {
        tracing::warn!(
            "listening on every address: browsers cannot come back to http://{}; set [oauth] redirect_base to the address people reach this gateway at",
            bound.map(|a| a.to_string()).unwrap_or_default()
        );
    }
    let bound = bound.map(|a| format!("http://{a}"));
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
    let api = ApiState::new(
        registry.clone(),
        control.store.clone(),
        control.sealer.clone(),
        audit,
    )
    .with_pipeline(pipeline);
    let g = &config.gateway;
    let loopback = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
    if !loopback && g.token.is_none() {
        anyhow::bail!(
            "listening on {addr} (not loopback) needs a bearer token: set [gateway] token = \"${{SWITCHBOARD_TOKEN}}\" in switchboard.toml, or listen on 127.0.0.1"
        );
    }
    if !loopback && g.allowed_hosts.is_none() {
        tracing::warn!(
            "listening off loopback: requests whose Host is not localhost are refused until you list your host names in [gateway] allowed_hosts"
        );
    }
    let local = listener.local_addr().map(|a| a.to_string()).unwrap_or(addr);
    let shutdown = CancellationToken::new();
    let in_flight = InFlight::default();
    let options = HttpOptions::default()
        .with_shutdown(shutdown.clone())
        .with_in_flight(in_flight.clone())
        .with_park_sessions_after(match g.limits().session_park_secs {
            0 => None,
            secs => Some(std::time::Duration::from_secs(secs as u64)),
        })
        .with_session_caps(switchboard_server::SessionCaps::from_limits(&g.limits()))
        .with_token(g.token.clone())
        .with_metrics(metrics.clone())
        .with_allowed_hosts(g.allowed_hosts.clone().unwrap_or_default())
        .with_allowed_origins(g.allowed_origins.clone().unwrap_or_default())
        .with_api(api.clone());
    switchboard_server::spawn_status_watch(&registry, metrics, shutdown.clone());
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
    // Listen before loading, so no change another replica makes meanwhile is missed.
    let listener = switchboard_server::api::spawn_change_listener(api.clone(), shutdown.clone())
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen for other replicas' changes: {e:?}"))?;
    match api.load_servers().await {
        Ok(0) => {}
        Ok(n) => tracing::info!("connected {n} server(s) stored through the API"),
        Err(e) => tracing::error!("cannot load servers stored through the API: {e:?}"),
    }
    let refresh = g.refresh_interval_secs.unwrap_or(600) as u64;
    let jobs = switchboard_server::api::spawn_jobs(
        api.clone(),
        JobOptions::default()
            .with_refresh_every(std::time::Duration::from_secs(refresh))
            .with_session_expiry(std::time::Duration::from_secs(
                g.limits().session_expire_secs as u64,
            )),
        shutdown.clone(),
    );
    let servers = registry.servers();
    for s in &servers {
        tracing::info!(server = %s.name, status = %s.status, tools = s.tool_count, "server");
    }
    let ready = servers
        .iter()
        .filter(|s| s.status == ServerStatus::Ready)
        .count();
    let line = format!(
        "switchboard ready: {ready}/{} server(s), {} tool(s)",
        servers.len(),
        registry.catalog().tools.len()
    );
    announce(global, &line);
    wait_for_signal().await;
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

async fn wait_for_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

async fn stdio(global: &Global) -> anyhow::Result<ExitCode> {
    let config = setup::load_serving_config(global)?;
    let control = Control::open(global).await?;
    let (audit, audit_task) = control.audit();
    let oauth = setup::oauth(global, &config, Some(&control), None)?;
    let (_pipeline, registry) = setup::guarded_registry(
        global,
        &config,
        &control,
        Some(audit.clone()),
        Some(Arc::new(audit)),
        Some(control.snapshots()),
        Some(oauth),
    )
    .await?;
    registry.apply_config(&config).await;
    // Hosts close stdin and soon after signal: commit the audit log before stopping servers.
    let served = tokio::select! {
        served = serve_stdio(registry.clone()) => served,
        _ = wait_for_signal() => Ok(()),
    };
    audit_task.finish().await;
    registry.shutdown().await;
    served.context("stdio session failed")?;
    Ok(ExitCode::SUCCESS)
}

async fn test(global: &Global, only: Option<String>, json: bool) -> anyhow::Result<ExitCode> {
    let config = setup::load_config(global)?;
    let specs: Vec<_> = match &only {
        Some(name) => vec![setup::server_spec(&config, name)?],
        None => config.servers.iter().collect(),
    };
    let oauth = setup::oauth_if_used(global, &config).await?;
    let registry = setup::registry(global, &config, None, None, oauth, None)?;
    let bar = setup::progress_bar(specs.len() as u64, "testing servers");
    let reports = futures::future::join_all(specs.iter().map(|spec| {
        let registry = registry.clone();
        let bar = bar.clone();
        async move {
            let report = registry.test_server(spec).await;
            if let Some(bar) = bar {
                bar.inc(1);
            }
            report
        }
    }))
    .await;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let failed = reports.iter().filter(|r| r.error.is_some()).count();
    if json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        let rows: Vec<Vec<String>> = reports
            .iter()
            .map(|r| {
                vec![
                    r.name.clone(),
                    r.transport.to_string(),
                    r.status.to_string(),
                    r.tools.to_string(),
                    r.protocol_version.clone().unwrap_or_default(),
                    r.error.clone().unwrap_or_default(),
                ]
            })
            .collect();
        print!(
            "{}",
            table::render(
                &["NAME", "TRANSPORT", "STATUS", "TOOLS", "PROTOCOL", "ERROR"],
                &rows
            )
        );
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

async fn call(
    global: &Global,
    tool: &str,
    args: Option<String>,
    end_user: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let arguments = match args.as_deref() {
        None => None,
        Some(text) => Some(serde_json::from_str::<Value>(text).map_err(|e| {
            anyhow::anyhow!("invalid_request: --args is not valid JSON ({e}); pass an object like '{{\"key\": \"value\"}}'")
        })?),
    };
    let config = setup::load_config(global)?;
    let control = Control::open(global).await?;
    let (audit, audit_task) = control.audit();
    let oauth = setup::oauth(global, &config, Some(&control), None)?;
    let (_pipeline, registry) = setup::guarded_registry(
        global,
        &config,
        &control,
        Some(audit.clone()),
        Some(Arc::new(audit)),
        None,
        Some(oauth),
    )
    .await?;
    setup::connect_all(&registry, &config).await;
    let mut opts = CallOptions::default().with_caller(Caller {
        surface: "cli",
        ..Caller::default()
    });
    if let Some(user) = end_user {
        opts = opts.with_end_user(user);
    }
    let outcome = registry.call_tool(tool, arguments, opts).await;
    audit_task.finish().await;
    registry.shutdown().await;
    match outcome {
        Ok(result) if result.is_error != Some(true) => {
            print_result(&result, json)?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(result) => {
            print_result(&result, json)?;
            report_error(
                &CallError::new(ErrorKind::ServerError, "the tool reported an error"),
                json,
            );
            Ok(ExitCode::FAILURE)
        }
        Err(error) => {
            report_error(&error, json);
            Ok(ExitCode::FAILURE)
        }
    }
}

fn print_result(result: &CallToolResult, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(result)?);
        return Ok(());
    }
    for block in &result.content {
        match block.as_text() {
            Some(text) => println!("{}", text.text),
            None => println!("{}", serde_json::to_string(block)?),
        }
    }
    if result.content.is_empty()
        && let Some(structured) = &result.structured_content
    {
        println!("{}", serde_json::to_string_pretty(structured)?);
    }
    Ok(())
}

/// A line people (and scripts) wait for: plain on stderr, or an INFO event with
/// `--log-format json` so every line stays one JSON object.
fn announce(global: &Global, line: &str) {
    match global.log_format {
        crate::args::LogFormat::Text => eprintln!("{line}"),
        crate::args::LogFormat::Json => tracing::info!("{line}"),
    }
}

fn report_error(error: &CallError, json: bool) {
    if json {
        eprintln!(
            "{}",
            json!({"error": {"kind": error.kind, "message": error.message}})
        );
    } else {
        eprintln!("error: {}: {}", error.kind, error.message);
    }
}
