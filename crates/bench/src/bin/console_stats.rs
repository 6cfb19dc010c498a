//! The console's figures computed on the server (issue 38), measured: `BENCH_ROWS` (300,000:
//! 1,000 calls/s for five minutes) audit rows of one org over `BENCH_SERVERS` (20) servers in
//! the window, then `GET /api/stats`' work (the grouped query and the summary) timed
//! `BENCH_ROUNDS` (7) times against, in the same rounds, what the old page read to compute its
//! figures in the browser (five pages of 1,000 rows, a sample that is wrong above ~17 calls/s).
//! On SQLite always, and on Postgres when `SWITCHBOARD_TEST_DATABASE_URL` is set. Medians.
//!
//! Run: `cargo build --release -p switchboard-bench`, then `target/release/console-stats`.

use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_store::call_stats::{Window, summarize};
use switchboard_store::{
    AuditEntry, AuditFilter, Chain, Sealer, SqlStore, Store, create_schema, drop_schema, now_ms,
};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

async fn fill(store: &SqlStore, org: &str, rows: usize, servers: usize) -> anyhow::Result<i64> {
    let chain = Chain::new(Sealer::from_keys(vec![[7u8; 32]]).audit_key());
    let now = now_ms();
    let since = now - 300_000;
    let mut batch = Vec::with_capacity(1000);
    for i in 0..rows {
        let server = format!("server{}", i % servers);
        batch.push(AuditEntry {
            at: since + (i as i64 * 300_000) / rows as i64,
            org_id: Some(org.to_string()),
            action_id: format!("mcp.{server}.tool"),
            server: Some(server),
            verdict: "allowed".into(),
            outcome: if i % 97 == 0 { "timeout" } else { "ok" }.into(),
            // 0.2 to 20 ms, spread over the latency buckets.
            duration_us: 200 + ((i as i64 * 7919) % 19_800),
            ..Default::default()
        });
        if batch.len() == 1000 || i + 1 == rows {
            store.append_audit(&chain, &batch).await?;
            batch.clear();
        }
    }
    Ok(since)
}

async fn measure(name: &str, store: Arc<SqlStore>) -> anyhow::Result<()> {
    let rows = env_usize("BENCH_ROWS", 300_000);
    let servers = env_usize("BENCH_SERVERS", 20);
    let rounds = env_usize("BENCH_ROUNDS", 7);
    let org = store.create_org("bench", &[]).await?;
    let started = Instant::now();
    let since = fill(&store, &org.id, rows, servers).await?;
    eprintln!(
        "{name}: {rows} rows written in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let window = Window {
        since_ms: since,
        step_ms: 10_000,
        slots: 30,
    };
    let (mut grouped, mut sampled) = (Vec::new(), Vec::new());
    let mut counted = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        let cells = store.call_stats(&org.id, since, window.step_ms).await?;
        let figures = summarize(&cells, window);
        grouped.push(t.elapsed());
        counted = figures.iter().map(|f| f.total.calls).sum::<i64>();
        let t = Instant::now();
        let mut after = None;
        for _ in 0..5 {
            let page = store
                .audit(&AuditFilter {
                    org_id: Some(org.id.clone()),
                    since_ms: Some(since),
                    after_seq: after,
                    limit: Some(1000),
                    ..AuditFilter::default()
                })
                .await?;
            after = page.last().map(|r| r.seq);
        }
        sampled.push(t.elapsed());
    }
    println!(
        "| {name} | {rows} rows, {servers} servers | grouped (every row counted: {counted}) | {:.1} ms | five pages of 1,000 rows (the old page's sample) | {:.1} ms |",
        median(grouped).as_secs_f64() * 1e3,
        median(sampled).as_secs_f64() * 1e3,
    );
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let sqlite = SqlStore::open_sqlite(dir.path()).await?;
    measure("SQLite", Arc::new(sqlite)).await?;
    if let Ok(url) = std::env::var("SWITCHBOARD_TEST_DATABASE_URL") {
        let schema = format!("sb_console_bench_{}", std::process::id());
        let scoped = create_schema(&url, &schema).await?;
        let store = SqlStore::open(&scoped).await?;
        measure("Postgres", Arc::new(store)).await?;
        drop_schema(&url, &schema).await?;
    }
    Ok(())
}
