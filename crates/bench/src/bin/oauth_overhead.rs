//! What OAuth token handling adds to a call: the same tool called through the registry with a
//! fixed bearer token (baseline) and with `oauth2` tokens kept in memory, sealed in SQLite
//! (what `serve` does by default) and sealed in Postgres (when
//! `SWITCHBOARD_BENCH_DATABASE_URL` is set). Rounds alternate between the modes; prints the
//! median latency of each, its ratio to the baseline, and the process CPU time per call.
//!
//! `cargo build --release -p switchboard-testkit --bin oauth-server &&
//!  cargo run --release -p switchboard-bench --bin oauth-overhead`

use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_server::SealedTokens;
use switchboard_store::{Sealer, SqlStore};
use switchboard_upstream::auth::{MemoryTokens, OAuthContext, TokenStore};
use tokio::io::{AsyncBufReadExt, BufReader};

const CALLS: usize = 500;
const ROUNDS: usize = 5;

fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    #[allow(unsafe_code)]
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    #[allow(unsafe_code)]
    unsafe {
        libc::getrusage(libc::RUSAGE_SELF, &mut usage)
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

async fn registry(url: &str, auth: Value, tokens: Option<Arc<dyn TokenStore>>) -> Registry {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        json!({"mcpServers": {"fx": {"type": "http", "url": url, "auth": auth}}}).to_string(),
    )
    .unwrap();
    let config = switchboard_config::load(&[path]).unwrap();
    let mut options = RegistryOptions::default().with_dev(true);
    if let Some(tokens) = tokens {
        options = options.with_oauth(OAuthContext::new(tokens, "http://127.0.0.1:9"));
    }
    let registry = Registry::new(options);
    registry.apply_config(&config).await;
    registry
}

/// `CALLS` sequential calls: their latencies and the CPU time they took.
async fn round(registry: &Registry) -> (Vec<Duration>, Duration) {
    let cpu = cpu_time();
    let mut latencies = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let started = Instant::now();
        registry
            .call_tool("fx__whoami", None, CallOptions::default())
            .await
            .expect("the call succeeds");
        latencies.push(started.elapsed());
    }
    (latencies, cpu_time() - cpu)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/release/oauth-server");
    let mut child = tokio::process::Command::new(&fixture)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            anyhow::anyhow!(
                "{}: {e}; build it first (see the header)",
                fixture.display()
            )
        })?;
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines.next_line().await?.unwrap_or_default();
        if let Some(url) = line.strip_prefix("listening on ") {
            break url.to_string();
        }
    };
    let base = url.trim_end_matches("/mcp").to_string();
    let issued: Value = reqwest::Client::new()
        .post(format!("{base}/admin/issue"))
        .send()
        .await?
        .json()
        .await?;
    let oauth2 = json!({"type": "oauth2", "accessToken": issued["access_token"],
        "refreshToken": issued["refresh_token"], "tokenUrl": format!("{base}/token")});
    let sealer = Arc::new(Sealer::from_keys(vec![[1u8; 32]]));
    let data = tempfile::tempdir()?;
    let sqlite = Arc::new(SqlStore::open_sqlite(data.path()).await?);
    let mut modes: Vec<(&str, Registry)> = vec![
        (
            "bearer (baseline)",
            registry(
                &url,
                json!({"type": "bearer", "token": issued["access_token"]}),
                None,
            )
            .await,
        ),
        (
            "oauth2, memory",
            registry(
                &url,
                oauth2.clone(),
                Some(Arc::new(MemoryTokens::default())),
            )
            .await,
        ),
        (
            "oauth2, sqlite",
            registry(
                &url,
                oauth2.clone(),
                Some(Arc::new(SealedTokens {
                    store: sqlite,
                    sealer: sealer.clone(),
                })),
            )
            .await,
        ),
    ];
    if let Ok(pg) = std::env::var("SWITCHBOARD_BENCH_DATABASE_URL") {
        let store = Arc::new(SqlStore::open(&pg).await?);
        let tokens = SealedTokens {
            store,
            sealer: sealer.clone(),
        };
        modes.push((
            "oauth2, postgres",
            registry(&url, oauth2.clone(), Some(Arc::new(tokens))).await,
        ));
    }
    let mut latencies: Vec<Vec<Duration>> = vec![Vec::new(); modes.len()];
    let mut cpu: Vec<Duration> = vec![Duration::ZERO; modes.len()];
    for _ in 0..ROUNDS {
        for (i, (_, registry)) in modes.iter().enumerate() {
            let (l, c) = round(registry).await;
            latencies[i].extend(l);
            cpu[i] += c;
        }
    }
    let calls = (CALLS * ROUNDS) as f64;
    let baseline = median(latencies[0].clone());
    println!(
        "{} calls per mode in {ROUNDS} alternating rounds",
        CALLS * ROUNDS
    );
    for (i, (label, registry)) in modes.iter().enumerate() {
        let p50 = median(latencies[i].clone());
        println!(
            "{label:<18} p50 {:>6.0} µs  ({:.2}× baseline)  CPU {:>5.0} µs/call in the gateway process (the fixture runs apart)",
            p50.as_secs_f64() * 1e6,
            p50.as_secs_f64() / baseline.as_secs_f64(),
            cpu[i].as_secs_f64() * 1e6 / calls
        );
        registry.shutdown().await;
    }
    Ok(())
}
