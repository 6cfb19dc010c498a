//! Issue 13's footprint figures for `switchboard serve` (release build, SQLite store): memory
//! per idle downstream session, `tools/list` of 10,000 tools over `/mcp`, and cold start with
//! 50 lazy stdio servers whose snapshots are already in the store (until `/readyz` answers 200).
//!
//! Run: `cargo build --release -p switchboard -p switchboard-testkit -p switchboard-bench`,
//! then `target/release/footprint` (BENCH_SESSIONS, default 2000; BENCH_SWITCHBOARD=/path/to/an
//! older switchboard measures that one instead).

#[path = "../procs.rs"]
#[allow(dead_code)]
mod procs;
#[path = "../raw.rs"]
mod raw;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

async fn serve(bin: &Path, config: &Path, data: &Path) -> anyhow::Result<procs::Spawned> {
    // Printed once every server has been tried (lazy ones with a snapshot count as idle).
    procs::serve(bin, &[config], data, &[], "switchboard ready: ").await
}

/// The gateway under test: this build's, or `BENCH_SWITCHBOARD` (an older build).
fn switchboard(bin: &Path) -> std::path::PathBuf {
    std::env::var_os("BENCH_SWITCHBOARD")
        .map(Into::into)
        .unwrap_or_else(|| bin.join("switchboard"))
}

fn write_config(path: &Path, servers: Value) -> anyhow::Result<()> {
    std::fs::write(path, serde_json::to_vec(&json!({"mcpServers": servers}))?)?;
    Ok(())
}

/// RSS growth per session of the process `pid` serving `url`, over `n` idle sessions.
async fn per_session_kib(url: &str, pid: u32, n: usize) -> anyhow::Result<(u64, u64, f64)> {
    let http = reqwest::Client::new();
    // Warm up: the first sessions allocate what every later one reuses.
    for _ in 0..50 {
        raw::RawSession::open(http.clone(), url).await?;
    }
    let before = procs::rss_kib(pid).context("the gateway exited")?;
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        ids.push(raw::RawSession::open(http.clone(), url).await?);
    }
    let after = procs::rss_kib(pid).context("the gateway exited")?;
    Ok((
        before,
        after,
        after.saturating_sub(before) as f64 / n as f64,
    ))
}

/// When sessions idle since they opened are parked, with the default settings.
const PARKED_BY: Duration = Duration::from_secs(70);

async fn idle_sessions(
    bin: &Path,
    dir: &Path,
    upstream: &procs::Spawned,
    n: usize,
) -> anyhow::Result<()> {
    let config = dir.join("idle.json");
    write_config(
        &config,
        json!({"echo": {"type": "http", "url": upstream.url}}),
    )?;
    let gateway = serve(&switchboard(bin), &config, &dir.join("idle")).await?;
    let (before, after, per) = per_session_kib(&gateway.url, gateway.pid, n).await?;
    println!(
        "idle sessions: {n} opened, RSS {before} -> {after} KiB: {per:.1} KiB per session in its first minute"
    );
    // Parked after 60 s with nothing open (the default `session_park_secs`), looked for every
    // 10 s; jemalloc's background threads then return the pages over its decay time (10 s).
    // RSS is read until it stops falling (5 s without a 1 % drop), at most 3 minutes.
    tokio::time::sleep(PARKED_BY).await;
    let started = Instant::now();
    let mut parked = procs::rss_kib(gateway.pid).context("the gateway exited")?;
    let mut steady = 0;
    while steady < 5 && started.elapsed() < Duration::from_secs(180) {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = procs::rss_kib(gateway.pid).context("the gateway exited")?;
        steady = if now * 100 < parked * 99 {
            0
        } else {
            steady + 1
        };
        parked = parked.min(now);
    }
    let waited = PARKED_BY + started.elapsed();
    let per = parked.saturating_sub(before) as f64 / n as f64;
    println!(
        "  the same {n} sessions parked ({:.0} s later): RSS {parked} KiB: {per:.1} KiB per idle session (aim <= 16)",
        waited.as_secs_f64()
    );
    // The same on the rmcp echo server itself (rmcp's LocalSessionManager, glibc malloc).
    let (before, after, per) = per_session_kib(&upstream.url, upstream.pid, n).await?;
    println!(
        "  for scale, the rmcp echo server alone: RSS {before} -> {after} KiB: {per:.1} KiB per idle session"
    );
    Ok(())
}

async fn big_catalogue(bin: &Path, dir: &Path) -> anyhow::Result<()> {
    let upstream = procs::Spawned::start(
        bin.join("echo-server"),
        &["--http", "127.0.0.1:0", "--extra-tools", "10000"],
        "listening on ",
        None,
    )
    .await?;
    // One server with 10,001 tools, over the default max_tools_per_server (1000). The echo
    // server pages them 10 at a time and builds its whole list for each page: its 1,001 pages
    // took 31 s on 2026-11-29, past the default 15 s timeout, which covers the whole discovery.
    let config = dir.join("big.toml");
    let toml = format!(
        "[limits]\nmax_tools_per_server = 20000\n\n[servers.big]\ntype = \"http\"\nurl = \"{}\"\ntimeout_ms = 180000\n",
        upstream.url
    );
    std::fs::write(&config, toml)?;
    let gateway = serve(&switchboard(bin), &config, &dir.join("big")).await?;
    let mut session = raw::RawSession::open(reqwest::Client::new(), &gateway.url).await?;
    let mut times = Vec::new();
    for round in 0..60 {
        let started = Instant::now();
        let body = session.request("tools/list", json!({})).await?;
        let took = started.elapsed();
        ensure!(
            body.contains("big__t_9999"),
            "tools/list lacks the last tool"
        );
        if round >= 10 {
            times.push(took);
        }
    }
    println!(
        "tools/list of 10,001 tools over /mcp: p50 {:?} over 50 calls (aim < 5 ms)",
        procs::median(times)
    );
    Ok(())
}

async fn cold_start(bin: &Path, dir: &Path) -> anyhow::Result<()> {
    let echo = bin.join("echo-server");
    let servers: serde_json::Map<String, Value> = (0..50)
        .map(|i| (format!("s{i}"), json!({"command": echo, "lazy": true})))
        .collect();
    let config = dir.join("lazy.json");
    write_config(&config, Value::Object(servers))?;
    let data = dir.join("lazy");
    // The first start discovers every server and keeps its snapshot in the store.
    drop(serve(&switchboard(bin), &config, &data).await?);
    let http = reqwest::Client::new();
    let mut times = Vec::new();
    for _ in 0..5 {
        let port = procs::free_port()?;
        let listen = format!("127.0.0.1:{port}");
        let started = Instant::now();
        let mut child = tokio::process::Command::new(switchboard(bin))
            .args([
                "serve", "--dev", "--listen", &listen, "--log", "warn", "--data",
            ])
            .arg(&data)
            .arg("-c")
            .arg(&config)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let ready = format!("http://{listen}/readyz");
        loop {
            // A bench's poll, 1 ms apart: the figure is at most that coarse.
            if let Ok(r) = http.get(&ready).send().await
                && r.status().is_success()
            {
                break;
            }
            ensure!(started.elapsed() < Duration::from_secs(30), "never ready");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        times.push(started.elapsed());
        child.kill().await?;
    }
    println!(
        "cold start, 50 lazy stdio servers with snapshots: /readyz 200 after {:?} (median of 5; aim < 50 ms)",
        procs::median(times)
    );
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let sessions = std::env::var("BENCH_SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let bin = procs::release_dir()?;
    let dir = tempfile::tempdir()?;
    let upstream = procs::echo_http(&bin).await?;
    idle_sessions(&bin, dir.path(), &upstream, sessions).await?;
    big_catalogue(&bin, dir.path()).await?;
    cold_start(&bin, dir.path()).await?;
    Ok(())
}
