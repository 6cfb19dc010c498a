//! Audit appends per second with group commit: many producers record through one
//! `AuditWriter`; prints rows/s and rows per transaction for SQLite (and Postgres when
//! `SWITCHBOARD_BENCH_DATABASE_URL` is set). SQLite runs without and with the checkpoint
//! file every commit moves (`audit.head`), grouped and one row per commit (strict
//! durability, each row waited for), the worst case for the checkpoint.
//!
//! `cargo run --release -p switchboard-bench --bin audit-append`

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use switchboard_store::{
    AuditEntry, AuditOptions, AuditWriter, Chain, Durability, HeadFile, SqlStore, Store, now_ms,
};

const PRODUCERS: usize = 32;
const PER_PRODUCER: usize = 2_000;
/// Rows committed one at a time, each waited for.
const ONE_BY_ONE: usize = 2_000;

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

async fn run(label: &str, store: SqlStore, head: Option<HeadFile>) -> anyhow::Result<()> {
    let store: Arc<dyn Store> = Arc::new(store);
    let mut options = AuditOptions::default().with_queue(4096);
    if let Some(head) = head.clone() {
        options = options.with_head_file(head);
    }
    let (writer, task) = AuditWriter::start_with(store.clone(), Chain::new([1; 32]), options);
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
        "{label:<22} grouped     {rows} rows in {:.2} s: {:.0} rows/s, {:.1} rows per transaction ({batches} transactions)",
        elapsed.as_secs_f64(),
        rows as f64 / elapsed.as_secs_f64(),
        rows as f64 / batches as f64
    );

    // One row per commit: each waited for before the next is recorded.
    let mut options = AuditOptions::default().with_durability(Durability::Strict);
    if let Some(head) = head {
        options = options.with_head_file(head);
    }
    let (writer, task) = AuditWriter::start_with(store, Chain::new([1; 32]), options);
    let mut waits = Vec::with_capacity(ONE_BY_ONE);
    for i in 0..ONE_BY_ONE {
        let sent = Instant::now();
        writer
            .record_committed(entry(i))
            .await
            .map_err(|e| anyhow::anyhow!("{}", e.message))?;
        waits.push(sent.elapsed().as_micros() as u64);
    }
    drop(writer);
    task.finish().await;
    waits.sort_unstable();
    let total: u64 = waits.iter().sum();
    println!(
        "{label:<22} one by one  {ONE_BY_ONE} rows: {:.0} rows/s, commit wait p50 {} us, p99 {} us",
        ONE_BY_ONE as f64 / (total as f64 / 1e6),
        waits[waits.len() / 2],
        waits[waits.len() * 99 / 100]
    );
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("audit-append: {PRODUCERS} producers x {PER_PRODUCER} rows, one writer, group commit");
    // Without and with the checkpoint, twice each in turn, so the machine's slow moments
    // fall on both.
    for round in 1..=2 {
        let dir = tempfile::tempdir()?;
        let store = SqlStore::open_sqlite(dir.path()).await?;
        run(&format!("sqlite #{round}"), store, None).await?;
        let dir = tempfile::tempdir()?;
        let store = SqlStore::open_sqlite(dir.path()).await?;
        let head = HeadFile::new(dir.path().join("audit.head"));
        run(&format!("sqlite+checkpoint #{round}"), store, Some(head)).await?;
    }
    if let Ok(url) = std::env::var("SWITCHBOARD_BENCH_DATABASE_URL") {
        let schema = format!("sb_bench_{}", std::process::id());
        let scoped = switchboard_store::create_schema(&url, &schema).await?;
        run("postgres", SqlStore::open(&scoped).await?, None).await?;
        switchboard_store::drop_schema(&url, &schema).await?;
    }
    Ok(())
}
