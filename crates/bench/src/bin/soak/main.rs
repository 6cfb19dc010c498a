//! Issue 15's soak: two `switchboard serve --watch` replicas on one Postgres schema under mixed
//! load for `BENCH_MINUTES` (20), loopback only, then it stops by itself. Load: callers over an
//! HTTP and a stdio upstream on both replicas, abandoning their session every 2,000 calls; a
//! stdio server crashed every 20 s (and restarted by the next call); the watched mcp.json
//! edited every 60 s (a server added, then removed); a REST server connected on one replica and
//! deleted on the other every 30 s. Every `BENCH_SAMPLE_SECS` (30) each replica's RSS, open
//! descriptors, threads and child processes are sampled; at the end: growth after warm-up,
//! calls by outcome, audit rows against calls answered, processes left behind. A CSV of the
//! samples goes to `BENCH_CSV` (soak.csv). `BENCH_SESSION_EXPIRE_SECS` sets `[limits]
//! session_expire_secs` (default: the gateway's hour).
//!
//! Run: `cargo build --release -p switchboard -p switchboard-testkit -p switchboard-bench`,
//! then `target/release/soak` (needs Postgres at SWITCHBOARD_TEST_DATABASE_URL, default
//! postgres://postgres@127.0.0.1:5432/test, and scripts/fixtures.sh's Python for the
//! crashing fixture).

mod probe;
#[path = "../../procs.rs"]
#[allow(dead_code)]
mod procs;
#[path = "../../raw.rs"]
#[allow(dead_code)]
mod raw;

use anyhow::Context;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_sync::Mutex;

const CALLERS: usize = 8;
const CALLS_PER_SESSION: usize = 2_000;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Calls answered, by outcome (`ok` or the error kind), and requests that got no answer.
#[derive(Default)]
struct Tally(BTreeMap<String, u64>);

fn outcome(body: &str) -> String {
    // An SSE answer may carry notifications before the response: the one with an id.
    let answer: Value = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .chain(std::iter::once(body))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .find(|message| message.get("id").is_some())
        .unwrap_or_default();
    let result = &answer["result"];
    if result["isError"] == true {
        let kind = result["_meta"]["switchboard/error"]["kind"].as_str();
        return kind.unwrap_or("error without kind").to_string();
    }
    if result.is_object() {
        return "ok".into();
    }
    // The first of each JSON-RPC error is shown, to say what it was.
    static SHOWN: std::sync::Once = std::sync::Once::new();
    SHOWN.call_once(|| println!("a JSON-RPC error: {}", answer["error"]));
    "jsonrpc_error".into()
}

fn write_config(path: &Path, servers: &Value) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, json!({ "mcpServers": servers }).to_string())?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

fn admin(bin: &Path, data: &Path, database: &str, args: &[&str]) -> anyhow::Result<String> {
    let out = std::process::Command::new(bin)
        .args(args)
        .args(["--data", data.to_str().context("data")?])
        .args(["--database-url", database])
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "switchboard {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let bin = procs::release_dir()?;
    let switchboard = bin.join("switchboard");
    let minutes = env_u64("BENCH_MINUTES", 20);
    let sample_every = Duration::from_secs(env_u64("BENCH_SAMPLE_SECS", 30));
    let csv_path = std::env::var("BENCH_CSV").unwrap_or_else(|_| "soak.csv".into());
    let admin_url = std::env::var("SWITCHBOARD_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let schema = format!("sb_soak_{}", std::process::id());
    let database = switchboard_store::create_schema(&admin_url, &schema).await?;
    let python = repo().join(".fixtures/venv/bin/python");
    let fixture = repo().join("tests/fixtures/misbehaving_server.py");
    let fixtures_before = probe::fixture_processes(&fixture);

    let dir = tempfile::tempdir()?;
    let web = procs::echo_http(&bin).await?;
    let servers = json!({
        "web": {"type": "http", "url": web.url},
        "local": {"command": bin.join("echo-server")},
        "fx": {"command": python, "args": [fixture]},
    });
    let config = dir.path().join("mcp.json");
    write_config(&config, &servers)?;
    // BENCH_SESSION_EXPIRE_SECS: abandoned sessions end sooner than the default hour, so a
    // 20-minute run reaches the steady state it would after an hour.
    let settings = dir.path().join("switchboard.toml");
    let expire = std::env::var("BENCH_SESSION_EXPIRE_SECS").ok();
    let limits = expire.map_or(String::new(), |s| {
        format!("[limits]\nsession_expire_secs = {s}\n")
    });
    std::fs::write(&settings, limits)?;
    let configs: [&Path; 2] = [&config, &settings];
    let (data_a, data_b) = (dir.path().join("a"), dir.path().join("b"));
    let watch = ["--watch", "--database-url", database.as_str()];
    let a = procs::serve(
        &switchboard,
        &configs,
        &data_a,
        &watch,
        "switchboard ready: ",
    )
    .await?;
    // One master key for both: sealed credentials and the audit chain are shared.
    std::fs::create_dir_all(&data_b)?;
    std::fs::copy(data_a.join("master.key"), data_b.join("master.key"))?;
    let b = procs::serve(
        &switchboard,
        &configs,
        &data_b,
        &watch,
        "switchboard ready: ",
    )
    .await?;
    admin(
        &switchboard,
        &data_a,
        &database,
        &["org", "create", "acme", "--feature", "mcp_external_servers"],
    )?;
    let token_json = admin(
        &switchboard,
        &data_a,
        &database,
        &[
            "token",
            "create",
            "--org",
            "acme",
            "--role",
            "integrations:manage",
            "--role",
            "integrations:view",
            "--json",
        ],
    )?;
    let token: Value = serde_json::from_str(&token_json)?;
    let token = token["token"].as_str().context("a token")?.to_string();
    let replicas = [a.url.clone(), b.url.clone()];
    let pids = [a.pid, b.pid];
    println!(
        "soak: {minutes} min, replicas pid {} and {}, schema {schema}",
        a.pid, b.pid
    );

    let deadline = Instant::now() + Duration::from_secs(minutes * 60);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let mut load = Vec::new();
    for caller in 0..CALLERS {
        let (url, tally) = (replicas[caller % 2].clone(), tally.clone());
        load.push(tokio::spawn(async move {
            let tools = ["web__echo", "local__echo", "fx__echo"];
            let mut n = 0usize;
            while Instant::now() < deadline {
                // A new session each round; the old one is abandoned, never closed.
                let Ok(mut session) = raw::RawSession::open(reqwest::Client::new(), &url).await
                else {
                    *tally.lock().0.entry("session_refused".into()).or_default() += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                for _ in 0..CALLS_PER_SESSION {
                    n += 1;
                    let params = json!({"name": tools[n % 3], "arguments": {"text": "soak"}});
                    let seen = match session.request("tools/call", params).await {
                        Ok(body) => outcome(&body),
                        Err(_) => "no_answer".to_string(),
                    };
                    *tally.lock().0.entry(seen).or_default() += 1;
                    if Instant::now() >= deadline {
                        break;
                    }
                }
            }
        }));
    }
    // Crash the stdio fixture every 20 s; its next call restarts it.
    let crash_url = replicas[0].clone();
    load.push(tokio::spawn(async move {
        while Instant::now() < deadline {
            tokio::time::sleep(Duration::from_secs(20)).await;
            if let Ok(mut s) = raw::RawSession::open(reqwest::Client::new(), &crash_url).await {
                let _ = s
                    .request("tools/call", json!({"name": "fx__crash", "arguments": {}}))
                    .await;
            }
        }
    }));
    // Edit the watched config every 60 s: a server added, then removed again.
    let (edit_config, edit_servers, web_url) = (config.clone(), servers.clone(), web.url.clone());
    load.push(tokio::spawn(async move {
        let mut with_extra = edit_servers.clone();
        with_extra["extra"] = json!({"type": "http", "url": web_url});
        let mut round = 0;
        while Instant::now() < deadline {
            tokio::time::sleep(Duration::from_secs(60)).await;
            round += 1;
            let next = if round % 2 == 1 {
                &with_extra
            } else {
                &edit_servers
            };
            let _ = write_config(&edit_config, next);
        }
    }));
    // A REST server connected on one replica and deleted on the other every 30 s.
    let (rest, rest_token, rest_upstream) = (replicas.clone(), token.clone(), web.url.clone());
    let rest_failures = Arc::new(Mutex::new(0u64));
    let rest_failed = rest_failures.clone();
    load.push(tokio::spawn(async move {
        let http = reqwest::Client::new();
        let mut round = 0;
        while Instant::now() < deadline {
            tokio::time::sleep(Duration::from_secs(30)).await;
            round += 1;
            let base = |i: usize| rest[i].trim_end_matches("/mcp").to_string();
            let body = json!({"name": "Soak", "slug": format!("soak{round}"), "url": rest_upstream, "auth_method": "none"});
            let created = http
                .post(format!("{}/api/integrations/mcp/servers", base(0)))
                .bearer_auth(&rest_token)
                .json(&body)
                .send()
                .await;
            let id = match created {
                Ok(r) if r.status().is_success() => r.json::<Value>().await.ok().and_then(|v| v["id"].as_str().map(String::from)),
                _ => None,
            };
            let deleted = match id {
                Some(id) => http
                    .delete(format!("{}/api/integrations/mcp/servers/{id}", base(1)))
                    .bearer_auth(&rest_token)
                    .send()
                    .await
                    .is_ok_and(|r| r.status().is_success()),
                None => false,
            };
            if !deleted {
                *rest_failed.lock() += 1;
            }
        }
    }));

    let started = Instant::now();
    let mut csv = String::from(
        "seconds,replica,rss_kib,fds,threads,children,calls,anon_kib,file_kib,heap_allocated_kib,heap_resident_kib,audit_queued,sessions_held\n",
    );
    let mut rows: Vec<(u64, usize, probe::Sample)> = Vec::new();
    let metrics = replicas.clone().map(|url| url.replace("/mcp", "/metrics"));
    println!(
        "{:>6} {:>7} {:>8} {:>8} {:>8} {:>9} {:>9} {:>5} {:>7} {:>8} {:>9} {:>7} {:>8}",
        "s",
        "replica",
        "RSS MiB",
        "anon",
        "file",
        "heap live",
        "heap held",
        "fds",
        "threads",
        "children",
        "calls",
        "audit q",
        "sessions"
    );
    loop {
        let calls: u64 = tally.lock().0.values().sum();
        let secs = started.elapsed().as_secs();
        for (i, pid) in pids.iter().enumerate() {
            let s = probe::sample(*pid, &metrics[i])
                .await
                .context("a replica exited")?;
            let mib = |kib: u64| kib as f64 / 1024.0;
            println!(
                "{secs:>6} {:>7} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>9.1} {:>5} {:>7} {:>8} {calls:>9} {:>7} {:>8}",
                ["a", "b"][i],
                mib(s.rss_kib),
                mib(s.anon_kib),
                mib(s.file_kib),
                mib(s.heap_allocated_kib),
                mib(s.heap_resident_kib),
                s.fds,
                s.threads,
                s.children,
                s.audit_queued,
                s.sessions_held,
            );
            csv.push_str(&format!(
                "{secs},{},{},{},{},{},{calls},{},{},{},{},{},{}\n",
                ["a", "b"][i],
                s.rss_kib,
                s.fds,
                s.threads,
                s.children,
                s.anon_kib,
                s.file_kib,
                s.heap_allocated_kib,
                s.heap_resident_kib,
                s.audit_queued,
                s.sessions_held
            ));
            rows.push((secs, i, s));
        }
        if Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(
            sample_every
                .min(deadline - Instant::now())
                .max(Duration::from_millis(1)),
        )
        .await;
    }
    for task in load {
        task.abort();
    }
    std::fs::write(&csv_path, csv)?;

    // Growth after warm-up (the first fifth of the run): first sample after it vs the last.
    let warm = minutes * 60 / 5;
    println!("\ngrowth from the first sample after {warm} s to the last:");
    for (i, name) in ["a", "b"].iter().enumerate() {
        let mine: Vec<_> = rows.iter().filter(|r| r.1 == i && r.0 >= warm).collect();
        if let (Some((_, _, first)), Some((_, _, last))) = (mine.first(), mine.last()) {
            let pct = |a: u64, b: u64| (b as f64 - a as f64) / (a as f64).max(1.0) * 100.0;
            let change = |what: &str, a: u64, b: u64| {
                format!(
                    "{what} {:.1} -> {:.1} MiB ({:+.1} %)",
                    a as f64 / 1024.0,
                    b as f64 / 1024.0,
                    pct(a, b)
                )
            };
            println!(
                "  replica {name}: {}, {}, {}, {}; fds {} -> {} ({:+.1} %), threads {} -> {}, children {} -> {}",
                change("RSS", first.rss_kib, last.rss_kib),
                change("anonymous", first.anon_kib, last.anon_kib),
                change(
                    "heap live",
                    first.heap_allocated_kib,
                    last.heap_allocated_kib
                ),
                change("heap held", first.heap_resident_kib, last.heap_resident_kib),
                first.fds,
                last.fds,
                pct(first.fds as u64, last.fds as u64),
                first.threads,
                last.threads,
                first.children,
                last.children
            );
        }
    }
    let tally = std::mem::take(&mut tally.lock().0);
    println!("calls by outcome: {tally:?}");
    println!(
        "REST connect/delete rounds that failed: {}",
        rest_failures.lock()
    );

    // Stop both replicas gracefully (they commit their audit queues), then count.
    for pid in pids {
        // SAFETY: kill has no memory-safety preconditions; the pid is our child's.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(pid as i32, libc::SIGTERM)
        };
    }
    for pid in pids {
        let gone = tokio::time::timeout(Duration::from_secs(60), async {
            while std::path::Path::new(&format!("/proc/{pid}")).exists()
                && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .unwrap_or_default()
                    .contains(") Z")
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await;
        anyhow::ensure!(
            gone.is_ok(),
            "replica {pid} did not stop within 60 s of SIGTERM"
        );
    }
    drop((a, b));
    let store = switchboard_store::SqlStore::open(&database).await?;
    use switchboard_store::Store;
    let mut rows_by_server = BTreeMap::new();
    for server in ["web", "local", "fx"] {
        let filter = switchboard_store::AuditFilter {
            server: Some(server.into()),
            limit: Some(i64::MAX),
            ..Default::default()
        };
        rows_by_server.insert(server, store.audit(&filter).await?.len() as u64);
    }
    let answered: u64 = tally
        .iter()
        .filter(|(k, _)| k.as_str() != "no_answer" && k.as_str() != "session_refused")
        .map(|(_, v)| v)
        .sum();
    let crash_rows = {
        let filter = switchboard_store::AuditFilter {
            action_id: Some("mcp.fx.crash".into()),
            limit: Some(i64::MAX),
            ..Default::default()
        };
        store.audit(&filter).await?.len() as u64
    };
    let echo_rows: u64 = rows_by_server.values().sum::<u64>() - crash_rows;
    println!(
        "audit rows for the callers' calls: {echo_rows} ({rows_by_server:?} less {crash_rows} crash calls); calls answered: {answered}"
    );
    let leaked = probe::fixture_processes(&fixture).saturating_sub(fixtures_before);
    println!("fixture processes left after both replicas stopped: {leaked}");
    switchboard_store::drop_schema(&admin_url, &schema).await?;
    Ok(())
}
