//! Shared start-up: logging, config loading and building the registry from flags.

use crate::args::{Cli, Command, Global};
use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use switchboard_config::Config;
use switchboard_core::names::DEFAULT_MAX_NAME_LEN;
use switchboard_core::{CallObserver, NamingTemplate};
use switchboard_registry::{EgressPolicy, Registry, RegistryOptions, SnapshotCache};

const DEFAULT_FILES: [&str; 3] = ["switchboard.toml", ".mcp.json", "mcp.json"];

pub fn init_logging(cli: &Cli) {
    let default = match cli.command {
        Command::Serve { .. } => "info",
        _ => "warn",
    };
    let filter = cli
        .global
        .log
        .clone()
        .or_else(|| std::env::var("RUST_LOG").ok())
        .unwrap_or_else(|| default.to_string());
    // Logs go to stderr: stdout belongs to results and, for `stdio`, to the MCP stream.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

pub fn config_paths(global: &Global) -> anyhow::Result<Vec<PathBuf>> {
    if !global.config.is_empty() {
        return Ok(global.config.clone());
    }
    match DEFAULT_FILES.iter().map(PathBuf::from).find(|p| p.exists()) {
        Some(path) => Ok(vec![path]),
        None => bail!(
            "no config file given and none of {} exists here; pass -c FILE (e.g. -c ~/.cursor/mcp.json)",
            DEFAULT_FILES.join(", ")
        ),
    }
}

pub fn load_config(global: &Global) -> anyhow::Result<Config> {
    let paths = config_paths(global)?;
    let config = switchboard_config::load(&paths)
        .map_err(|problems| anyhow::anyhow!("the configuration has problems:\n{problems}"))?;
    for warning in &config.warnings {
        tracing::warn!("{warning}");
    }
    Ok(config)
}

pub fn naming(global: &Global, config: &Config) -> anyhow::Result<NamingTemplate> {
    let template = global
        .naming
        .as_deref()
        .or(config.gateway.naming.as_deref())
        .unwrap_or(NamingTemplate::DEFAULT);
    let max = config
        .gateway
        .max_name_length
        .unwrap_or(DEFAULT_MAX_NAME_LEN);
    NamingTemplate::new(template, max).context("invalid naming template")
}

pub fn registry(
    global: &Global,
    config: &Config,
    observer: Option<Arc<dyn CallObserver>>,
    snapshots: Option<Arc<dyn SnapshotCache>>,
) -> anyhow::Result<Registry> {
    let g = &config.gateway;
    let egress = EgressPolicy {
        dev: global.dev,
        allow_hosts: g.egress_allow_hosts.clone().unwrap_or_default(),
        allow_cidrs: g.egress_allow_cidrs.clone().unwrap_or_default(),
    };
    if global.dev {
        tracing::warn!("--dev: loopback upstreams and plain http:// to them are allowed");
    }
    if !egress.allow_hosts.is_empty() || !egress.allow_cidrs.is_empty() {
        tracing::info!(
            hosts = ?egress.allow_hosts,
            cidrs = ?egress.allow_cidrs.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
            "egress allowlist: these internal hosts and ranges may be reached"
        );
    }
    let mut options = RegistryOptions::default()
        .with_naming(naming(global, config)?)
        .with_egress(egress)
        .with_limits(g.limits())
        .with_allow_env(g.allow_env.clone().unwrap_or_default())
        .with_refresh_every(Duration::from_secs(
            g.refresh_interval_secs.unwrap_or(600) as u64
        ));
    if let Some(observer) = observer {
        options = options.with_observer(observer);
    }
    if let Some(snapshots) = snapshots {
        options = options.with_snapshots(snapshots);
    }
    Ok(Registry::new(options))
}

/// Connects every configured server, with a spinner on a terminal.
pub async fn connect_all(registry: &Registry, config: &Config) {
    let spinner = spinner(&format!("connecting {} server(s)…", config.servers.len()));
    registry.apply_config(config).await;
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    for server in registry.servers() {
        if let Some(error) = &server.last_error {
            tracing::warn!(server = %server.name, "{error}");
        }
    }
}

pub fn spinner(message: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new_spinner().with_message(message.to_string());
    bar.set_style(ProgressStyle::default_spinner());
    bar.enable_steady_tick(Duration::from_millis(100));
    Some(bar)
}

pub fn progress_bar(len: u64, message: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(len).with_message(message.to_string());
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}") {
        bar.set_style(style);
    }
    Some(bar)
}
