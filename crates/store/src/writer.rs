//! Audit writes off the hot path: callers queue entries on a bounded channel; one task commits
//! whatever has queued up as one transaction (group commit); shutdown drains the queue.

use crate::Store;
use crate::audit::{AuditEntry, Chain};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Most entries committed in one transaction.
const MAX_BATCH: usize = 512;

/// Counters for tests, metrics and benchmarks.
#[derive(Debug, Default)]
pub struct AuditWriterStats {
    pub written: AtomicU64,
    pub batches: AtomicU64,
    pub failed_batches: AtomicU64,
}

/// The queue into the audit chain. Cloning shares the queue.
#[derive(Clone)]
pub struct AuditWriter {
    tx: mpsc::Sender<AuditEntry>,
    stats: Arc<AuditWriterStats>,
}

/// The committing task; `finish` waits for everything queued to be written.
pub struct AuditWriterTask {
    handle: JoinHandle<()>,
}

impl AuditWriter {
    /// Starts the committing task. `capacity` bounds the queue: when full, `record` waits
    /// (backpressure) rather than dropping audit rows.
    pub fn start(store: Arc<dyn Store>, chain: Chain, capacity: usize) -> (Self, AuditWriterTask) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let stats = Arc::new(AuditWriterStats::default());
        let handle = tokio::spawn(commit_loop(store, chain, rx, stats.clone()));
        (Self { tx, stats }, AuditWriterTask { handle })
    }

    /// Queues one entry; waits only while the queue is full.
    pub async fn record(&self, entry: AuditEntry) {
        if self.tx.send(entry).await.is_err() {
            tracing::error!("audit writer is stopped; an audit row was lost");
        }
    }

    pub fn stats(&self) -> &AuditWriterStats {
        &self.stats
    }
}

impl AuditWriterTask {
    /// Waits until every queued entry is committed. Call after the last `AuditWriter` clone
    /// is dropped (the queue closes when all senders are gone).
    pub async fn finish(self) {
        let _ = self.handle.await;
    }
}

async fn commit_loop(
    store: Arc<dyn Store>,
    chain: Chain,
    mut rx: mpsc::Receiver<AuditEntry>,
    stats: Arc<AuditWriterStats>,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(entry) => batch.push(entry),
                Err(_) => break,
            }
        }
        let mut delay = Duration::from_millis(50);
        loop {
            match store.append_audit(&chain, &batch).await {
                Ok(rows) => {
                    stats
                        .written
                        .fetch_add(rows.len() as u64, Ordering::Relaxed);
                    stats.batches.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                Err(e) => {
                    // Keep the batch and retry: losing audit rows is worse than lagging.
                    stats.failed_batches.fetch_add(1, Ordering::Relaxed);
                    tracing::error!("audit append failed, retrying in {delay:?}: {e}");
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
            }
        }
        batch.clear();
    }
}
