//! Shared start-up: logging, config loading and building the registry from flags.

use crate::args::Global;
use crate::inputs::Ask;
use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use switchboard_config::Config;
use switchboard_core::names::DEFAULT_MAX_NAME_LEN;
use switchboard_core::{CallObserver, NamingTemplate, ServerSpec};
use switchboard_registry::{EgressPolicy, Registry, RegistryOptions, SnapshotCache};
use switchboard_upstream::auth::{FileTokens, OAuthContext, TokenStore};

const DEFAULT_FILES: [&str; 3] = ["switchboard.toml", ".mcp.json", "mcp.json"];

pub(crate) fn config_paths(global: &Global) -> anyhow::Result<Vec<PathBuf>> {
    if !global.config.is_empty() {
        return Ok(global.config.clone());
    }
    // Every default file here, layered in this order (a settings-only switchboard.toml
    // beside an mcp.json is both read, as SPEC.md says).
    let present: Vec<PathBuf> = (DEFAULT_FILES.iter().map(PathBuf::from))
        .filter(|p| p.exists())
        .collect();
    match present.is_empty() {
        false => Ok(present),
        true => bail!(
            "no config file given and none of {} exists here; pass -c FILE (e.g. -c ~/.cursor/mcp.json)",
            DEFAULT_FILES.join(", ")
        ),
    }
}

/// The configuration of a one-off command: a VS Code input with no value is asked for on a
/// terminal.
pub(crate) fn load_config(global: &Global) -> anyhow::Result<Config> {
    load_config_asking(global, Ask::OnTerminal)
}

fn load_config_asking(global: &Global, ask: Ask) -> anyhow::Result<Config> {
    let paths = config_paths(global)?;
    let config = load_files(global, &paths, ask)
        .map_err(|problems| anyhow::anyhow!("the configuration has problems:\n{problems}"))?;
    for warning in &config.warnings {
        tracing::warn!("{warning}");
    }
    Ok(config)
}

/// The VS Code inputs `paths` use that the environment does not give (stored, or typed when
/// `ask` allows); an input that cannot be read is a problem of its own.
fn inputs(
    global: &Global,
    paths: &[PathBuf],
    ask: Ask,
) -> Result<std::collections::BTreeMap<String, String>, switchboard_config::Problem> {
    crate::inputs::values(global, paths, ask).map_err(|e| {
        switchboard_config::Problem::error(
            "",
            None,
            "",
            format!("cannot read the stored inputs: {e:#}"),
            "check --data / --database-url and the master key, or export SWITCHBOARD_INPUT_<ID>",
        )
    })
}

/// Loads `paths` with the environment plus the VS Code inputs it does not give.
pub(crate) fn load_files(
    global: &Global,
    paths: &[PathBuf],
    ask: Ask,
) -> Result<Config, switchboard_config::Problems> {
    let inputs = inputs(global, paths, ask).map_err(|p| switchboard_config::Problems(vec![p]))?;
    switchboard_config::load_with_env(paths, &|name| {
        std::env::var(name)
            .ok()
            .or_else(|| inputs.get(name).cloned())
    })
}

/// As [`load_files`], keeping what could be read beside every problem (for `config check`,
/// which then checks the policy and identity sections too).
pub(crate) fn load_files_all(
    global: &Global,
    paths: &[PathBuf],
) -> (Config, Vec<switchboard_config::Problem>) {
    match inputs(global, paths, Ask::Never) {
        Err(problem) => (Config::default(), vec![problem]),
        Ok(inputs) => switchboard_config::load_all_with_env(paths, &|name| {
            std::env::var(name)
                .ok()
                .or_else(|| inputs.get(name).cloned())
        }),
    }
}

/// Whether no file is given and none of the default files exists here.
pub(crate) fn no_config_files(global: &Global) -> bool {
    global.config.is_empty()
        && !DEFAULT_FILES
            .iter()
            .any(|f| std::path::Path::new(f).exists())
}

/// The configuration, or an empty one when no file is given and none of the default files
/// exists (commands that work without upstreams); a file that is given must load.
pub(crate) fn load_config_if_any(global: &Global) -> anyhow::Result<Config> {
    if no_config_files(global) {
        return Ok(Config::default());
    }
    load_config_asking(global, Ask::Never)
}

/// The files to watch for `serve --watch`: the ones in force, or, when there are none, the
/// default files here (one created later is loaded).
pub(crate) fn watched_paths(global: &Global) -> Vec<PathBuf> {
    match no_config_files(global) {
        true => DEFAULT_FILES.iter().map(PathBuf::from).collect(),
        false => config_paths(global).unwrap_or_default(),
    }
}

/// [`load_config_if_any`] for `serve` and `stdio`, saying in one line when there is no file.
pub(crate) fn load_serving_config(global: &Global) -> anyhow::Result<Config> {
    if no_config_files(global) {
        tracing::info!(
            "no config file given and none of {} here: starting with no config-file servers (add servers through the REST API, POST /api/integrations/mcp/servers, or pass -c FILE)",
            DEFAULT_FILES.join(", ")
        );
    }
    load_config_if_any(global)
}

pub(crate) fn naming(global: &Global, config: &Config) -> anyhow::Result<NamingTemplate> {
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

/// The configured server `name`, or an error listing the names there are.
pub(crate) fn server_spec<'c>(config: &'c Config, name: &str) -> anyhow::Result<&'c ServerSpec> {
    config
        .servers
        .iter()
        .find(|s| s.name.as_str() == name)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "no server named {name:?}; configured: {}",
                config
                    .servers
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// Whether any configured server gets its tokens through OAuth.
pub(crate) fn uses_oauth(config: &Config) -> bool {
    config
        .servers
        .iter()
        .any(|s| matches!(&s.transport, switchboard_core::Transport::Http(h) if h.oauth.is_some()))
}

/// Where OAuth tokens live for this command (`[oauth] token_store`: sealed in the store by
/// default, or a 0600 JSON file) and the redirect base authorization servers send people to.
pub(crate) fn oauth(
    global: &Global,
    config: &Config,
    control: Option<&crate::control::Control>,
    redirect_base: Option<String>,
) -> anyhow::Result<OAuthContext> {
    let g = &config.gateway;
    let base = g
        .oauth_redirect_base
        .clone()
        .or(redirect_base)
        .unwrap_or_else(|| format!("http://{}", crate::commands::DEFAULT_LISTEN));
    let tokens: Arc<dyn TokenStore> = match (g.oauth_token_store.as_deref(), control) {
        (Some("file"), _) => {
            let path = g
                .oauth_token_file
                .clone()
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| global.data.join("oauth-tokens.json"));
            Arc::new(FileTokens::new(path))
        }
        (Some("keychain"), _) => keychain()?,
        (_, Some(control)) => Arc::new(switchboard_server::SealedTokens {
            store: control.store.clone(),
            sealer: control.sealer.clone(),
        }),
        (_, None) => {
            anyhow::bail!("OAuth tokens are kept in the store, which this command did not open")
        }
    };
    Ok(OAuthContext::new(tokens, base))
}

#[cfg(feature = "keychain")]
fn keychain() -> anyhow::Result<Arc<dyn TokenStore>> {
    Ok(Arc::new(switchboard_upstream::auth::KeychainTokens::new(
        "switchboard",
    )))
}

#[cfg(not(feature = "keychain"))]
fn keychain() -> anyhow::Result<Arc<dyn TokenStore>> {
    bail!(
        "[oauth] token_store = \"keychain\" needs a build with the keychain feature (cargo build --release -p switchboard --features keychain); or use \"store\" or \"file\""
    )
}

/// The OAuth context of a command that does not open the store otherwise: opens it only
/// when some server needs it.
pub(crate) async fn oauth_if_used(
    global: &Global,
    config: &Config,
) -> anyhow::Result<Option<OAuthContext>> {
    if !uses_oauth(config) {
        return Ok(None);
    }
    oauth_opening_store(global, config).await.map(Some)
}

/// [`oauth`] for a command that has not opened the store: opens it when the tokens are
/// kept there.
pub(crate) async fn oauth_opening_store(
    global: &Global,
    config: &Config,
) -> anyhow::Result<OAuthContext> {
    let control = match config.gateway.oauth_token_store.as_deref() {
        Some("file" | "keychain") => None,
        _ => Some(crate::control::Control::open(global).await?),
    };
    oauth(global, config, control.as_ref(), None)
}

/// The outbound HTTP client every upstream and webhook goes through (egress-checked).
pub(crate) fn http(global: &Global, config: &Config) -> switchboard_registry::UpstreamHttp {
    switchboard_registry::UpstreamHttp::new(egress(global, config))
}

/// Where upstreams may be: `--dev` and the `[gateway]` egress allowlist.
pub(crate) fn egress(global: &Global, config: &Config) -> EgressPolicy {
    let g = &config.gateway;
    EgressPolicy {
        dev: global.dev,
        allow_hosts: g.egress_allow_hosts.clone().unwrap_or_default(),
        allow_cidrs: g.egress_allow_cidrs.clone().unwrap_or_default(),
    }
}

/// The policy pipeline and a registry whose calls pass it, sharing one egress-checked HTTP
/// client.
pub(crate) async fn guarded_registry(
    global: &Global,
    config: &Config,
    control: &crate::control::Control,
    audit: Option<switchboard_store::AuditWriter>,
    observer: Option<Arc<dyn CallObserver>>,
    snapshots: Option<Arc<dyn SnapshotCache>>,
    oauth: Option<OAuthContext>,
) -> anyhow::Result<(switchboard_policy::Pipeline, Registry)> {
    let http = http(global, config);
    let pipeline = crate::policy::pipeline(config, http.clone(), control, audit).await?;
    let grants = Arc::new(control.grants.clone());
    let registry = registry(
        global,
        config,
        observer,
        snapshots,
        oauth,
        Some((&pipeline, http, grants)),
        control.sandbox_net.as_ref(),
    )?;
    Ok((pipeline, registry))
}

/// A registry whose calls pass `guard`'s pipeline (when given, with the HTTP client it uses
/// and the store's end users' grants).
pub(crate) fn registry(
    global: &Global,
    config: &Config,
    observer: Option<Arc<dyn CallObserver>>,
    snapshots: Option<Arc<dyn SnapshotCache>>,
    oauth: Option<OAuthContext>,
    guard: Option<(
        &switchboard_policy::Pipeline,
        switchboard_registry::UpstreamHttp,
        Arc<switchboard_server::StoredGrants>,
    )>,
    net: Option<&crate::sandbox_cmds::SandboxNet>,
) -> anyhow::Result<Registry> {
    let g = &config.gateway;
    let egress = egress(global, config);
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
        .with_tools(g.tools())
        .with_egress(egress)
        .with_limits(g.limits())
        .with_allow_env(g.allow_env.clone().unwrap_or_default())
        .with_sandbox(crate::sandbox_cmds::setup(global, config, net)?)
        .with_roots(g.roots.clone().unwrap_or_default())
        .with_refresh_every(Duration::from_secs(
            g.refresh_interval_secs.unwrap_or(600) as u64
        ));
    if let Some(observer) = observer {
        options = options.with_observer(observer);
    }
    if let Some(snapshots) = snapshots {
        options = options.with_snapshots(snapshots);
    }
    if let Some(oauth) = oauth {
        options = options.with_oauth(oauth);
    }
    if let Some((pipeline, http, grants)) = guard {
        options = options
            .with_guard(Arc::new(pipeline.clone()))
            .with_http(http)
            .with_end_user_grants(grants);
    }
    Ok(Registry::new(options))
}

/// Connects every configured server, with a spinner on a terminal.
pub(crate) async fn connect_all(registry: &Registry, config: &Config) {
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

pub(crate) fn spinner(message: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new_spinner().with_message(message.to_string());
    bar.set_style(ProgressStyle::default_spinner());
    bar.enable_steady_tick(Duration::from_millis(100));
    Some(bar)
}

pub(crate) fn progress_bar(len: u64, message: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(len).with_message(message.to_string());
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}") {
        bar.set_style(style);
    }
    Some(bar)
}
