//! What each subcommand does.

use crate::args::{AuditCommand, AuthCommand, Cli, Command, ConfigCommand, Global, KeysCommand};
use crate::control::Control;
use crate::{admin, audit_cmds, tenancy_cmds};
use crate::{setup, table};
use anyhow::Context;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use std::process::ExitCode;
use std::sync::Arc;
use switchboard_core::{CallError, Caller, ErrorKind};
use switchboard_registry::CallOptions;
use switchboard_server::serve_stdio;

pub(crate) const DEFAULT_LISTEN: &str = "127.0.0.1:8750";

pub(crate) async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let global = &cli.global;
    match cli.command {
        Command::Serve {
            listen,
            no_audit,
            watch,
        } => crate::serve::serve(global, listen, no_audit, watch).await,
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
        } => crate::config_cmds::check(global, json).await,
        Command::Config {
            command: ConfigCommand::Discover { json },
        } => crate::config_cmds::discover(json),
        Command::Input { command } => crate::inputs::run(global, command).await,
        Command::EndUsers { command } => crate::end_users::run(global, command).await,
        Command::Audit {
            command: AuditCommand::Verify { anchor, json },
        } => audit_cmds::verify(global, anchor.as_deref(), json).await,
        Command::Audit {
            command: AuditCommand::Anchor,
        } => audit_cmds::anchor(global).await,
        Command::Audit {
            command:
                AuditCommand::List {
                    filter,
                    limit,
                    json,
                },
        } => crate::audit_rows::list(global, &filter, limit, json).await,
        Command::Audit {
            command:
                AuditCommand::Tail {
                    filter,
                    lines,
                    json,
                },
        } => crate::audit_rows::tail(global, &filter, lines, json).await,
        Command::Audit {
            command:
                AuditCommand::Export {
                    filter,
                    after,
                    output,
                },
        } => crate::audit_rows::export(global, &filter, after, output.as_deref()).await,
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut command = crate::args::Cli::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command, "switchboard", &mut script);
            // A reader that stops early (`| head`) is not an error.
            match std::io::Write::write_all(&mut std::io::stdout(), &script) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
                _ => Ok(ExitCode::SUCCESS),
            }
        }
        Command::Sandbox { command } => crate::sandbox_cmds::run(global, command).await,
        Command::Org { command } => tenancy_cmds::org(global, command).await,
        Command::Token { command } => tenancy_cmds::token(global, command).await,
        Command::Keys {
            command: KeysCommand::Rotate,
        } => admin::keys_rotate(global).await,
    }
}

/// Resolves on Ctrl-C or SIGTERM. The handlers are installed when this is called, not when it
/// is first awaited: a process that says it is ready and then meets a SIGTERM before its first
/// await still shuts down gracefully.
pub(crate) fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            match (interrupt, terminate) {
                (Ok(mut interrupt), Ok(mut terminate)) => {
                    tokio::select! {
                        _ = interrupt.recv() => {}
                        _ = terminate.recv() => {}
                    }
                }
                _ => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

async fn stdio(global: &Global) -> anyhow::Result<ExitCode> {
    let signal = shutdown_signal();
    let config = setup::load_serving_config(global)?;
    let control = Control::open(global).await?;
    let (audit, audit_task) = control.audit(&config.gateway.audit);
    let oauth = setup::oauth(global, &config, Some(&control), None)?;
    let (_pipeline, registry) = setup::guarded_registry(
        global,
        &config,
        &control,
        Some(audit.clone()),
        Some(Arc::new(audit.clone())),
        Some(control.snapshots()),
        Some(oauth),
    )
    .await?;
    registry.apply_config(&config).await;
    // Hosts close stdin and soon after signal: commit the audit log before stopping servers.
    let served = tokio::select! {
        served = serve_stdio(registry.clone(), Some(audit)) => served,
        _ = signal => Ok(()),
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
    let registry = setup::registry(global, &config, None, None, oauth, None, None)?;
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
    let (audit, audit_task) = control.audit(&config.gateway.audit);
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
    // Only the servers whose names the tool's name can belong to start (all of them when the
    // naming template starts with the tool); the rest only if it is not found among those.
    let naming = setup::naming(global, &config)?;
    let mut narrowed = config.clone();
    narrowed.servers.retain(|s| {
        let prefix = naming.prefix(&s.name);
        !prefix.is_empty() && tool.starts_with(&prefix)
    });
    let narrow = !narrowed.servers.is_empty() && narrowed.servers.len() < config.servers.len();
    setup::connect_all(&registry, if narrow { &narrowed } else { &config }).await;
    if narrow && !registry.tools().iter().any(|t| t.exposed_name == tool) {
        setup::connect_all(&registry, &config).await;
    }
    // The operator runs the CLI: the end user it names is asserted by one who may.
    let mut opts = CallOptions::default().with_caller(Caller {
        surface: Some(switchboard_core::Surface::Cli),
        asserts_end_users: true,
        end_user_source: end_user
            .as_ref()
            .map(|_| switchboard_core::EndUserSource::Asserted),
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

/// A content block as a person reads it: text as it is; images, audio and binary resources
/// summarised (type, size) instead of pages of base64, which `--json` still prints.
fn shown_block(block: &Value) -> String {
    let text = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    let size = |b64: &str| format!("{:.1} KiB", (b64.len() * 3 / 4) as f64 / 1024.0);
    match block["type"].as_str().unwrap_or_default() {
        "text" => text(block, "text"),
        kind @ ("image" | "audio") => format!(
            "[{kind} {}, {}; --json prints the data]",
            text(block, "mimeType"),
            size(block["data"].as_str().unwrap_or_default())
        ),
        "resource" => {
            let resource = &block["resource"];
            match (resource["text"].as_str(), resource["blob"].as_str()) {
                (Some(body), _) => body.to_string(),
                (None, blob) => format!(
                    "[resource {} {}, {}; --json prints the data]",
                    text(resource, "uri"),
                    text(resource, "mimeType"),
                    size(blob.unwrap_or_default())
                ),
            }
        }
        "resource_link" => format!("[link {} {}]", text(block, "uri"), text(block, "name")),
        _ => block.to_string(),
    }
}

fn print_result(result: &CallToolResult, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(result)?);
        return Ok(());
    }
    for block in &result.content {
        println!("{}", shown_block(&serde_json::to_value(block)?));
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
pub(crate) fn announce(global: &Global, line: &str) {
    match global.log_format {
        crate::args::LogFormat::Text => eprintln!("{line}"),
        crate::args::LogFormat::Json => tracing::info!("{line}"),
    }
}

fn report_error(error: &CallError, json: bool) {
    if json {
        // The upstream's own JSON-RPC error code and data too, when it sent one.
        eprintln!("{}", json!({ "error": error }));
    } else {
        eprintln!("error: {}: {}", error.kind, error.message);
        if let Some(code) = error.code {
            let data = error.data.as_ref().map(|d| format!(", data {d}"));
            eprintln!(
                "  the upstream's JSON-RPC error: code {code}{}",
                data.unwrap_or_default()
            );
        }
    }
}
