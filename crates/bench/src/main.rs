//! End-to-end overhead: an rmcp echo server on loopback, called directly and through
//! `switchboard serve`, sequentially and with concurrent callers; prints p50/p99 latency,
//! calls/s, CPU time per call, and the gateway/direct ratios.
//!
//! Run with `scripts/bench.sh` (builds the release binaries first).

#[allow(dead_code)] // each bench binary uses part of it
mod procs;
mod stats;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use stats::{Phase, Summary};
use std::time::{Duration, Instant};

struct Settings {
    sequential_calls: usize,
    callers: usize,
    calls_per_caller: usize,
    rounds: usize,
}

fn settings() -> Settings {
    let get = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    Settings {
        sequential_calls: get("BENCH_SEQUENTIAL_CALLS", 2000),
        callers: get("BENCH_CALLERS", 32),
        calls_per_caller: get("BENCH_CALLS_PER_CALLER", 200),
        rounds: get("BENCH_ROUNDS", 3),
    }
}

type Client = RunningService<RoleClient, ()>;

async fn connect(url: &str) -> anyhow::Result<Client> {
    Ok(
        ().serve(StreamableHttpClientTransport::from_uri(url.to_string()))
            .await?,
    )
}

async fn call(client: &Client, tool: &str) -> anyhow::Result<Duration> {
    let args = serde_json::json!({"text": "ping"});
    let started = Instant::now();
    let result = client
        .call_tool(
            CallToolRequestParams::new(tool.to_string())
                .with_arguments(args.as_object().cloned().unwrap_or_default()),
        )
        .await?;
    let elapsed = started.elapsed();
    anyhow::ensure!(result.is_error != Some(true), "call failed: {result:?}");
    Ok(elapsed)
}

async fn sequential(url: &str, tool: &str, n: usize) -> anyhow::Result<Vec<Duration>> {
    let client = connect(url).await?;
    for _ in 0..100 {
        call(&client, tool).await?;
    }
    let mut latencies = Vec::with_capacity(n);
    for _ in 0..n {
        latencies.push(call(&client, tool).await?);
    }
    client.cancel().await?;
    Ok(latencies)
}

async fn concurrent(
    url: &str,
    tool: &str,
    s: &Settings,
) -> anyhow::Result<(Vec<Duration>, Duration)> {
    let mut clients = Vec::with_capacity(s.callers);
    for _ in 0..s.callers {
        let client = connect(url).await?;
        call(&client, tool).await?;
        clients.push(client);
    }
    let started = Instant::now();
    let per_caller = s.calls_per_caller;
    let results = futures::future::join_all(clients.iter().map(|client| async move {
        let mut latencies = Vec::with_capacity(per_caller);
        for _ in 0..per_caller {
            latencies.push(call(client, tool).await?);
        }
        anyhow::Ok(latencies)
    }))
    .await;
    let wall = started.elapsed();
    let mut all = Vec::new();
    for r in results {
        all.extend(r?);
    }
    for client in clients {
        client.cancel().await?;
    }
    Ok((all, wall))
}

async fn measure(
    label: &'static str,
    url: &str,
    tool: &str,
    pids: &[(&'static str, u32)],
    s: &Settings,
) -> anyhow::Result<(Phase, Phase)> {
    let before = procs::cpu_times(pids);
    let started = Instant::now();
    let seq = sequential(url, tool, s.sequential_calls).await?;
    let seq_wall = started.elapsed();
    let seq_cpu = procs::cpu_delta(&before, &procs::cpu_times(pids));
    let before = procs::cpu_times(pids);
    let (conc, conc_wall) = concurrent(url, tool, s).await?;
    let conc_cpu = procs::cpu_delta(&before, &procs::cpu_times(pids));
    Ok((
        Phase::new(label, "sequential", seq, seq_wall, seq_cpu),
        Phase::new(label, "concurrent", conc, conc_wall, conc_cpu),
    ))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let s = settings();
    let bin = procs::release_dir()?;
    let upstream = procs::echo_http(&bin).await?;
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("mcp.json");
    std::fs::write(
        &config,
        serde_json::to_vec(&serde_json::json!({
            "mcpServers": {"echo": {"type": "http", "url": upstream.url}}
        }))?,
    )?;
    let data = dir.path().join("data");
    let policy = dir.path().join("switchboard.toml");
    std::fs::write(&policy, realistic_policy())?;
    let gateway = start_gateway(&bin, &[&config], &data, false).await?;
    let unaudited = start_gateway(&bin, &[&config], &dir.path().join("data-noaudit"), true).await?;
    let guarded = start_gateway(
        &bin,
        &[&config, &policy],
        &dir.path().join("data-policy"),
        false,
    )
    .await?;
    let pids = [
        ("upstream", upstream.pid),
        ("gateway", gateway.pid),
        ("gateway", unaudited.pid),
        ("gateway", guarded.pid),
        ("bench", std::process::id()),
    ];

    println!(
        "e2e-overhead: {} sequential calls, {} callers x {} calls, {} rounds (median reported)",
        s.sequential_calls, s.callers, s.calls_per_caller, s.rounds
    );
    let mut phases = Vec::new();
    for round in 0..s.rounds {
        let (ds, dc) = measure("direct", &upstream.url, "echo", &pids, &s).await?;
        let (gs, gc) = measure("gateway", &gateway.url, "echo__echo", &pids, &s).await?;
        let (us, uc) = measure("no-audit", &unaudited.url, "echo__echo", &pids, &s).await?;
        let (ps, pc) = measure("policy", &guarded.url, "echo__echo", &pids, &s).await?;
        eprintln!("round {}/{} done", round + 1, s.rounds);
        phases.extend([ds, dc, gs, gc, us, uc, ps, pc]);
    }
    let summary = Summary::from_phases(&phases);
    print!("{}", summary.render());
    if std::env::var("BENCH_JSON").is_ok() {
        println!("{}", serde_json::to_string_pretty(&summary.to_json())?);
    }
    Ok(())
}

/// A realistic operator policy for the `policy` target: 20 rules (four on arguments, one
/// regular expression), a rate limit that never refuses here, information-flow control on.
fn realistic_policy() -> String {
    let mut text = String::from("[policy]\n");
    for i in 0..15 {
        text.push_str(&format!(
            "[[policy.rules]]\nname = \"deny-{i}\"\nactions = [\"mcp.svc{i}.delete_*\"]\neffect = \"deny\"\n"
        ));
    }
    for i in 0..4 {
        text.push_str(&format!(
            "[[policy.rules]]\nname = \"args-{i}\"\nactions = [\"mcp.echo.*\"]\nwhen = [{{ path = \"/amount\", gt = {} }}]\neffect = \"deny\"\n",
            1000 + i
        ));
    }
    text.push_str("[[policy.rules]]\nname = \"regex\"\nactions = [\"mcp.echo.echo\"]\nwhen = [{ path = \"/text\", matches = \"^drop table\" }]\neffect = \"deny\"\n");
    text.push_str("[[policy.rate_limits]]\nscope = \"org_action\"\nrate = \"1000000/s\"\n");
    text.push_str(
        "[policy.labels]\n\"mcp.echo.echo\" = [\"sends_external\"]\n[policy.ifc]\nenabled = true\n",
    );
    text
}

/// `switchboard serve` on a free loopback port, ready once its upstream is.
async fn start_gateway(
    bin: &std::path::Path,
    configs: &[&std::path::Path],
    data: &std::path::Path,
    no_audit: bool,
) -> anyhow::Result<procs::Spawned> {
    let extra: &[&str] = if no_audit { &["--no-audit"] } else { &[] };
    let ready = "switchboard ready: 1/1";
    procs::serve(&bin.join("switchboard"), configs, data, extra, ready).await
}
