//! The sandbox of stdio servers: the setup the gateway starts them with, and `sandbox explain`.

use crate::args::{Global, SandboxCommand};
use anyhow::Context;
use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;
use std::sync::Arc;
use switchboard_config::Config;
use switchboard_core::{SandboxChoice, ServerSpec, Transport};
use switchboard_egress_proxy::ProxyRefusal;
use switchboard_registry::{ProxySetup, SandboxSetup, ServerRefused};
use switchboard_sandbox::Mode;

/// What `serve` adds to sandboxed servers' egress proxies: its own listen address, and where
/// refusals are audited and counted.
#[derive(Clone)]
pub(crate) struct SandboxNet {
    pub forbidden: Vec<SocketAddr>,
    pub refused: ServerRefused,
}

impl SandboxNet {
    /// Refusals audited (`sandbox.egress_refused`), counted in `/metrics` and logged.
    pub(crate) fn serving(
        listen: Option<SocketAddr>,
        audit: switchboard_store::AuditWriter,
        metrics: Arc<switchboard_metrics::Metrics>,
    ) -> Self {
        let refused = move |server: &str, refusal: &ProxyRefusal| {
            log_refusal(server, refusal);
            metrics.sandbox_egress_refused("", server, refusal.reason());
            audit.record_now(switchboard_store::AuditEntry {
                at: switchboard_store::now_ms(),
                action_id: "sandbox.egress_refused".into(),
                server: Some(server.to_string()),
                verdict: "denied".into(),
                outcome: "refused".into(),
                detail: Some(format!(
                    "target={} reason={} {refusal}",
                    refusal.target(),
                    refusal.reason()
                )),
                ..Default::default()
            });
        };
        Self {
            forbidden: listen.into_iter().collect(),
            refused: Arc::new(refused),
        }
    }
}

fn log_refusal(server: &str, refusal: &ProxyRefusal) {
    tracing::warn!(server = %server, target = %refusal.target(), reason = refusal.reason(), "sandbox egress refused: {refusal}");
}

/// The gateway's database, when it is reached over the network: never a proxy's target.
fn database_addresses(global: &Global) -> Vec<SocketAddr> {
    let Some(url) = global.database_url.as_deref() else {
        return Vec::new();
    };
    let Ok(url) = url::Url::parse(url) else {
        return Vec::new();
    };
    let (Some(host), port) = (url.host_str(), url.port().unwrap_or(5432)) else {
        return Vec::new();
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map(Iterator::collect)
        .unwrap_or_default();
    if addrs.is_empty() {
        tracing::warn!(
            host,
            "sandboxed servers' egress proxies cannot tell the database's address (its host does not resolve here): do not list it in any sandbox.net"
        );
    }
    addrs
}

/// How stdio servers are confined: the gateway's own binary as the helper, `[sandbox] mode`,
/// what this kernel has; missing layers and unconfined servers are named once. `net` (from
/// `serve`) adds its listen address and audits refusals; without it they are logged.
pub(crate) fn setup(
    global: &Global,
    config: &Config,
    net: Option<&SandboxNet>,
) -> anyhow::Result<SandboxSetup> {
    let launcher = std::env::current_exe().context("cannot find the gateway's own binary")?;
    let mut forbidden = database_addresses(global);
    forbidden.extend(net.iter().flat_map(|n| n.forbidden.iter().copied()));
    let refused: ServerRefused = match net {
        Some(net) => net.refused.clone(),
        None => Arc::new(log_refusal),
    };
    let proxy = ProxySetup {
        policy: crate::setup::egress(global, config),
        forbidden,
        lookup: Arc::new(switchboard_egress::SystemLookup),
        refused,
    };
    let setup = SandboxSetup::new(launcher, mode(config), global.data.clone()).with_proxy(proxy);
    let confined = (config.servers.iter())
        .any(|s| matches!(s.transport, Transport::Stdio(_)) && s.sandbox != SandboxChoice::Off);
    for server in unconfined(config) {
        tracing::warn!(server = %server.name, origin = %server.origin, "sandbox = false: this stdio server runs unconfined, with the gateway's own access");
    }
    let missing = setup.support.missing();
    if confined && !missing.is_empty() {
        tracing::warn!(
            mode = ?setup.mode,
            "stdio servers are sandboxed in part: {}",
            missing.join("; ")
        );
    }
    Ok(setup)
}

/// One audit row per stdio server the config runs unconfined (`sandbox.off`), at each start.
pub(crate) fn audit_unconfined(audit: &switchboard_store::AuditWriter, config: &Config) {
    for server in unconfined(config) {
        audit.record_now(switchboard_store::AuditEntry {
            at: switchboard_store::now_ms(),
            action_id: "sandbox.off".into(),
            server: Some(server.name.to_string()),
            verdict: "allowed".into(),
            outcome: "ok".into(),
            detail: Some(format!(
                "origin={} the stdio server runs unconfined (sandbox = false)",
                server.origin
            )),
            ..Default::default()
        });
    }
}

/// The stdio servers `sandbox = false` runs unconfined.
fn unconfined(config: &Config) -> impl Iterator<Item = &ServerSpec> {
    (config.servers.iter())
        .filter(|s| matches!(s.transport, Transport::Stdio(_)) && s.sandbox == SandboxChoice::Off)
}

fn mode(config: &Config) -> Mode {
    match config.gateway.sandbox_mode.as_deref() {
        Some("strict") => Mode::Strict,
        _ => Mode::Auto,
    }
}

pub(crate) async fn run(global: &Global, command: SandboxCommand) -> anyhow::Result<ExitCode> {
    let SandboxCommand::Explain { server, json } = command;
    let config = crate::setup::load_config(global)?;
    let spec = crate::setup::server_spec(&config, &server)?;
    let setup = setup(global, &config, None)?;
    let Transport::Stdio(stdio) = &spec.transport else {
        anyhow::bail!(
            "{server} is an HTTP server: the sandbox confines the stdio servers the gateway starts"
        );
    };
    let status = SandboxSetup::describe(Some(&setup), spec).unwrap_or_default();
    let extra = match &spec.sandbox {
        SandboxChoice::Off => {
            print_off(&server, json);
            return Ok(ExitCode::SUCCESS);
        }
        SandboxChoice::On(extra) => extra,
    };
    let decided = setup.decide(spec, stdio, extra)?;
    if json {
        let out = serde_json::json!({
            "server": server,
            "sandbox": status,
            "missing": setup.support.missing(),
            "program": decided.plan.program,
            "args": decided.plan.args,
            "workdir": decided.plan.workdir,
            "grants": decided.grants,
            "hidden": decided.plan.hide,
            "max_processes": decided.plan.max_processes,
            "env": decided.env.iter().map(|(k, v)| (k.clone(), v.to_string_lossy())).collect::<std::collections::BTreeMap<_, _>>(),
            "network": network(&decided.plan, &extra.net),
            "net": extra.net,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{server}: sandbox {status}");
    for missing in setup.support.missing() {
        println!("  missing: {missing}");
    }
    println!(
        "  runs     {} {}",
        decided.plan.program.display(),
        decided.plan.args.join(" ")
    );
    println!("  in       {}", decided.plan.workdir.display());
    for (name, value) in &decided.env {
        println!("  env      {name}={}", value.to_string_lossy());
    }
    println!("  grants:");
    for grant in &decided.grants {
        let access = match grant.access {
            switchboard_sandbox::grants::Access::ReadExec => "read+exec ",
            switchboard_sandbox::grants::Access::Read => "read      ",
            switchboard_sandbox::grants::Access::Write => "read+write",
        };
        println!("    {access} {}  ({})", grant.path.display(), grant.why);
    }
    let hidden: Vec<String> = (decided.plan.hide.iter())
        .map(|p| p.display().to_string())
        .collect();
    println!(
        "  hidden   {} (a private empty tmpfs each)",
        hidden.join(", ")
    );
    if let Some(n) = decided.plan.max_processes {
        println!("  processes at most {n}");
    }
    println!("  network  {}", network(&decided.plan, &extra.net));
    Ok(ExitCode::SUCCESS)
}

fn network(plan: &switchboard_sandbox::Plan, net: &[String]) -> String {
    match (plan.layers.namespaces, plan.layers.network, plan.proxy_port) {
        (true, true, Some(port)) => {
            let hosts = match net.is_empty() {
                true => "no host (grant some with sandbox = { net = [\"host:port\"] })".into(),
                false => net.join(", "),
            };
            format!(
                "its own network namespace (loopback only); out only through the gateway's egress proxy (HTTP_PROXY and HTTPS_PROXY = http://127.0.0.1:{port}) to {hosts}; no resolver inside, the proxy resolves the names it lets through"
            )
        }
        (true, true, None) => {
            "none: its own network namespace with only a loopback interface (the program embedding the gateway set no egress proxy)".into()
        }
        (true, false, _) => {
            "the host's: a package runner fetches its package at start, so every host (its registry and any other) stays reachable while it runs (install the package and start it directly to confine its network)".into()
        }
        (false, _, _) => "the host's: this machine gives no network namespace".into(),
    }
}

fn print_off(server: &str, json: bool) {
    if json {
        println!(
            "{}",
            serde_json::json!({"server": server, "sandbox": "off (sandbox = false)"})
        );
    } else {
        println!("{server}: sandbox off (sandbox = false): it runs with the gateway's own access");
    }
}
