//! `tools` (with quarantined and withheld tools and why), `tools diff|approve` and `scan`.

use crate::args::{Global, ToolsCommand};
use crate::control::Control;
use crate::{setup, table};
use anyhow::Context;
use serde_json::{Value, json};
use std::process::ExitCode;
use switchboard_core::Owner;
use switchboard_policy::ReviewSettings;
use switchboard_policy::doc::FindingAction;
use switchboard_store::Store;

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max - 1).collect::<String>())
    }
}

/// The exposed tools; quarantined ones and those a config withholds are listed with why.
pub(crate) async fn tools(global: &Global, json: bool) -> anyhow::Result<ExitCode> {
    let config = setup::load_config(global)?;
    let oauth = setup::oauth_if_used(global, &config).await?;
    let control = Control::open(global).await?;
    let (_pipeline, registry) =
        setup::guarded_registry(global, &config, &control, None, None, None, oauth).await?;
    setup::connect_all(&registry, &config).await;
    let catalog = registry.catalog();
    // What the operator's endpoint lists (rules that deny outright hide tools too).
    let operator = switchboard_core::Caller {
        surface: Some(switchboard_core::Surface::Cli),
        ..Default::default()
    };
    let listed: std::collections::HashSet<String> = registry
        .visible_tools(&operator)
        .await
        .into_iter()
        .map(|t| t.exposed_name)
        .collect();
    if json {
        let mut list: Vec<Value> = catalog
            .tools
            .iter()
            .map(|t| {
                let hidden = (t.quarantined().is_none() && !listed.contains(&t.exposed_name))
                    .then_some("hidden by the policy (a rule that denies it outright)");
                json!({
                    "name": t.exposed_name,
                    "server": t.server.as_str(),
                    "tool": t.upstream_name,
                    "action_id": t.action_id.as_str(),
                    "description": t.tool.description,
                    "input_schema": t.tool.input_schema,
                    "visible": listed.contains(&t.exposed_name),
                    "quarantined": t.quarantined(),
                    "hidden": hidden,
                    "findings": t.review.findings,
                })
            })
            .collect();
        list.extend(catalog.withheld.iter().map(|w| {
            json!({
                "name": null, "server": w.server.as_str(), "tool": w.tool,
                "action_id": format!("mcp.{}.{}", w.server, w.tool),
                "visible": false, "withheld": w.reason,
            })
        }));
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        let mut rows: Vec<Vec<String>> = catalog
            .tools
            .iter()
            .map(|t| {
                let description = t.tool.description.as_deref().unwrap_or("");
                let first_line = description.lines().next().unwrap_or("");
                let status = match t.quarantined() {
                    Some(why) => format!("quarantined: {why}"),
                    None => truncate(first_line, 80),
                };
                vec![t.exposed_name.clone(), t.server.to_string(), status]
            })
            .collect();
        rows.extend(catalog.withheld.iter().map(|w| {
            vec![
                format!("({})", w.tool),
                w.server.to_string(),
                format!("withheld: {}", w.reason),
            ]
        }));
        print!(
            "{}",
            table::render(&["TOOL", "SERVER", "DESCRIPTION"], &rows)
        );
    }
    for s in registry.servers().iter().filter(|s| s.last_error.is_some()) {
        eprintln!(
            "warning: server {} is {}: {}",
            s.name,
            s.status,
            s.last_error.as_deref().unwrap_or("")
        );
    }
    registry.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

async fn owner(control: &Control, org: Option<&str>) -> anyhow::Result<Owner> {
    let Some(name) = org else {
        return Ok(Owner::Operator);
    };
    let org = control.store.org_by_name(name).await?.with_context(|| {
        format!("no org named {name:?}; `switchboard org create {name}` makes one")
    })?;
    Ok(Owner::Org(org.id))
}

pub(crate) async fn tools_command(
    global: &Global,
    command: ToolsCommand,
) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let config = setup::load_config_if_any(global)?;
    let http = setup::http(global, &config);
    let (audit, audit_task) = control.audit(&config.gateway.audit);
    let pipeline = crate::policy::pipeline(&config, http, &control, Some(audit)).await?;
    let outcome = run_tools_command(&control, &pipeline, command).await;
    drop(pipeline);
    // Approvals are audited: commit the rows before exiting.
    audit_task.finish().await;
    outcome
}

async fn run_tools_command(
    control: &Control,
    pipeline: &switchboard_policy::Pipeline,
    command: ToolsCommand,
) -> anyhow::Result<ExitCode> {
    match command {
        ToolsCommand::Diff {
            server,
            tool,
            org,
            json,
        } => {
            let owner = owner(control, org.as_deref()).await?;
            let waiting: Vec<_> = pipeline
                .pending(&owner, Some(&server))
                .await
                .map_err(anyhow::Error::msg)?
                .into_iter()
                .filter(|p| tool.as_deref().is_none_or(|t| p.tool == t))
                .collect();
            if json {
                println!("{}", serde_json::to_string_pretty(&waiting)?);
            } else if waiting.is_empty() {
                println!("nothing of {server} waits for approval");
            } else {
                for p in &waiting {
                    print_diff(p);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ToolsCommand::Approve {
            server,
            tool,
            all,
            org,
            hash,
            json,
        } => {
            if tool.is_none() && !all {
                anyhow::bail!(
                    "name the tool to approve, or pass --all for every waiting tool of {server}"
                );
            }
            let owner = owner(control, org.as_deref()).await?;
            let approved = pipeline
                .approve(&owner, &server, tool.as_deref(), hash.as_deref(), "cli")
                .await?;
            if let Err(e) = control
                .store
                .publish_change(&switchboard_store::Change::policy(&owner))
                .await
            {
                tracing::warn!("cannot tell running gateways about the approval: {e}");
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&approved)?);
            } else {
                for a in &approved {
                    println!(
                        "approved {}.{} ({} -> {}); a running gateway exposes it within seconds",
                        a.server,
                        a.tool,
                        a.old_hash.as_deref().map_or("new", |h| &h[..12]),
                        &a.new_hash[..12]
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Approved and waiting definitions, line by line: `+` only in the new, `-` only in the old.
fn print_diff(p: &switchboard_policy::PendingChange) {
    println!(
        "== {}.{} (waiting sha256 {}): {}",
        p.server, p.tool, p.new_hash, p.reason
    );
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
    let old = p.approved.as_ref().map(pretty).unwrap_or_default();
    let new = pretty(&p.new);
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    for line in &new_lines {
        let mark = if old_lines.contains(line) { ' ' } else { '+' };
        println!("{mark} {line}");
    }
    for line in old_lines.iter().filter(|l| !new_lines.contains(l)) {
        println!("- {line}");
    }
}

/// A definition to scan, the upstream names of other servers it must not look like, and the
/// name it is exposed under (live scans).
type ToScan = (Value, Vec<String>, Option<String>);

/// `scan --tools FILE`, or every configured server live; exits 1 when a tool would be
/// quarantined or blocked.
pub(crate) async fn scan(
    global: &Global,
    file: Option<std::path::PathBuf>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    // Each tool with the upstream names it must not look like: those of other servers,
    // as the gateway compares them (a file holds one server's tools).
    let (tools, settings): (Vec<ToScan>, _) = match &file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let value: Value = serde_json::from_str(&text).with_context(|| {
                format!("{} is not JSON: pass a tools/list result", path.display())
            })?;
            let list = match value.get("tools").cloned().unwrap_or(value) {
                Value::Array(list) => list,
                _ => anyhow::bail!(
                    "{} holds no tool list: expected {{\"tools\": [...]}} or [...]",
                    path.display()
                ),
            };
            let settings = review_settings(&setup::load_config_if_any(global)?)?;
            (
                list.into_iter().map(|t| (t, Vec::new(), None)).collect(),
                settings,
            )
        }
        None => {
            let config = setup::load_config(global)?;
            let settings = review_settings(&config)?;
            let oauth = setup::oauth_if_used(global, &config).await?;
            let registry = setup::registry(global, &config, None, None, oauth, None, None)?;
            setup::connect_all(&registry, &config).await;
            let catalog = registry.catalog();
            let tools = catalog
                .tools
                .iter()
                .map(|t| {
                    let mut definition = serde_json::to_value(&t.tool).unwrap_or_default();
                    definition["name"] = Value::String(t.upstream_name.clone());
                    // Its UI as the gateway reviews it: the scan reads the HTML and its CSP.
                    if let Some(app) = &t.app {
                        definition["uiResource"] = (**app).clone();
                    }
                    let others = catalog
                        .tools
                        .iter()
                        .filter(|o| o.server != t.server)
                        .map(|o| o.upstream_name.clone())
                        .collect();
                    (definition, others, Some(t.exposed_name.clone()))
                })
                .collect();
            registry.shutdown().await;
            (tools, settings)
        }
    };
    let reports: Vec<_> = tools
        .iter()
        .map(|(definition, others, exposed)| {
            let others: Vec<&str> = others.iter().map(String::as_str).collect();
            let mut report = switchboard_scan::scan_tool(definition, &others);
            if let Some(exposed) = exposed {
                report.name = exposed.clone();
            }
            report
        })
        .collect();
    // Flagged as the gateway would hold it back, under the operator's [policy.scan].
    let held = |r: &switchboard_scan::ScanReport| {
        r.findings
            .iter()
            .map(|f| f.severity)
            .max()
            .is_some_and(|worst| settings.action_for(worst) != FindingAction::Warn)
    };
    let flagged = reports.iter().filter(|r| held(r)).count();
    if json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        let rows: Vec<Vec<String>> = reports
            .iter()
            .map(|r| {
                let first = r
                    .findings
                    .first()
                    .map(|f| format!("{} ({:?}): {}", f.rule, f.severity, f.evidence))
                    .unwrap_or_default();
                vec![
                    r.name.clone(),
                    format!("{:?}", r.verdict).to_lowercase(),
                    r.findings.len().to_string(),
                    truncate(&first, 90),
                ]
            })
            .collect();
        print!(
            "{}",
            table::render(&["TOOL", "VERDICT", "FINDINGS", "FIRST FINDING"], &rows)
        );
    }
    Ok(if flagged == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The operator's scanner settings from the configuration's `[policy]`.
fn review_settings(config: &switchboard_config::Config) -> anyhow::Result<ReviewSettings> {
    let doc = crate::policy::operator_doc(config)
        .map_err(|problems| anyhow::anyhow!("{}", switchboard_config::Problems(problems)))?;
    Ok(ReviewSettings::from_doc(doc.scan.as_ref(), doc.pinning))
}
