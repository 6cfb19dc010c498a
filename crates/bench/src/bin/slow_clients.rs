//! Issue 15's connection bounds against slow clients: `BENCH_CONNECTIONS` (default 8,000)
//! connections from 127.0.0.1 that each send part of a request head and stall (slowloris),
//! against `switchboard serve` with its default limits. Prints the gateway's RSS, its open
//! connections and refusals, whether a second client (127.0.0.2) still opens a session and
//! calls a tool meanwhile and how long that took, and how long until the listener has closed
//! every stalled connection (`header_read_secs`, 15 s by default).
//!
//! Run: `cargo build --release -p switchboard -p switchboard-testkit -p switchboard-bench`,
//! then `target/release/slow-clients` (BENCH_SWITCHBOARD=/path/to/an older switchboard
//! measures that one instead).

#[path = "../procs.rs"]
#[allow(dead_code)]
mod procs;
#[path = "../raw.rs"]
mod raw;

use anyhow::Context;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// How a stalled connection ended: the first line the gateway answered, or how it closed.
async fn ending(mut tcp: tokio::net::TcpStream, limit: Duration) -> String {
    let mut reply = Vec::new();
    match tokio::time::timeout(limit, tcp.read_to_end(&mut reply)).await {
        Err(_) => "still open".into(),
        Ok(Err(_)) => "reset".into(),
        Ok(Ok(_)) if reply.is_empty() => "closed without an answer".into(),
        Ok(Ok(_)) => String::from_utf8_lossy(&reply)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string(),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let bin = procs::release_dir()?;
    let count = env_usize("BENCH_CONNECTIONS", 8_000);
    let setup = procs::EchoGateway::start(&bin).await?;
    let gateway = &setup.gateway;
    let start_rss = procs::rss_kib(gateway.pid).context("the gateway exited")?;
    let address = gateway
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();

    let started = Instant::now();
    let mut stalled = Vec::with_capacity(count);
    let mut failed_connects = 0;
    for _ in 0..count {
        match tokio::net::TcpStream::connect(&address).await {
            Ok(mut tcp) => {
                let part = format!("POST /mcp HTTP/1.1\r\nhost: {address}\r\n");
                if tcp.write_all(part.as_bytes()).await.is_ok() {
                    stalled.push(tcp);
                }
            }
            Err(_) => failed_connects += 1,
        }
    }
    let opened_in = started.elapsed();
    let endings: Vec<_> = stalled
        .into_iter()
        .map(|tcp| tokio::spawn(ending(tcp, Duration::from_secs(120))))
        .collect();

    // A second client, on another loopback address, is served meanwhile.
    let second = raw::second_client_served(&gateway.url).await;
    let other = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()?;
    let during_rss = procs::rss_kib(gateway.pid).context("the gateway exited")?;
    let metrics = gateway.url.replace("/mcp", "/metrics");
    let scrape = other.get(&metrics).send().await?.text().await?;
    let figure = raw::metric_lines;

    let mut ends: BTreeMap<String, usize> = BTreeMap::new();
    for ending in endings {
        *ends.entry(ending.await?).or_default() += 1;
    }
    let all_closed_in = started.elapsed();
    let end_rss = procs::rss_kib(gateway.pid).context("the gateway exited")?;
    let after = other.get(&metrics).send().await?.text().await?;

    println!(
        "slow clients: {count} connections from 127.0.0.1 sending part of a request head, opened in {:.1} s ({failed_connects} failed to connect)",
        opened_in.as_secs_f64()
    );
    println!(
        "  gateway RSS: {:.1} MiB at start, {:.1} MiB with the connections open, {:.1} MiB once they were closed",
        start_rss as f64 / 1024.0,
        during_rss as f64 / 1024.0,
        end_rss as f64 / 1024.0
    );
    println!(
        "  while open: {}",
        figure(&scrape, "switchboard_http_connections")
    );
    println!("  {second}");
    println!(
        "  how the stalled connections ended, all within {:.1} s of the first: {ends:?}",
        all_closed_in.as_secs_f64()
    );
    println!(
        "  after: {}",
        figure(&after, "switchboard_http_refusals_total")
    );
    Ok(())
}
