//! Issue 15's audit durability, measured: for `buffered` and `strict`, `BENCH_CALLERS` (32)
//! lean callers (raw JSON-RPC, one session each) call `echo` through `switchboard serve`
//! (SQLite store) for `BENCH_SECONDS` (3); their throughput and the gateway's CPU per call
//! are read, then the gateway is killed with SIGKILL while the calls are in flight. The audit
//! rows in its database are then counted against the calls that were answered: rows missing
//! are what a `kill -9` lost, also said in milliseconds of answers at the measured rate.
//! `BENCH_ROUNDS` (5) rounds per mode, alternating; medians and worst cases printed.
//!
//! Run: `cargo build --release -p switchboard -p switchboard-testkit -p switchboard-bench`,
//! then `target/release/audit-exposure`.

#[path = "../procs.rs"]
#[allow(dead_code)]
mod procs;
#[path = "../raw.rs"]
#[allow(dead_code)]
mod raw;

use anyhow::Context;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use switchboard_store::{AuditFilter, SqlStore, Store};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What one round measured.
struct Round {
    calls_per_s: f64,
    cpu_us_per_call: f64,
    answered: u64,
    rows: u64,
}

impl Round {
    fn lost(&self) -> u64 {
        self.answered.saturating_sub(self.rows)
    }
    /// The lost rows as milliseconds of answers at this round's rate.
    fn lost_ms(&self) -> f64 {
        self.lost() as f64 / self.calls_per_s * 1e3
    }
}

async fn round(bin: &std::path::Path, durability: &str) -> anyhow::Result<Round> {
    let callers = env_usize("BENCH_CALLERS", 32);
    let seconds = env_usize("BENCH_SECONDS", 3) as u64;
    let dir = tempfile::tempdir()?;
    let upstream = procs::echo_http(bin).await?;
    let config = dir.path().join("echo.json");
    let servers = json!({"mcpServers": {"echo": {"type": "http", "url": upstream.url}}});
    std::fs::write(&config, serde_json::to_vec(&servers)?)?;
    let audit = dir.path().join("switchboard.toml");
    std::fs::write(&audit, format!("[audit]\ndurability = \"{durability}\"\n"))?;
    let data = dir.path().join("data");
    let gateway = procs::serve(
        &bin.join("switchboard"),
        &[&config, &audit],
        &data,
        &[],
        "switchboard ready: ",
    )
    .await?;

    let answered = Arc::new(AtomicU64::new(0));
    let measuring = Arc::new(AtomicBool::new(false));
    let measured = Arc::new(AtomicU64::new(0));
    let mut workers = Vec::new();
    for _ in 0..callers {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()?;
        let mut session = raw::RawSession::open(http, &gateway.url).await?;
        let (answered, measuring, measured) =
            (answered.clone(), measuring.clone(), measured.clone());
        workers.push(tokio::spawn(async move {
            let call = json!({"name": "echo__echo", "arguments": {"text": "ping"}});
            // Until the gateway dies: only whole, successful answers count.
            while let Ok(body) = session.request("tools/call", call.clone()).await {
                if !body.contains("ping") || body.contains("\"isError\":true") {
                    break;
                }
                answered.fetch_add(1, Ordering::Relaxed);
                if measuring.load(Ordering::Relaxed) {
                    measured.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    // Warm up, then measure a steady stretch, then kill in the middle of the load.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pids = [("gateway", gateway.pid)];
    let cpu_before = procs::cpu_times(&pids);
    let started = Instant::now();
    measuring.store(true, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    measuring.store(false, Ordering::Relaxed);
    let elapsed = started.elapsed();
    let cpu = procs::cpu_delta(&cpu_before, &procs::cpu_times(&pids));
    // SAFETY: kill has no memory-safety preconditions; the pid is our child's.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(gateway.pid as i32, libc::SIGKILL)
    };
    for worker in workers {
        let _ = worker.await;
    }
    let answered = answered.load(Ordering::Relaxed);
    let measured = measured.load(Ordering::Relaxed).max(1);
    drop(gateway);

    let store = SqlStore::open_sqlite(&data)
        .await
        .context("open the killed gateway's database")?;
    let filter = AuditFilter {
        server: Some("echo".into()),
        limit: Some(i64::MAX),
        ..Default::default()
    };
    let rows = store.audit(&filter).await?.len() as u64;
    Ok(Round {
        calls_per_s: measured as f64 / elapsed.as_secs_f64(),
        cpu_us_per_call: cpu
            .get("gateway")
            .copied()
            .unwrap_or_default()
            .as_secs_f64()
            * 1e6
            / measured as f64,
        answered,
        rows,
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let bin = procs::release_dir()?;
    let rounds = env_usize("BENCH_ROUNDS", 5);
    let modes = ["buffered", "strict"];
    let mut results: Vec<Vec<Round>> = modes.iter().map(|_| Vec::new()).collect();
    for r in 0..rounds {
        for (i, mode) in modes.iter().enumerate() {
            let one = round(&bin, mode).await?;
            println!(
                "round {} {mode:>8}: {:>7.0} calls/s, {:>5.0} us CPU/call, {} answered, {} rows, {} lost ({:.1} ms)",
                r + 1,
                one.calls_per_s,
                one.cpu_us_per_call,
                one.answered,
                one.rows,
                one.lost(),
                one.lost_ms()
            );
            results[i].push(one);
        }
    }
    println!(
        "\nmode      calls/s (median)  CPU us/call (median)  rows lost by kill -9: median, worst (ms of answers)"
    );
    for (mode, rounds) in modes.iter().zip(&results) {
        let rate = procs::median(rounds.iter().map(|r| r.calls_per_s).collect());
        let cpu = procs::median(rounds.iter().map(|r| r.cpu_us_per_call).collect());
        let lost = procs::median(rounds.iter().map(|r| r.lost()).collect());
        let worst = rounds.iter().max_by_key(|r| r.lost()).context("a round")?;
        let lost_ms = procs::median(rounds.iter().map(|r| r.lost_ms()).collect());
        println!(
            "{mode:<9} {rate:>16.0}  {cpu:>20.0}  {lost} ({lost_ms:.1} ms), worst {} ({:.1} ms)",
            worst.lost(),
            worst.lost_ms()
        );
    }
    Ok(())
}
