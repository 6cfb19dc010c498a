//! Audit appends per second with group commit: many producers record through one
//! `AuditWriter`; prints rows/s and rows per transaction for SQLite (and Postgres when
//! `SWITCHBOARD_BENCH_DATABASE_URL` is set).
//!
//! `cargo run --release -p switchboard-bench --bin audit-append`

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use switchboard_store::{AuditEntry, AuditWriter, Chain, SqlStore, Store, now_ms};

const PRODUCERS: usize = 32;
const PER_PRODUCER: usize = 2_000;

fn entry(i: usize) -> AuditEntry {
    AuditEntry {
        at: now_ms(),
        org_id: Some("org_bench".into()),
        agent_id: Some(format!("agent-{}", i % 7)),
        action_id: "mcp.echo.echo".into(),
        server: Some("echo".into()),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        duration_us: 500,
        request_bytes: 20,
        response_bytes: 20,
        ..Default::default()
    }
}

async fn run(label: &str, store: SqlStore) -> anyhow::Result<()> {
    let store: Arc<dyn Store> = Arc::new(store);
    let (writer, task) = AuditWriter::start(store.clone(), Chain::new([1; 32]), 4096);
    let stats = writer.stats();
    let started = Instant::now();
    let producers: Vec<_> = (0..PRODUCERS)
        .map(|p| {
            let writer = writer.clone();
            tokio::spawn(async move {
                for i in 0..PER_PRODUCER {
                    writer.record(entry(p * PER_PRODUCER + i)).await;
                }
            })
        })
        .collect();
    for p in producers {
        p.await?;
    }
    drop(writer);
    task.finish().await;
    let elapsed = started.elapsed();
    let rows = stats.written.load(Ordering::Relaxed);
    let batches = stats.batches.load(Ordering::Relaxed).max(1);
    println!(
        "{label:<9} {rows} rows in {:.2} s: {:.0} rows/s, {:.1} rows per transaction ({batches} transactions)",
        elapsed.as_secs_f64(),
        rows as f64 / elapsed.as_secs_f64(),
        rows as f64 / batches as f64
    );
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("audit-append: {PRODUCERS} producers x {PER_PRODUCER} rows, one writer, group commit");
    let dir = tempfile::tempdir()?;
    run("sqlite", SqlStore::open_sqlite(dir.path()).await?).await?;
    if let Ok(url) = std::env::var("SWITCHBOARD_BENCH_DATABASE_URL") {
        let schema = format!("sb_bench_{}", std::process::id());
        let scoped = switchboard_store::create_schema(&url, &schema).await?;
        run("postgres", SqlStore::open(&scoped).await?).await?;
        switchboard_store::drop_schema(&url, &schema).await?;
    }
    Ok(())
}
