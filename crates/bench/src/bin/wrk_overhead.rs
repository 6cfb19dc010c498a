//! The overhead bench as a user measures it: `wrk` with `scripts/bench/mcp_call.lua` (one MCP
//! session per connection, one connection per wrk thread) calling `echo` on the rmcp echo
//! server directly, through this build's `switchboard serve` (HTTP and stdio upstream) and
//! through agentgateway (HTTP and stdio upstream) when its binary is found, targets alternating
//! within each round. Prints per target the median over rounds of wrk's p50, the calls per
//! second, the ratio to direct, and CPU per call of the proxy process (for direct, the echo
//! server's own) and of wrk itself, from /proc.
//!
//! Run: `scripts/bench_wrk.sh` (builds, unpacks agentgateway, runs), or build
//! `-p switchboard -p switchboard-testkit -p switchboard-bench` in release and run
//! `target/release/wrk-overhead`. Knobs: BENCH_CALLERS (32), BENCH_SECONDS (5 per run),
//! BENCH_ROUNDS (3), BENCH_AGENTGATEWAY (its binary; none: without it), BENCH_WRK (`wrk`),
//! BENCH_REVISION (the protocol revision the sessions ask for, 2025-11-25), BENCH_BEFORE (an
//! earlier build's `switchboard`, measured too, in the same rounds: a change's before and after).

#[path = "../procs.rs"]
#[allow(dead_code)]
mod procs;

use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

struct Run {
    p50_us: f64,
    per_second: f64,
    server_cpu: Duration,
    wrk_cpu: Duration,
}

/// One wrk run of `seconds` with `callers` connections against `t`.
async fn run(
    wrk: &str,
    t: &Target,
    callers: usize,
    seconds: u64,
    revision: &str,
) -> anyhow::Result<Run> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/bench/mcp_call.lua");
    let pids = [("server", t.pid)];
    let before = procs::cpu_times(&pids);
    let wrk_before = procs::waited_children_cpu();
    let n = callers.to_string();
    let output = tokio::process::Command::new(wrk)
        .args(["-t", &n, "-c", &n, "-d", &format!("{seconds}s"), "-s"])
        .arg(&script)
        .args([t.url.as_str(), "--", t.tool, revision])
        .output()
        .await
        .with_context(|| format!("run {wrk} (Debian: apt install wrk)"))?;
    let wrk_cpu = procs::waited_children_cpu().saturating_sub(wrk_before);
    let cpu = procs::cpu_delta(&before, &procs::cpu_times(&pids));
    let stdout = String::from_utf8_lossy(&output.stdout);
    ensure!(output.status.success(), "wrk failed: {stdout}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("{\"calls\""))
        .with_context(|| format!("wrk printed no report: {stdout}"))?;
    // What the Lua script's `done` prints.
    let report: Value = serde_json::from_str(line)?;
    let number = |key: &str| report[key].as_f64().unwrap_or(0.0);
    let (calls, failures, socket_errors) =
        (number("calls"), number("failures"), number("socket_errors"));
    ensure!(
        failures == 0.0 && socket_errors == 0.0 && calls > 0.0,
        "{}: {failures} failed calls, {socket_errors} socket errors of {calls}",
        t.name,
    );
    Ok(Run {
        p50_us: number("p50_us"),
        per_second: calls / number("seconds"),
        server_cpu: cpu.get("server").copied().unwrap_or_default() / calls as u32,
        wrk_cpu: wrk_cpu / calls as u32,
    })
}

/// One process wrk calls.
struct Target {
    name: &'static str,
    url: String,
    tool: &'static str,
    pid: u32,
    _process: Option<procs::Spawned>,
}

impl Target {
    fn of(name: &'static str, process: procs::Spawned, tool: &'static str) -> Self {
        Self {
            name,
            url: process.url.clone(),
            tool,
            pid: process.pid,
            _process: Some(process),
        }
    }
}

/// agentgateway (`bin`) with one MCP backend, `backend` being its YAML flow mapping
/// (`mcp: {host: …}` or `stdio: {cmd: …}`); it exposes the single target's tool as `echo`.
async fn agentgateway(bin: &Path, backend: &str, dir: &Path) -> anyhow::Result<procs::Spawned> {
    let port = procs::free_port()?;
    let config = format!(
        "config: {{enableIpv6: false, adminAddr: \"off\", statsAddr: \"off\", readinessAddr: \"off\", logging: {{level: warn}}}}\n\
         binds:\n- port: {port}\n  listeners:\n  - routes:\n    - backends:\n      - mcp:\n          statefulMode: stateful\n          targets:\n          - name: echo\n            {backend}\n"
    );
    let path = dir.join(format!("agw-{port}.yaml"));
    std::fs::write(&path, config)?;
    let path = path.to_str().context("config path")?;
    let url = format!("http://127.0.0.1:{port}/mcp");
    procs::Spawned::start_on_port(bin.to_path_buf(), &["-f", path], port, url).await
}

async fn gateway(bin: &Path, config: &Path, data: &Path) -> anyhow::Result<procs::Spawned> {
    procs::serve(bin, &[config], data, &[], "switchboard ready: 1/1").await
}

fn write_config(dir: &Path, name: &str, entry: serde_json::Value) -> anyhow::Result<PathBuf> {
    let path = dir.join(name);
    std::fs::write(
        &path,
        serde_json::to_vec(&json!({"mcpServers": {"echo": entry}}))?,
    )?;
    Ok(path)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let get = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (callers, seconds, rounds) = (
        get("BENCH_CALLERS", 32) as usize,
        get("BENCH_SECONDS", 5),
        get("BENCH_ROUNDS", 3) as usize,
    );
    if rounds == 0 || seconds == 0 {
        bail!("BENCH_ROUNDS and BENCH_SECONDS must be at least 1");
    }
    let before = std::env::var_os("BENCH_BEFORE").map(PathBuf::from);
    if let Some(before) = &before {
        ensure!(
            before.is_file(),
            "BENCH_BEFORE: no file {}",
            before.display()
        );
    }
    let wrk = std::env::var("BENCH_WRK").unwrap_or_else(|_| "wrk".into());
    let revision = std::env::var("BENCH_REVISION").unwrap_or_else(|_| "2025-11-25".into());
    let bin = procs::release_dir()?;
    let echo = bin.join("echo-server");
    let upstream = procs::echo_http(&bin).await?;
    let dir = tempfile::tempdir()?;
    let switchboard = bin.join("switchboard");
    let http_config = write_config(dir.path(), "http.json", json!({"url": upstream.url}))?;
    let stdio_config = write_config(
        dir.path(),
        "stdio.json",
        json!({"command": echo, "lazy": false}),
    )?;
    let mut targets = vec![Target {
        name: "direct",
        url: upstream.url.clone(),
        tool: "echo",
        pid: upstream.pid,
        _process: None,
    }];
    // This build, then the earlier one if named: each over HTTP and over stdio.
    let mut builds = vec![(
        switchboard,
        ["Switchboard, HTTP upstream", "Switchboard, stdio upstream"],
    )];
    builds.extend(before.map(|b| (b, ["before, HTTP upstream", "before, stdio upstream"])));
    for (k, (build, names)) in builds.iter().enumerate() {
        for (name, config) in names.iter().zip([&http_config, &stdio_config]) {
            let data = dir.path().join(format!("{k}-{}", targets.len()));
            let served = gateway(build, config, &data).await?;
            targets.push(Target::of(name, served, "echo__echo"));
        }
    }
    match std::env::var_os("BENCH_AGENTGATEWAY").map(PathBuf::from) {
        Some(agw) => {
            let backend = format!("mcp: {{host: \"{}\"}}", upstream.url);
            let peer = agentgateway(&agw, &backend, dir.path()).await?;
            targets.push(Target::of("agentgateway, HTTP upstream", peer, "echo"));
            let echo = echo.to_str().context("echo-server path")?;
            let backend = format!("stdio: {{cmd: \"{echo}\", args: []}}");
            let peer = agentgateway(&agw, &backend, dir.path()).await?;
            targets.push(Target::of("agentgateway, stdio upstream", peer, "echo"));
        }
        None => println!("(no agentgateway: set BENCH_AGENTGATEWAY, or run scripts/bench_wrk.sh)"),
    }
    println!(
        "wrk-overhead: wrk + scripts/bench/mcp_call.lua, revision {revision}, {seconds} s per run, {rounds} rounds alternating targets (medians)"
    );
    for (mode, n) in [("1 caller", 1), ("32 callers", callers)] {
        let mut rows: Vec<Vec<Run>> = targets.iter().map(|_| Vec::new()).collect();
        for round in 0..rounds {
            // Each round starts at another target, so none is always first.
            for k in 0..targets.len() {
                let i = (round + k) % targets.len();
                rows[i].push(run(&wrk, &targets[i], n, seconds, &revision).await?);
            }
        }
        print_table(mode, n, &targets, &rows);
    }
    Ok(())
}

fn print_table(mode: &str, callers: usize, targets: &[Target], rows: &[Vec<Run>]) {
    let median_of = |runs: &[Run], f: &dyn Fn(&Run) -> f64| {
        procs::median(runs.iter().map(f).collect::<Vec<f64>>())
    };
    println!("\n{mode} ({callers} connections, one session each)");
    println!(
        "{:<30} {:>8} {:>9} {:>9} {:>9} {:>12} {:>10}",
        "target", "p50 µs", "added µs", "calls/s", "× direct", "server CPU", "wrk CPU"
    );
    let direct_p50 = median_of(&rows[0], &|r| r.p50_us);
    let direct_rate = median_of(&rows[0], &|r| r.per_second);
    for (t, runs) in targets.iter().zip(rows) {
        let p50 = median_of(runs, &|r| r.p50_us);
        let rate = median_of(runs, &|r| r.per_second);
        let server = median_of(runs, &|r| r.server_cpu.as_secs_f64() * 1e6);
        let wrk = median_of(runs, &|r| r.wrk_cpu.as_secs_f64() * 1e6);
        println!(
            "{:<30} {p50:>8.0} {:>+9.0} {rate:>9.0} {:>9.2} {server:>9.0} µs {wrk:>7.0} µs",
            t.name,
            p50 - direct_p50,
            rate / direct_rate
        );
    }
}
