//! The sandbox of stdio servers: the setup the gateway starts them with, and `sandbox explain`.

use crate::args::{Global, SandboxCommand};
use anyhow::Context;
use std::process::ExitCode;
use switchboard_config::Config;
use switchboard_core::{SandboxChoice, ServerSpec, Transport};
use switchboard_registry::SandboxSetup;
use switchboard_sandbox::Mode;

/// How stdio servers are confined: the gateway's own binary as the helper, `[sandbox] mode`,
/// what this kernel has; missing layers and unconfined servers are named once.
pub(crate) fn setup(global: &Global, config: &Config) -> anyhow::Result<SandboxSetup> {
    let launcher = std::env::current_exe().context("cannot find the gateway's own binary")?;
    let setup = SandboxSetup::new(launcher, mode(config), global.data.clone());
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
    let setup = setup(global, &config)?;
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
            "env": decided.env.iter().map(|(k, v)| (k.clone(), v.display().to_string())).collect::<std::collections::BTreeMap<_, _>>(),
            "network": network(&decided.plan),
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
        println!("  env      {name}={}", value.display());
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
    println!("  network  {}", network(&decided.plan));
    Ok(ExitCode::SUCCESS)
}

fn network(plan: &switchboard_sandbox::Plan) -> &'static str {
    match (plan.layers.namespaces, plan.layers.network) {
        (true, true) => {
            "none: its own network namespace with only a loopback interface (the egress proxy that would let it reach sandbox.net hosts is not built yet)"
        }
        (true, false) => {
            "the host's: a package runner fetches its package at start, so every host (its registry and any other) stays reachable while it runs, until the egress proxy is built"
        }
        (false, _) => "the host's: this machine gives no network namespace",
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
