//! Issue 15's session bound: `BENCH_ATTEMPTS` (default 100,000) `initialize` requests from one
//! client address, never closed, against `switchboard serve` with its default limits; then
//! the peak and final RSS, the answers by status, and whether a second client (127.0.0.2)
//! still opens a session and calls a tool, and how long that took.
//!
//! Run: `cargo build --release -p switchboard -p switchboard-testkit -p switchboard-bench`,
//! then `target/release/session-flood` (BENCH_SWITCHBOARD=/path/to/an older switchboard
//! measures that one instead; BENCH_CONCURRENCY, default 32).

#[path = "../procs.rs"]
#[allow(dead_code)]
mod procs;
#[path = "../raw.rs"]
mod raw;

use anyhow::Context;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Peak resident memory of `pid` in KiB (VmHWM).
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let bin = procs::release_dir()?;
    let attempts = env_usize("BENCH_ATTEMPTS", 100_000);
    let concurrency = env_usize("BENCH_CONCURRENCY", 32);
    let setup = procs::EchoGateway::start(&bin).await?;
    let gateway = &setup.gateway;
    let start_rss = procs::rss_kib(gateway.pid).context("the gateway exited")?;

    let http = reqwest::Client::new();
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..concurrency {
        let (http, next, url) = (http.clone(), next.clone(), gateway.url.clone());
        workers.push(tokio::spawn(async move {
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": raw::VERSION, "capabilities": {},
                "clientInfo": {"name": "flood", "version": "1"}}});
            let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
            while next.fetch_add(1, Ordering::Relaxed) < attempts {
                let sent = http
                    .post(&url)
                    .header("accept", "application/json, text/event-stream")
                    .json(&init)
                    .send()
                    .await;
                let status = match sent {
                    Ok(response) => {
                        let status = response.status().as_u16();
                        let _ = response.bytes().await;
                        status
                    }
                    Err(_) => 0,
                };
                *statuses.entry(status).or_default() += 1;
            }
            statuses
        }));
    }
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    for worker in workers {
        for (status, n) in worker.await? {
            *statuses.entry(status).or_default() += n;
        }
    }
    let took = started.elapsed();
    let end_rss = procs::rss_kib(gateway.pid).context("the gateway exited")?;
    let peak = peak_kib(gateway.pid).context("the gateway exited")?;

    // A second client, on another loopback address, still gets in and is served.
    let second = raw::second_client_served(&gateway.url).await;
    let scrape = reqwest::get(gateway.url.replace("/mcp", "/metrics"))
        .await?
        .text()
        .await?;
    let figure = |name: &str| raw::metric_lines(&scrape, name);

    println!(
        "session flood: {attempts} initialize attempts from 127.0.0.1, {concurrency} at a time, in {:.1} s ({:.0}/s)",
        took.as_secs_f64(),
        attempts as f64 / took.as_secs_f64()
    );
    println!("  answers by HTTP status (0 = transport error): {statuses:?}");
    println!(
        "  gateway RSS: {:.1} MiB at start, {:.1} MiB peak, {:.1} MiB after (aim < 200 MiB)",
        start_rss as f64 / 1024.0,
        peak as f64 / 1024.0,
        end_rss as f64 / 1024.0
    );
    // jemalloc's background threads give freed pages back over its decay time (10 s).
    tokio::time::sleep(std::time::Duration::from_secs(20)).await;
    let settled = procs::rss_kib(gateway.pid).context("the gateway exited")?;
    println!(
        "  gateway RSS 20 s later: {:.1} MiB",
        settled as f64 / 1024.0
    );
    println!("  {}", figure("switchboard_downstream_sessions"));
    println!(
        "  {}",
        figure("switchboard_downstream_session_refusals_total")
    );
    println!("  {second}");
    Ok(())
}
