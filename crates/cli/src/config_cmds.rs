//! `config check` and `config discover`: the files' problems, and the hosts' files on this machine.

use crate::args::Global;
use crate::setup;
use serde_json::{Value, json};
use std::process::ExitCode;
use switchboard_config::Severity;
use switchboard_config::discover::{self, HostFile, Places};

/// `config check`: every problem of the files, inputs without a value included.
pub(crate) async fn check(global: &Global, json: bool) -> anyhow::Result<ExitCode> {
    let paths = setup::config_paths(global)?;
    // Every problem at once: the files', then the policy's and the identity settings' in
    // what could be read of them.
    let (config, mut problems) = setup::load_files_all(global, &paths);
    if let Err(policy) = crate::policy::operator_doc(&config) {
        problems.extend(policy);
    }
    problems.extend(crate::identity::check(global, &config, &paths).await);
    problems.sort_by_key(|p| p.severity == Severity::Warning);
    let servers = config.servers.len();
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    if json {
        let list: Vec<Value> = problems.iter().map(problem_json).collect();
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"ok": errors == 0, "files": files, "servers": servers, "problems": list})
            )?
        );
    } else {
        for path in &paths {
            println!("read {}", path.display());
        }
        for p in &problems {
            println!("{p}");
        }
        if errors == 0 {
            println!(
                "ok: {servers} server(s) in {} file(s){}",
                paths.len(),
                if problems.is_empty() {
                    String::new()
                } else {
                    format!(", {} warning(s)", problems.len())
                }
            );
        } else {
            println!("{errors} error(s)");
        }
    }
    Ok(if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What one host file declares, for `config discover`.
struct Found {
    file: HostFile,
    servers: Vec<(String, &'static str, bool)>,
    problems: Vec<switchboard_config::Problem>,
}

/// `config discover`: each host's MCP file present for this user, with its servers.
pub(crate) fn discover(json: bool) -> anyhow::Result<ExitCode> {
    let env = |name: &str| std::env::var(name).ok();
    let cwd = std::env::current_dir()?;
    let Some(places) = Places::from_env(&env, cwd) else {
        anyhow::bail!("HOME is not set, so the hosts' files cannot be found; set HOME");
    };
    let mut found = Vec::new();
    for file in discover::candidates(&places) {
        if !file.path.is_file() {
            continue;
        }
        let paths = [file.path.clone()];
        // Names and transports even where a variable is unset: the real load says what is
        // missing, as problems.
        let declared = switchboard_config::load_with_env(&paths, &|_| Some(String::new()));
        let servers: Vec<_> = declared
            .as_ref()
            .map(|c| {
                c.servers
                    .iter()
                    .map(|s| (s.name.to_string(), s.transport_name(), s.enabled))
                    .collect()
            })
            .unwrap_or_default();
        let no_servers = declared
            .as_ref()
            .err()
            .is_some_and(|p| p.0.iter().any(|p| p.message == "no MCP servers found"));
        if no_servers && discover::is_general_settings(&file.path) {
            continue; // an editor's settings file with no MCP servers in it
        }
        let problems = match switchboard_config::load(&paths) {
            Ok(config) => config.warnings,
            Err(problems) => problems.0,
        };
        // A host's file with an empty servers table has no servers, which is no problem here.
        let problems = (problems.into_iter())
            .filter(|p| p.message != switchboard_config::NO_SERVERS)
            .collect();
        found.push(Found {
            file,
            servers,
            problems,
        });
    }
    if json {
        let list: Vec<Value> = found
            .iter()
            .map(|f| {
                json!({
                    "host": f.file.host,
                    "scope": f.file.scope.as_str(),
                    "file": f.file.path,
                    "servers": f.servers.iter().map(|(name, transport, enabled)| {
                        json!({"name": name, "transport": transport, "enabled": enabled})
                    }).collect::<Vec<_>>(),
                    "problems": f.problems.iter().map(problem_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({ "files": list }))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if found.is_empty() {
        println!(
            "no MCP host files found for this user (looked for Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Codex, Zed and Goose)"
        );
        return Ok(ExitCode::SUCCESS);
    }
    for f in &found {
        let names: Vec<String> = f
            .servers
            .iter()
            .map(|(name, transport, enabled)| match enabled {
                true => format!("{name} ({transport})"),
                false => format!("{name} ({transport}, disabled)"),
            })
            .collect();
        println!(
            "{} ({}): {}",
            f.file.host,
            f.file.scope.as_str(),
            f.file.path.display()
        );
        match names.is_empty() {
            true => println!("  no servers"),
            false => println!("  {}", names.join(", ")),
        }
        let errors = f
            .problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count();
        if errors > 0 {
            println!(
                "  {errors} problem(s); see: switchboard config check -c {}",
                quoted(&f.file.path)
            );
        }
    }
    let flags: Vec<String> = found
        .iter()
        .filter(|f| !f.servers.is_empty())
        .map(|f| format!("-c {}", quoted(&f.file.path)))
        .collect();
    if !flags.is_empty() {
        println!("\nserve them all: switchboard serve {}", flags.join(" "));
    }
    Ok(ExitCode::SUCCESS)
}

fn problem_json(p: &switchboard_config::Problem) -> Value {
    json!({
        "severity": if p.severity == Severity::Error { "error" } else { "warning" },
        "file": p.file, "line": p.line, "key": p.key,
        "message": p.message, "fix": p.fix,
    })
}

/// A path as a shell word (quoted when it holds spaces, as macOS's Application Support does).
fn quoted(path: &std::path::Path) -> String {
    let text = path.display().to_string();
    match text.contains([' ', '\'', '"']) {
        true => format!("'{}'", text.replace('\'', "'\\''")),
        false => text,
    }
}
