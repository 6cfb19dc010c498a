//! The committing task: gathers what has queued into one transaction, retries a failed one
//! without losing it, and says when the store stops and starts taking rows again.

use super::{AuditWriterStats, Queued};
use crate::Store;
use crate::audit::{Advance, AuditEntry, AuditRow, Chain, HEAD_WAIT, HeadFile};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Most entries committed in one transaction (the rest wait for the next, which starts at
/// once).
const MAX_BATCH: usize = 4096;
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

/// Where the committing task writes: the store, the chain's key, and the checkpoint file
/// that follows the chain's head (SQLite).
pub(crate) struct Committing {
    pub store: Arc<dyn Store>,
    pub chain: Chain,
    pub head_file: Option<HeadFile>,
}

pub(crate) async fn commit_loop(
    committing: Committing,
    mut rx: mpsc::Receiver<Queued>,
    stats: Arc<AuditWriterStats>,
    closing: CancellationToken,
) {
    let Committing {
        store,
        chain,
        head_file,
    } = committing;
    let mut batch: Vec<Queued> = Vec::with_capacity(512);
    let mut outage: Option<Outage> = None;
    // Shutting down with a store that refused even the retries: the rest is counted, not tried.
    let mut given_up = false;
    while gather(&mut rx, &mut batch, &closing).await {
        if given_up {
            give_up(
                &stats,
                batch.len(),
                "shutting down after the store refused the retries",
            );
        } else {
            let committer = Committer {
                store: &store,
                chain: &chain,
                head_file: head_file.as_ref(),
                stats: &stats,
                closing: &closing,
            };
            given_up = !committer.commit(&mut batch, &mut outage).await;
        }
        batch.clear();
    }
}

/// Waits for a first row, lets `LINGER` pass (not while closing), then takes what has queued
/// meanwhile: one wake-up of this task per batch, not one per row. `false` when the queue is
/// closed and empty.
async fn gather(
    rx: &mut mpsc::Receiver<Queued>,
    batch: &mut Vec<Queued>,
    closing: &CancellationToken,
) -> bool {
    let first = tokio::select! {
        queued = rx.recv() => queued,
        _ = closing.cancelled() => rx.try_recv().ok(),
    };
    let Some(first) = first else { return false };
    batch.push(first);
    // Already closing: `cancelled` is ready at once, so nothing lingers.
    tokio::select! {
        _ = tokio::time::sleep(LINGER) => {}
        _ = closing.cancelled() => {}
    }
    while batch.len() < MAX_BATCH {
        let Ok(queued) = rx.try_recv() else { break };
        batch.push(queued);
    }
    true
}

/// Rows that will never be committed: counted and said.
fn give_up(stats: &AuditWriterStats, rows: usize, why: &str) {
    let lost = rows as u64;
    stats.dropped.fetch_add(lost, Ordering::Relaxed);
    tracing::error!(
        dropped = lost,
        "{why}: {lost} audit rows were not committed; counted in switchboard_audit_rows_dropped_total"
    );
}

struct Committer<'a> {
    store: &'a Arc<dyn Store>,
    chain: &'a Chain,
    head_file: Option<&'a HeadFile>,
    stats: &'a AuditWriterStats,
    closing: &'a CancellationToken,
}

impl Committer<'_> {
    /// Commits `batch`, retrying with backoff until it is in; `false` when shutdown gave it up.
    async fn commit(&self, batch: &mut [Queued], outage: &mut Option<Outage>) -> bool {
        // Moved out, not cloned: the rows go to the store once, the waiters stay in `batch`.
        let entries: Vec<AuditEntry> = (batch.iter_mut())
            .map(|q| std::mem::take(&mut q.entry))
            .collect();
        // One id for every try of this batch: a retry after a lost answer finds it.
        let mut mark = crate::BatchMark {
            id: crate::new_id("b"),
            retried: false,
        };
        let mut delay = Duration::from_millis(50);
        let mut retries_closing = 0;
        loop {
            let started = Instant::now();
            match self.append(&mark, &entries).await {
                Ok(rows) => {
                    let micros = started.elapsed().as_micros() as u64;
                    let stats = self.stats;
                    stats.commit_micros.fetch_add(micros, Ordering::Relaxed);
                    (stats.written).fetch_add(rows.len() as u64, Ordering::Relaxed);
                    self.advance_head(rows).await;
                    stats.batches.fetch_add(1, Ordering::Relaxed);
                    stats.failing.store(false, Ordering::Release);
                    if let Some(outage) = outage.take() {
                        outage.over(stats);
                    }
                    for waiter in batch.iter_mut().filter_map(|q| q.committed.take()) {
                        let _ = waiter.send(());
                    }
                    return true;
                }
                Err(e) => {
                    // Keep the batch and retry: losing audit rows is worse than lagging.
                    self.stats.failed_batches.fetch_add(1, Ordering::Relaxed);
                    self.stats.failing.store(true, Ordering::Release);
                    let outage = outage.get_or_insert_with(|| Outage::began(&e, self.stats));
                    outage.failures += 1;
                    tracing::debug!("audit append failed, retrying in {delay:?}: {e}");
                    if self.closing.is_cancelled() {
                        retries_closing += 1;
                        if retries_closing > RETRIES_WHEN_CLOSING {
                            let why = format!("shutting down while the store refuses rows ({e})");
                            give_up(self.stats, entries.len(), &why);
                            return false;
                        }
                    }
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(MAX_RETRY_DELAY);
                    mark.retried = true;
                }
            }
        }
    }

    /// Moves the checkpoint file past the rows just committed (before any waiter hears of
    /// the commit: a strict call's answer implies its row is covered).
    async fn advance_head(&self, rows: Vec<AuditRow>) {
        let Some(file) = self.head_file.cloned() else {
            return;
        };
        let (chain, store) = (self.chain.clone(), self.store.clone());
        let runtime = tokio::runtime::Handle::current();
        let hash_at = move |seq| {
            let lookup = tokio::time::timeout(HEAD_WAIT, hash_at(store.as_ref(), seq));
            runtime
                .block_on(lookup)
                .map_err(|_| "the store did not answer in time".to_string())?
        };
        let moved = tokio::task::spawn_blocking(move || file.advance(&chain, &rows, hash_at)).await;
        match moved {
            Ok(Ok(Advance::Moved | Advance::Behind)) => {}
            // Said once a process: every later commit finds the same.
            Ok(Ok(Advance::Cut { .. } | Advance::Invalid { .. }))
                if HEAD_ALARM_SAID.swap(true, Ordering::Relaxed) => {}
            Ok(Ok(Advance::Invalid { why })) => tracing::error!(
                "the audit checkpoint is not a head of this chain ({why}); it is left as it is, and `switchboard audit verify` reports it"
            ),
            Ok(Ok(Advance::Busy)) => tracing::warn!(
                "the audit checkpoint's lock was held over {HEAD_WAIT:?} by another process; a later commit moves it"
            ),
            Ok(Ok(Advance::Cut { checkpoint })) => tracing::error!(
                checkpoint_row = checkpoint.seq,
                "the audit chain was cut: rows up to {} were committed before, and this commit wrote rows in their place; the checkpoint keeps the old head, and `switchboard audit verify` names the first missing row",
                checkpoint.seq
            ),
            Ok(Err(e)) => tracing::warn!(
                "the audit checkpoint was not moved ({e}): a cut of the newest rows is found only up to its last head"
            ),
            Err(e) => tracing::warn!("the audit checkpoint was not moved: {e}"),
        }
    }

    /// One try, within `COMMIT_TIMEOUT`; the rows in the chain for this batch.
    async fn append(
        &self,
        mark: &crate::BatchMark,
        entries: &[AuditEntry],
    ) -> Result<Vec<AuditRow>, crate::StoreError> {
        let append = self.store.append_audit_batch(self.chain, mark, entries);
        match tokio::time::timeout(COMMIT_TIMEOUT, append).await {
            Ok(appended) => appended,
            Err(_) => Err(crate::StoreError::Database(format!(
                "a commit took over {} s",
                COMMIT_TIMEOUT.as_secs()
            ))),
        }
    }
}

/// Whether this process has said that the chain was cut or the checkpoint is not its own.
static HEAD_ALARM_SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The MAC of row `seq` as the store has it now; `None` when there is no such row.
async fn hash_at(store: &dyn Store, seq: i64) -> Result<Option<String>, String> {
    let filter = crate::AuditFilter {
        after_seq: Some(seq - 1),
        limit: Some(1),
        ..Default::default()
    };
    let rows = store.audit(&filter).await.map_err(|e| e.to_string())?;
    Ok(rows.into_iter().find(|r| r.seq == seq).map(|r| r.hash))
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
