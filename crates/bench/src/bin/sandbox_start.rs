//! Start-up of a stdio server sandboxed against the same server with `sandbox = false`: the
//! time `switchboard test` reports for one start, initialize, discovery and stop (its
//! `elapsed_ms`; a server that ignores the end of its input, as server-everything does, adds
//! the gateway's 3 s wait before SIGTERM), alternating the two configs round by round; medians. Servers: mcp-server-time (Python),
//! server-everything (Node) and the testkit's echo-server (Rust).
//!
//! `cargo build --release -p switchboard -p switchboard-testkit -p switchboard-bench &&
//! target/release/sandbox-start` (BENCH_ROUNDS, default 10).

#[path = "../procs.rs"]
#[allow(dead_code)]
mod procs;

use anyhow::Context;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The servers measured: name and config entry.
fn servers() -> anyhow::Result<Vec<(&'static str, Value)>> {
    let fixtures = repo().join(".fixtures");
    let python = fixtures.join("venv/bin/python");
    let everything =
        fixtures.join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    anyhow::ensure!(
        python.exists() && everything.exists(),
        "fixtures are missing: run scripts/fixtures.sh"
    );
    let echo = procs::release_dir()?.join("echo-server");
    Ok(vec![
        (
            "time",
            json!({"command": python, "args": ["-m", "mcp_server_time"]}),
        ),
        (
            "everything",
            json!({"command": "node", "args": [everything, "stdio"]}),
        ),
        ("echo", json!({"command": echo, "args": []})),
    ])
}

/// `switchboard test --json` on a config of `entry` (sandboxed or not): its elapsed_ms.
fn start_once(bin: &Path, dir: &Path, entry: &Value, sandbox: bool) -> anyhow::Result<f64> {
    let mut entry = entry.clone();
    if !sandbox {
        entry["sandbox"] = json!(false);
    }
    let config = dir.join(if sandbox { "on.json" } else { "off.json" });
    std::fs::write(&config, json!({"mcpServers": {"s": entry}}).to_string())?;
    let out = std::process::Command::new(bin)
        .args(["test", "--json", "-c"])
        .arg(&config)
        .env("SWITCHBOARD_DATA", dir.join("data"))
        .output()
        .context("run switchboard test")?;
    let reports: Value = serde_json::from_slice(&out.stdout)
        .with_context(|| String::from_utf8_lossy(&out.stderr).into_owned())?;
    let report = &reports[0];
    anyhow::ensure!(report["status"] == "ready", "not ready: {report}");
    Ok(report["elapsed_ms"].as_f64().unwrap_or_default())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);
    let bin = procs::release_dir()?.join("switchboard");
    let dir = tempfile::tempdir()?;
    println!(
        "sandbox-start: start, initialize, discovery, stop; {rounds} rounds alternating (medians)"
    );
    println!(
        "{:<12} {:>12} {:>12} {:>10}",
        "server", "sandboxed", "unconfined", "added"
    );
    for (name, entry) in servers()? {
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // Alternate which goes first, so neither always meets a warm cache.
            for sandbox in [round % 2 == 0, round % 2 != 0] {
                let ms = start_once(&bin, dir.path(), &entry, sandbox)?;
                match sandbox {
                    true => on.push(ms),
                    false => off.push(ms),
                }
            }
        }
        let (on, off) = (median(on), median(off));
        println!(
            "{name:<12} {on:>9.0} ms {off:>9.0} ms {:>+7.0} ms",
            on - off
        );
    }
    Ok(())
}
