//! Audit writes off the hot path: callers queue entries on a bounded channel; one task commits
//! whatever has queued up as one transaction (group commit); shutdown drains the queue. In
//! strict durability a call waits for its own row's commit before its answer is released.

mod commit;
mod entry;

pub use entry::entry_for;

use crate::Store;
use crate::audit::{AuditEntry, Chain};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use switchboard_core::{CallError, CallObserver, CallRecord, ErrorKind, GuardFuture};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How a call's audit row is kept (`[audit] durability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// The answer goes out at once; the row is committed within milliseconds (group commit).
    /// A `kill -9` loses the rows not yet committed; an unreachable store makes rows wait in
    /// memory up to the queue's bound, then they are dropped and counted.
    #[default]
    Buffered,
    /// A call's answer is released only after its audit row is committed; while the store
    /// cannot take rows, calls fail closed (`audit_unavailable`).
    Strict,
}

/// The writer's settings (`[audit]` in switchboard.toml).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuditOptions {
    pub durability: Durability,
    /// Rows that may wait in memory for the store; past it rows are dropped (buffered) or
    /// calls wait for room (strict).
    pub queue: usize,
    /// How long a strict call waits for its row's commit before failing closed.
    pub strict_wait: Duration,
    /// The checkpoint file each commit moves forward (SQLite stores).
    pub head_file: Option<crate::HeadFile>,
}

impl Default for AuditOptions {
    fn default() -> Self {
        Self {
            durability: Durability::Buffered,
            queue: 65_536,
            strict_wait: Duration::from_secs(5),
            head_file: None,
        }
    }
}

impl AuditOptions {
    pub fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }
    pub fn with_queue(mut self, queue: usize) -> Self {
        self.queue = queue.max(1);
        self
    }
    pub fn with_strict_wait(mut self, wait: Duration) -> Self {
        self.strict_wait = wait;
        self
    }
    /// Moves the chain's head in `file` with every commit, so that a cut of the newest rows
    /// is found by `audit verify`.
    pub fn with_head_file(mut self, file: crate::HeadFile) -> Self {
        self.head_file = Some(file);
        self
    }
}

/// Counters for tests, metrics and benchmarks.
#[derive(Debug, Default)]
pub struct AuditWriterStats {
    pub written: AtomicU64,
    pub batches: AtomicU64,
    pub failed_batches: AtomicU64,
    /// Microseconds spent in successful commits, in total.
    pub commit_micros: AtomicU64,
    /// Rows never committed: the queue was full (buffered), or the store still refused them
    /// when the gateway shut down.
    pub dropped: AtomicU64,
    /// The last commit failed and none has succeeded since: the store cannot take rows now.
    pub failing: AtomicBool,
    /// Drops not yet said in the log, and when the log last spoke of them (ms since start).
    pub(crate) unreported_drops: AtomicU64,
    pub(crate) drops_reported_at: AtomicU64,
}

/// One row on its way to the store, and who waits for its commit (strict durability).
pub(crate) struct Queued {
    pub(crate) entry: AuditEntry,
    pub(crate) committed: Option<oneshot::Sender<()>>,
}

impl Queued {
    /// A row nobody waits for.
    fn row(entry: AuditEntry) -> Self {
        Self {
            entry,
            committed: None,
        }
    }
}

/// The queue into the audit chain. Cloning shares the queue.
#[derive(Clone)]
pub struct AuditWriter {
    tx: mpsc::Sender<Queued>,
    stats: Arc<AuditWriterStats>,
    options: AuditOptions,
    started: std::time::Instant,
}

/// The committing task; `finish` commits everything queued so far and stops it.
pub struct AuditWriterTask {
    handle: JoinHandle<()>,
    closing: CancellationToken,
}

impl AuditWriter {
    /// Starts the committing task in buffered durability with a queue of `capacity` rows.
    pub fn start(store: Arc<dyn Store>, chain: Chain, capacity: usize) -> (Self, AuditWriterTask) {
        Self::start_with(store, chain, AuditOptions::default().with_queue(capacity))
    }

    /// Starts the committing task with `options`.
    pub fn start_with(
        store: Arc<dyn Store>,
        chain: Chain,
        options: AuditOptions,
    ) -> (Self, AuditWriterTask) {
        let (tx, rx) = mpsc::channel(options.queue.max(1));
        let stats = Arc::new(AuditWriterStats::default());
        let closing = CancellationToken::new();
        let handle = tokio::spawn(commit::commit_loop(
            commit::Committing {
                store,
                chain,
                head_file: options.head_file.clone(),
            },
            rx,
            stats.clone(),
            closing.clone(),
        ));
        let writer = Self {
            tx,
            stats,
            options,
            started: std::time::Instant::now(),
        };
        (writer, AuditWriterTask { handle, closing })
    }

    /// Queues one entry; waits only while the queue is full (configuration and admin events,
    /// which are rare and must not be lost).
    pub async fn record(&self, entry: AuditEntry) {
        if self.tx.send(Queued::row(entry)).await.is_err() {
            tracing::error!("audit writer is stopped; an audit row was lost");
        }
    }

    /// Queues one configuration or admin event without waiting: when the queue is full the
    /// row waits in a task of its own (these are rare; none is lost).
    pub fn record_now(&self, entry: AuditEntry) {
        if let Some(entry) = self.try_queue(entry) {
            let this = self.clone();
            tokio::spawn(async move { this.record(entry).await });
        }
    }

    /// Queues one call's row without waiting. When the queue is full (the store has been
    /// unreachable for a while) the row is dropped, counted and said in the log.
    pub fn record_call_now(&self, entry: AuditEntry) {
        if self.try_queue(entry).is_some() {
            self.dropped_one();
        }
    }

    /// Queues `entry` if there is room; gives it back when the queue is full.
    fn try_queue(&self, entry: AuditEntry) -> Option<AuditEntry> {
        match self.tx.try_send(Queued::row(entry)) {
            Ok(()) => None,
            Err(mpsc::error::TrySendError::Full(queued)) => Some(queued.entry),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                tracing::error!("audit writer is stopped; an audit row was lost");
                None
            }
        }
    }

    /// Queues one entry and waits, at most `strict_wait` in all, for its commit. A row that
    /// found no room in the queue in time is counted as dropped; a commit that did not come in
    /// time marks the store failing, so later calls are refused before they go upstream.
    pub async fn record_committed(&self, entry: AuditEntry) -> Result<(), CallError> {
        let (done, committed) = oneshot::channel();
        let queued = Queued {
            entry,
            committed: Some(done),
        };
        let wait = self.options.strict_wait;
        let deadline = tokio::time::Instant::now() + wait;
        let late = || {
            self.unavailable(&format!(
                "its audit row was not committed within {} ms",
                wait.as_millis()
            ))
        };
        match tokio::time::timeout_at(deadline, self.tx.send(queued)).await {
            Ok(Ok(())) => {}
            Ok(Err(_closed)) => return Err(self.unavailable("the audit writer is stopped")),
            Err(_) => {
                self.dropped_one();
                return Err(late());
            }
        }
        match tokio::time::timeout_at(deadline, committed).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(self.unavailable("the audit writer gave the row up")),
            Err(_) => {
                self.stats.failing.store(true, Ordering::Release);
                Err(late())
            }
        }
    }

    /// The refusal of a strict call while the store cannot take rows.
    fn unavailable(&self, what: &str) -> CallError {
        CallError::new(
            ErrorKind::AuditUnavailable,
            format!(
                "the audit store cannot take rows ({what}), and [audit] durability = \"strict\" releases no answer without its row; check the database (`switchboard audit verify`, the log's audit lines), or set durability = \"buffered\""
            ),
        )
    }

    fn dropped_one(&self) {
        self.stats.dropped.fetch_add(1, Ordering::Relaxed);
        self.stats.unreported_drops.fetch_add(1, Ordering::Relaxed);
        // Said at most once a second, with how many since the last time.
        let now = self.started.elapsed().as_millis() as u64;
        let last = self.stats.drops_reported_at.load(Ordering::Relaxed);
        if (now.saturating_sub(last) >= 1000 || last == 0)
            && self
                .stats
                .drops_reported_at
                .compare_exchange(last, now.max(1), Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            let dropped = self.stats.unreported_drops.swap(0, Ordering::AcqRel);
            tracing::error!(
                dropped,
                queue = self.options.queue,
                "audit rows dropped: {dropped} since the last report, the queue of {} rows is full because the store is not taking rows; counted in switchboard_audit_rows_dropped_total. Fix the database, raise [audit] queue, or set durability = \"strict\" to fail calls instead",
                self.options.queue
            );
        }
    }

    pub fn stats(&self) -> Arc<AuditWriterStats> {
        self.stats.clone()
    }

    pub fn durability(&self) -> Durability {
        self.options.durability
    }

    /// Rows waiting in the queue now.
    pub fn queued(&self) -> usize {
        self.tx.max_capacity() - self.tx.capacity()
    }
}

impl AuditWriterTask {
    /// Commits everything queued so far, then stops (graceful shutdown loses nothing that was
    /// recorded before this call, unless the store keeps refusing: then what it could not
    /// take is counted as dropped and said in the log).
    pub async fn finish(self) {
        self.closing.cancel();
        let _ = self.handle.await;
    }
}

impl CallObserver for AuditWriter {
    fn observe(&self, record: CallRecord) {
        self.record_call_now(entry_for(record));
    }

    fn observe_durably(
        &self,
        record: CallRecord,
    ) -> Option<GuardFuture<'static, Result<(), CallError>>> {
        match self.options.durability {
            Durability::Buffered => {
                self.observe(record);
                None
            }
            // Refused before it started because the store takes no rows: answered at once,
            // its row queued as it can be.
            Durability::Strict if record.outcome == Err(ErrorKind::AuditUnavailable) => {
                self.observe(record);
                None
            }
            Durability::Strict => {
                let this = self.clone();
                Some(Box::pin(async move {
                    this.record_committed(entry_for(record)).await
                }))
            }
        }
    }

    fn refuses_calls(&self) -> Option<CallError> {
        let strict = self.options.durability == Durability::Strict;
        (strict && self.stats.failing.load(Ordering::Acquire))
            .then(|| self.unavailable("its last commit failed"))
    }
}
