//! The committing task: gathers what has queued into one transaction, retries a failed one
//! without losing it, and says when the store stops and starts taking rows again.

use super::{AuditWriterStats, Queued};
use crate::Store;
use crate::audit::{AuditEntry, Chain};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Most entries committed in one transaction.
const MAX_BATCH: usize = 512;
/// How long a batch waits for company after its first entry: a few milliseconds of audit
/// latency (never call latency in buffered durability) buys far fewer transactions.
const LINGER: Duration = Duration::from_millis(5);
/// The longest pause between retries of a failed commit.
const MAX_RETRY_DELAY: Duration = Duration::from_secs(2);
/// Retries of a failed commit once shutdown has begun, before its rows are given up.
const RETRIES_WHEN_CLOSING: u32 = 3;
/// The longest one commit may take before it counts as failed (a store that hangs instead of
/// refusing must not stall the writer).
const COMMIT_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) async fn commit_loop(
    store: Arc<dyn Store>,
    chain: Chain,
    mut rx: mpsc::Receiver<Queued>,
    stats: Arc<AuditWriterStats>,
    closing: CancellationToken,
) {
    let mut batch: Vec<Queued> = Vec::with_capacity(MAX_BATCH);
    let mut entries: Vec<AuditEntry> = Vec::with_capacity(MAX_BATCH);
    let mut outage: Option<Outage> = None;
    // Shutting down with a store that refused even the retries: the rest is counted, not tried.
    let mut given_up = false;
    loop {
        let first = tokio::select! {
            queued = rx.recv() => queued,
            _ = closing.cancelled() => rx.try_recv().ok(),
        };
        let Some(first) = first else { break };
        batch.push(first);
        let deadline = tokio::time::Instant::now() + LINGER;
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(queued) => batch.push(queued),
                Err(_) if closing.is_cancelled() => break,
                Err(_) => match tokio::time::timeout_at(deadline, rx.recv()).await {
                    Ok(Some(queued)) => batch.push(queued),
                    Ok(None) | Err(_) => break,
                },
            }
        }
        if given_up {
            let lost = batch.len() as u64;
            stats.dropped.fetch_add(lost, Ordering::Relaxed);
            tracing::error!(
                dropped = lost,
                "shutting down: {lost} more audit rows were not committed"
            );
            batch.clear();
            continue;
        }
        // Moved out, not cloned: the rows go to the store once, the waiters stay here.
        entries.extend(batch.iter_mut().map(|q| std::mem::take(&mut q.entry)));
        // One id for every try of this batch: a retry after a lost answer finds it.
        let batch_id = crate::new_id("b");
        let mut delay = Duration::from_millis(50);
        let mut retries_closing = 0;
        loop {
            let started = Instant::now();
            let append = store.append_audit_batch(&chain, &batch_id, &entries);
            let appended = match tokio::time::timeout(COMMIT_TIMEOUT, append).await {
                Ok(appended) => appended,
                Err(_) => Err(crate::StoreError::Database(format!(
                    "a commit took over {} s",
                    COMMIT_TIMEOUT.as_secs()
                ))),
            };
            match appended {
                Ok(rows) => {
                    let micros = started.elapsed().as_micros() as u64;
                    stats.commit_micros.fetch_add(micros, Ordering::Relaxed);
                    stats
                        .written
                        .fetch_add(rows.len() as u64, Ordering::Relaxed);
                    stats.batches.fetch_add(1, Ordering::Relaxed);
                    stats.failing.store(false, Ordering::Release);
                    if let Some(outage) = outage.take() {
                        outage.over(&stats);
                    }
                    for queued in batch.drain(..) {
                        if let Some(waiter) = queued.committed {
                            let _ = waiter.send(());
                        }
                    }
                    break;
                }
                Err(e) => {
                    // Keep the batch and retry: losing audit rows is worse than lagging.
                    stats.failed_batches.fetch_add(1, Ordering::Relaxed);
                    stats.failing.store(true, Ordering::Release);
                    let outage = outage.get_or_insert_with(|| Outage::began(&e, &stats));
                    outage.failures += 1;
                    tracing::debug!("audit append failed, retrying in {delay:?}: {e}");
                    if closing.is_cancelled() {
                        retries_closing += 1;
                        if retries_closing > RETRIES_WHEN_CLOSING {
                            let lost = entries.len() as u64;
                            stats.dropped.fetch_add(lost, Ordering::Relaxed);
                            tracing::error!(
                                dropped = lost,
                                "shutting down while the audit store refuses rows ({e}): {lost} audit rows were not committed; counted in switchboard_audit_rows_dropped_total"
                            );
                            batch.clear();
                            given_up = true;
                            break;
                        }
                    }
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(MAX_RETRY_DELAY);
                }
            }
        }
        entries.clear();
    }
}

/// A stretch of time in which the store took no rows.
struct Outage {
    since: Instant,
    failures: u64,
    dropped_before: u64,
}

impl Outage {
    fn began(error: &crate::StoreError, stats: &AuditWriterStats) -> Self {
        tracing::error!(
            "the audit store is not taking rows ({error}); rows wait in memory and are retried, calls keep being answered unless [audit] durability = \"strict\""
        );
        Self {
            since: Instant::now(),
            failures: 0,
            dropped_before: stats.dropped.load(Ordering::Relaxed),
        }
    }

    fn over(self, stats: &AuditWriterStats) {
        let dropped = stats
            .dropped
            .load(Ordering::Relaxed)
            .saturating_sub(self.dropped_before);
        tracing::warn!(
            seconds = self.since.elapsed().as_secs_f64(),
            failed_commits = self.failures,
            dropped,
            "the audit store takes rows again after {:.1} s and {} failed commits; {dropped} rows were dropped meanwhile",
            self.since.elapsed().as_secs_f64(),
            self.failures
        );
    }
}
