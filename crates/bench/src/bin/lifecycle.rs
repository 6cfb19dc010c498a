//! Lifecycle figures: processes and memory of `switchboard serve` with 50 stdio servers
//! (mcp-server-time from PyPI) started eagerly versus lazily, the first call to a lazy server,
//! and the time from an upstream tools/list_changed to the downstream notification.

#[path = "../procs.rs"]
#[allow(dead_code)]
mod procs;

use anyhow::Context;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

const SERVERS: usize = 50;
const LIST_CHANGED_ROUNDS: usize = 20;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> anyhow::Result<PathBuf> {
    let python = repo().join(".fixtures/venv/bin/python");
    anyhow::ensure!(
        python.exists(),
        "{} is missing: run scripts/fixtures.sh",
        python.display()
    );
    Ok(python)
}

/// The gateway and every process below it: (processes, total RSS in KiB).
fn tree(root: u32) -> (usize, u64) {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(rest) = stat.rsplit_once(')').map(|r| r.1) else {
            continue;
        };
        let ppid: u32 = rest
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        parents.push((pid, ppid));
    }
    let mut members = vec![root];
    let mut i = 0;
    while i < members.len() {
        let parent = members[i];
        members.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    let rss: u64 = members.iter().filter_map(|pid| procs::rss_kib(*pid)).sum();
    (members.len(), rss)
}

async fn serve(config: &Path, data: &Path) -> anyhow::Result<(procs::Spawned, Duration)> {
    let started = Instant::now();
    let gateway = procs::Spawned::start(
        procs::release_dir()?.join("switchboard"),
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "-c",
            config.to_str().context("path")?,
            "--data",
            data.to_str().context("path")?,
        ],
        "switchboard listening on ",
        Some("switchboard ready: "),
    )
    .await?;
    Ok((gateway, started.elapsed()))
}

async fn client(
    url: &str,
    changed: mpsc::Sender<Instant>,
) -> anyhow::Result<rmcp::service::RunningService<RoleClient, Watcher>> {
    Ok(Watcher(changed)
        .serve(StreamableHttpClientTransport::with_client(
            reqwest::Client::new(),
            StreamableHttpClientTransportConfig::with_uri(url.to_string()),
        ))
        .await?)
}

struct Watcher(mpsc::Sender<Instant>);

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.try_send(Instant::now());
    }
}

async fn timed_call(
    client: &rmcp::service::RunningService<RoleClient, Watcher>,
    tool: &str,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let result = client
        .call_tool(
            CallToolRequestParams::new(tool.to_string())
                .with_arguments(json!({"timezone": "UTC"}).as_object().unwrap().clone()),
        )
        .await?;
    anyhow::ensure!(result.is_error != Some(true), "{tool} failed: {result:?}");
    Ok(started.elapsed())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let python = python()?;
    let dir = tempfile::tempdir()?;
    let write = |name: &str, lazy: bool| -> anyhow::Result<PathBuf> {
        let servers: serde_json::Map<String, serde_json::Value> = (0..SERVERS)
            .map(|i| {
                (
                    format!("time{i}"),
                    json!({"command": python, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"], "lazy": lazy}),
                )
            })
            .collect();
        let path = dir.path().join(name);
        std::fs::write(&path, json!({ "mcpServers": servers }).to_string())?;
        Ok(path)
    };
    println!("lifecycle: {SERVERS} stdio servers (mcp-server-time), switchboard serve (release)");
    println!("| start | ready after | processes (gateway + children) | RSS total |");
    println!("|---|---|---|---|");

    let (eager, took) = serve(&write("eager.json", false)?, &dir.path().join("eager")).await?;
    let (procs_eager, rss_eager) = tree(eager.pid);
    println!(
        "| eager | {took:.1?} | {procs_eager} | {} MiB |",
        rss_eager / 1024
    );
    let (changed_tx, _changed) = mpsc::channel(64);
    let warm_client = client(&eager.url, changed_tx).await?;
    let mut warm = Vec::new();
    for i in 0..10 {
        warm.push(timed_call(&warm_client, &format!("time{i}__get_current_time")).await?);
    }
    drop(warm_client);
    drop(eager);

    let lazy_config = write("lazy.json", true)?;
    let data = dir.path().join("lazy");
    let (first, took) = serve(&lazy_config, &data).await?;
    let (procs_first, rss_first) = tree(first.pid);
    println!(
        "| lazy, first run (discovers, saves snapshots, stops) | {took:.1?} | {procs_first} | {} MiB |",
        rss_first / 1024
    );
    drop(first);
    let (lazy, took) = serve(&lazy_config, &data).await?;
    let (procs_lazy, rss_lazy) = tree(lazy.pid);
    println!(
        "| lazy, from snapshots | {took:.1?} | {procs_lazy} | {} MiB |",
        rss_lazy / 1024
    );
    let (changed_tx, _changed) = mpsc::channel(64);
    let cold_client = client(&lazy.url, changed_tx).await?;
    let mut cold = Vec::new();
    for i in 0..10 {
        cold.push(timed_call(&cold_client, &format!("time{i}__get_current_time")).await?);
    }
    let (procs_after, rss_after) = tree(lazy.pid);
    drop(cold_client);
    drop(lazy);
    println!(
        "| lazy, after calls to 10 servers | | {procs_after} | {} MiB |",
        rss_after / 1024
    );
    println!();
    println!(
        "call to a running server (eager, median of 10): {:.1?}; first call to a lazy server (starts it, median of 10): {:.1?}",
        procs::median(warm),
        procs::median(cold)
    );

    // tools/list_changed from upstream to the downstream session.
    let fixture = repo().join("tests/fixtures/misbehaving_server.py");
    let path = dir.path().join("fx.json");
    std::fs::write(
        &path,
        json!({"mcpServers": {"fx": {"command": python, "args": [fixture]}}}).to_string(),
    )?;
    let (gateway, _) = serve(&path, &dir.path().join("fx")).await?;
    let (changed_tx, mut changed) = mpsc::channel(64);
    let watcher = client(&gateway.url, changed_tx).await?;
    let mut latencies = Vec::new();
    for _ in 0..LIST_CHANGED_ROUNDS {
        let asked = Instant::now();
        watcher
            .call_tool(CallToolRequestParams::new("fx__add_tool"))
            .await?;
        let heard = tokio::time::timeout(Duration::from_secs(10), changed.recv())
            .await
            .context("no list_changed downstream")?
            .context("client gone")?;
        latencies.push(heard.duration_since(asked));
        // Let the re-discovery settle before the next round.
        while tokio::time::timeout(Duration::from_millis(200), changed.recv())
            .await
            .is_ok()
        {}
    }
    println!(
        "upstream tools/list_changed → downstream notification (add_tool call start to notification, median of {LIST_CHANGED_ROUNDS}): {:.1?} (min {:.1?}, max {:.1?})",
        procs::median(latencies.clone()),
        latencies.iter().min().unwrap(),
        latencies.iter().max().unwrap()
    );
    drop(watcher);
    drop(gateway);
    Ok(())
}
