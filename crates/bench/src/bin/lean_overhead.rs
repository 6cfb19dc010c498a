//! The overhead bench with a lean load generator: raw JSON-RPC over HTTP/1.1 keep-alive
//! (reqwest, one MCP session per caller, no SDK), so the gateway's own cost shows instead of
//! hiding behind an SDK client's. Calls `echo` on the rmcp echo server directly, through this
//! build's `switchboard serve` with the echo server as an HTTP and as a stdio upstream, through
//! `BENCH_BEFORE=/path/to/older/switchboard` (HTTP upstream, plain and pinned) and through the Python
//! `mcp-proxy` at `BENCH_MCP_PROXY=/path/to/mcp-proxy` and supergateway (npm) at
//! `BENCH_SUPERGATEWAY=/path/to/supergateway` (both with a stdio upstream) when given, and
//! with `BENCH_SCAN_CALLS=1` this build (and the one before) scanning every call's arguments
//! and result (`[policy.scan] calls = true`), alternating targets each round; prints p50 latency, calls/s and the CPU time per call of
//! the gateway (the proxy process alone, not its upstream; for the direct target, the echo
//! server's own) and of this generator, from /proc.
//!
//! Run: `scripts/bench_lean.sh` (builds, installs the peer, runs), or build
//! `-p switchboard -p switchboard-testkit -p switchboard-bench` in release and run
//! `target/release/lean-overhead` (BENCH_CALLERS, BENCH_CALLS, BENCH_ROUNDS).

#[path = "../issuer.rs"]
mod issuer;
#[path = "../procs.rs"]
#[allow(dead_code)]
mod procs;
#[path = "../raw.rs"]
mod raw;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// One caller: a session on its own keep-alive connection.
struct Session(raw::RawSession);

impl Session {
    async fn open(url: &str, token: Option<&str>) -> anyhow::Result<Self> {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(token) = token {
            headers.insert("authorization", format!("Bearer {token}").parse()?);
        }
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .default_headers(headers)
            .build()?;
        Ok(Self(raw::RawSession::open(http, url).await?))
    }

    /// One `tools/call` (with `meta` as its `_meta`), timed from send to the whole answer read.
    async fn call(&mut self, tool: &str, meta: Option<&Value>) -> anyhow::Result<Duration> {
        let mut params = json!({"name": tool, "arguments": {"text": "ping"}});
        if let Some(meta) = meta {
            params["_meta"] = meta.clone();
        }
        let started = Instant::now();
        let text = self.0.request("tools/call", params).await?;
        let elapsed = started.elapsed();
        ensure!(
            text.contains("\"result\"") && !text.contains("\"isError\":true"),
            "call failed: {text}"
        );
        Ok(elapsed)
    }
}

struct Run {
    p50: Duration,
    per_second: f64,
    gateway_cpu: Duration,
    generator_cpu: Duration,
}

/// `callers` sessions making `calls` calls each, at once; CPU per call of `gateway` (if any).
async fn run(
    (url, token): (&str, Option<&str>),
    (tool, meta): (&str, Option<&Value>),
    callers: usize,
    calls: usize,
    gateway: Option<u32>,
) -> anyhow::Result<Run> {
    let mut sessions = Vec::with_capacity(callers);
    for _ in 0..callers {
        let mut s = Session::open(url, token).await?;
        for _ in 0..20 {
            s.call(tool, meta).await?;
        }
        sessions.push(s);
    }
    let pids: Vec<(&'static str, u32)> = [("generator", std::process::id())]
        .into_iter()
        .chain(gateway.map(|pid| ("gateway", pid)))
        .collect();
    let before = procs::cpu_times(&pids);
    let started = Instant::now();
    let results = futures::future::join_all(sessions.iter_mut().map(|s| async move {
        let mut latencies = Vec::with_capacity(calls);
        for _ in 0..calls {
            latencies.push(s.call(tool, meta).await?);
        }
        anyhow::Ok(latencies)
    }))
    .await;
    let wall = started.elapsed();
    let cpu = procs::cpu_delta(&before, &procs::cpu_times(&pids));
    let mut all = Vec::new();
    for r in results {
        all.extend(r?);
    }
    all.sort();
    let n = all.len() as u32;
    Ok(Run {
        p50: all[all.len() / 2],
        per_second: all.len() as f64 / wall.as_secs_f64(),
        gateway_cpu: cpu.get("gateway").copied().unwrap_or_default() / n,
        generator_cpu: cpu.get("generator").copied().unwrap_or_default() / n,
    })
}

/// One process the generator calls (none for the direct upstream).
struct Target {
    name: String,
    url: String,
    tool: &'static str,
    pid: Option<u32>,
    _process: Option<procs::Spawned>,
    /// The bearer every request carries.
    token: Option<String>,
    /// The `_meta` every call carries.
    meta: Option<Value>,
}

impl Target {
    fn proxied(name: impl Into<String>, process: procs::Spawned, tool: &'static str) -> Self {
        Self {
            name: name.into(),
            url: process.url.clone(),
            tool,
            pid: Some(process.pid),
            _process: Some(process),
            token: None,
            meta: None,
        }
    }
}

/// The Python `mcp-proxy` serving the echo server (stdio) over Streamable HTTP at `/mcp`.
async fn mcp_proxy(bin: &Path, echo: &Path) -> anyhow::Result<procs::Spawned> {
    let port = procs::free_port()?;
    let port_arg = port.to_string();
    let echo = echo.to_str().context("echo-server path")?;
    let args = ["--host", "127.0.0.1", "--port", &port_arg, echo];
    let mut spawned = procs::Spawned::start(
        bin.to_path_buf(),
        &args,
        "INFO:     Uvicorn running on ",
        None,
    )
    .await
    .with_context(|| format!("start {}", bin.display()))?;
    spawned.url = format!("http://127.0.0.1:{port}/mcp");
    Ok(spawned)
}

/// supergateway (npm) serving the echo server (stdio) over Streamable HTTP at `/mcp`:
/// stateful (a child per session, as MCP sessions need), its per-message logging off.
async fn supergateway(bin: &Path, echo: &Path) -> anyhow::Result<procs::Spawned> {
    let port = procs::free_port()?;
    let port_arg = port.to_string();
    let echo = echo.to_str().context("echo-server path")?;
    let args = [
        "--stdio",
        echo,
        "--outputTransport",
        "streamableHttp",
        "--stateful",
        "--logLevel",
        "none",
        "--port",
        &port_arg,
    ];
    let url = format!("http://127.0.0.1:{port}/mcp");
    procs::Spawned::start_on_port(bin.to_path_buf(), &args, port, url).await
}

async fn gateway(bin: &Path, config: &Path, data: &Path) -> anyhow::Result<procs::Spawned> {
    procs::serve(bin, &[config], data, &[], "switchboard ready: 1/1").await
}

/// [`gateway`] on one thread (`--threads 1`).
async fn one_thread(bin: &Path, config: &Path, data: &Path) -> anyhow::Result<procs::Spawned> {
    let extra = ["--threads", "1"];
    procs::serve(bin, &[config], data, &extra, "switchboard ready: 1/1").await
}

/// The echo upstream as a per-end-user server (docs/end-user-credentials.md): every call
/// asserts the end user `bench`, whose grant (set with the CLI first) is looked up per call,
/// and goes out on that user's own upstream session.
async fn per_end_user(bin: &Path, upstream: &str, dir: &Path) -> anyhow::Result<Target> {
    let config = dir.join("per-user.json");
    let entry = json!({"type": "http", "url": upstream, "credentials": "per_end_user",
        "trust_asserted_end_users": true, "auth": {"type": "bearer", "token": "discovery"}});
    std::fs::write(
        &config,
        serde_json::to_vec(&json!({"mcpServers": {"echo": entry}}))?,
    )?;
    let data = dir.join("per-user");
    let mut cli = std::process::Command::new(bin)
        .args([
            "end-users",
            "set-key",
            "--end-user",
            "bench",
            "--server",
            "echo",
            "-c",
        ])
        .arg(&config)
        .arg("--data")
        .arg(&data)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()?;
    std::io::Write::write_all(&mut cli.stdin.take().context("stdin")?, b"bench-key\n")?;
    ensure!(
        cli.wait()?.success(),
        "switchboard end-users set-key failed"
    );
    let spawned = gateway(bin, &config, &data).await?;
    let mut target = Target::proxied(
        "this build, per-end-user HTTP upstream",
        spawned,
        "echo__echo",
    );
    target.meta = Some(json!({"bound_end_user_id": "bench"}));
    Ok(target)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let get = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (callers, calls, rounds) = (
        get("BENCH_CALLERS", 32),
        get("BENCH_CALLS", 200),
        get("BENCH_ROUNDS", 3),
    );
    let bin = procs::release_dir()?;
    let upstream = procs::echo_http(&bin).await?;
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("mcp.json");
    std::fs::write(
        &config,
        serde_json::to_vec(
            &json!({"mcpServers": {"echo": {"type": "http", "url": upstream.url}}}),
        )?,
    )?;
    let echo = bin.join("echo-server");
    let stdio_config = dir.path().join("stdio.json");
    std::fs::write(
        &stdio_config,
        serde_json::to_vec(&json!({"mcpServers": {"echo": {"command": echo, "lazy": false}}}))?,
    )?;
    // The same stdio server outside the sandbox, for the sandbox's cost per call.
    let loose_config = dir.path().join("loose.json");
    let loose = json!({"command": echo, "lazy": false, "sandbox": false});
    std::fs::write(
        &loose_config,
        serde_json::to_vec(&json!({"mcpServers": {"echo": loose}}))?,
    )?;
    let switchboard = bin.join("switchboard");
    // Direct, the "server CPU" is the echo server's own: what one rmcp Streamable HTTP server
    // spends per call, for scale.
    let mut targets = vec![Target {
        name: "direct".into(),
        url: upstream.url.clone(),
        tool: "echo",
        pid: Some(upstream.pid),
        _process: None,
        token: None,
        meta: None,
    }];
    let this = gateway(&switchboard, &config, &dir.path().join("this")).await?;
    // For scripts/profile_gateway.sh, which attaches perf to this process.
    println!("measured gateway pid: {}", this.pid);
    targets.push(Target::proxied(
        "this build, HTTP upstream",
        this,
        "echo__echo",
    ));
    // The same upstream pinned to the session revision (2025-11-25): the echo server speaks
    // 2026-07-28 too, which an entry without protocol_version is reached on.
    let pinned_config = dir.path().join("pinned.json");
    let pinned_entry =
        json!({"type": "http", "url": upstream.url, "protocol_version": "2025-11-25"});
    std::fs::write(
        &pinned_config,
        serde_json::to_vec(&json!({"mcpServers": {"echo": pinned_entry}}))?,
    )?;
    let pinned = gateway(&switchboard, &pinned_config, &dir.path().join("pinned")).await?;
    targets.push(Target::proxied(
        "this build, HTTP upstream on 2025-11-25",
        pinned,
        "echo__echo",
    ));
    let stdio = gateway(&switchboard, &stdio_config, &dir.path().join("stdio")).await?;
    targets.push(Target::proxied(
        "this build, stdio upstream",
        stdio,
        "echo__echo",
    ));
    let loose = gateway(&switchboard, &loose_config, &dir.path().join("loose")).await?;
    targets.push(Target::proxied(
        "this build, stdio upstream, sandbox = false",
        loose,
        "echo__echo",
    ));
    targets.push(per_end_user(&switchboard, &upstream.url, dir.path()).await?);
    let single = one_thread(&switchboard, &config, &dir.path().join("single")).await?;
    targets.push(Target::proxied(
        "this build, HTTP upstream, --threads 1",
        single,
        "echo__echo",
    ));
    // Every request bearing an access token from a real issuer (keys cached): the cost of
    // checking a JWT per request, against the target above without one.
    let provider = issuer::Issuer::start().await?;
    if let Some(provider) = &provider {
        let identity = dir.path().join("identity.toml");
        let settings = format!(
            "[gateway]\npublic_url = \"http://127.0.0.1:1\"\n\n[[identity.issuers]]\nissuer = \"{}\"\n",
            provider.url
        );
        std::fs::write(&identity, settings)?;
        let data = dir.path().join("token");
        let configs = [config.as_path(), identity.as_path()];
        let spawned =
            procs::serve(&switchboard, &configs, &data, &[], "switchboard ready: 1/1").await?;
        let mut target = Target::proxied(
            "this build, HTTP upstream, access token",
            spawned,
            "echo__echo",
        );
        target.token = Some(provider.token("http://127.0.0.1:1/mcp").await?);
        targets.push(target);
    } else {
        println!("(no access-token target: run scripts/fixtures.sh for oidc-provider)");
    }
    if let Ok(before) = std::env::var("BENCH_BEFORE") {
        let old = gateway(Path::new(&before), &config, &dir.path().join("before")).await?;
        targets.push(Target::proxied(
            format!("before ({before}), HTTP upstream"),
            old,
            "echo__echo",
        ));
        // The session path too: this generator declares no capabilities, so this build's
        // calls take a session of that set (the shared one declares what the gateway relays).
        let pinned_dir = dir.path().join("before-pinned");
        let old = gateway(Path::new(&before), &pinned_config, &pinned_dir).await?;
        targets.push(Target::proxied(
            format!("before ({before}), HTTP upstream on 2025-11-25"),
            old,
            "echo__echo",
        ));
    }
    // Scanning every call's arguments and result (`[policy.scan] calls = true`), this build and
    // the one before: the scanner's cost per call.
    if std::env::var_os("BENCH_SCAN_CALLS").is_some() {
        let scan = dir.path().join("scan.toml");
        std::fs::write(&scan, "[policy.scan]\ncalls = true\n")?;
        let configs = [config.as_path(), scan.as_path()];
        let mut builds = vec![("this build".to_string(), switchboard.clone())];
        if let Ok(before) = std::env::var("BENCH_BEFORE") {
            builds.push((format!("before ({before})"), before.into()));
        }
        for (i, (name, bin)) in builds.into_iter().enumerate() {
            let data = dir.path().join(format!("scan-{i}"));
            let spawned =
                procs::serve(&bin, &configs, &data, &[], "switchboard ready: 1/1").await?;
            let name = format!("{name}, HTTP upstream, [policy.scan] calls = true");
            targets.push(Target::proxied(name, spawned, "echo__echo"));
        }
    }
    if let Ok(proxy) = std::env::var("BENCH_MCP_PROXY") {
        let peer = mcp_proxy(Path::new(&proxy), &echo).await?;
        targets.push(Target::proxied(
            "Python mcp-proxy 0.13, stdio upstream",
            peer,
            "echo",
        ));
    }
    if let Ok(peer) = std::env::var("BENCH_SUPERGATEWAY") {
        let peer = supergateway(Path::new(&peer), &echo).await?;
        targets.push(Target::proxied(
            "supergateway 3.4 (npm), stdio upstream",
            peer,
            "echo",
        ));
    }
    println!(
        "lean-overhead: raw JSON-RPC over keep-alive HTTP, {rounds} rounds alternating targets (medians)"
    );
    for (mode, n_callers, n_calls) in [("1 caller", 1, calls * 4), ("32 callers", callers, calls)] {
        let mut rows: Vec<Vec<Run>> = targets.iter().map(|_| Vec::new()).collect();
        for round in 0..rounds {
            // Each round starts at another target: whichever runs first in a round measured
            // slower (by ~20 µs of CPU and ~40 µs p50 at 1 caller, same binary either way).
            for k in 0..targets.len() {
                let i = (round + k) % targets.len();
                let t = &targets[i];
                let at = (t.url.as_str(), t.token.as_deref());
                let call = (t.tool, t.meta.as_ref());
                rows[i].push(run(at, call, n_callers, n_calls, t.pid).await?);
            }
        }
        println!("\n{mode} ({n_calls} calls per caller)");
        println!(
            "{:<60} {:>9} {:>10} {:>9} {:>14} {:>14}",
            "target", "p50 µs", "calls/s", "× direct", "server CPU", "generator CPU"
        );
        let direct_rate = procs::median(rows[0].iter().map(|r| r.per_second).collect());
        let direct_p50 = procs::median(rows[0].iter().map(|r| r.p50.as_micros() as f64).collect());
        for (Target { name, .. }, runs) in targets.iter().zip(&rows) {
            let p50 = procs::median(runs.iter().map(|r| r.p50.as_micros() as f64).collect());
            let rate = procs::median(runs.iter().map(|r| r.per_second).collect());
            let gw = procs::median(
                runs.iter()
                    .map(|r| r.gateway_cpu.as_micros() as f64)
                    .collect(),
            );
            let generator = procs::median(
                runs.iter()
                    .map(|r| r.generator_cpu.as_micros() as f64)
                    .collect(),
            );
            println!(
                "{name:<60} {p50:>9.0} {rate:>10.0} {:>9.2} {:>11.0} µs {:>11.0} µs   (+{:.0} µs p50)",
                rate / direct_rate,
                gw,
                generator,
                p50 - direct_p50
            );
        }
    }
    Ok(())
}
