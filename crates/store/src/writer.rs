//! Audit writes off the hot path: callers queue entries on a bounded channel; one task commits
//! whatever has queued up as one transaction (group commit); shutdown drains the queue.

use crate::Store;
use crate::audit::{AuditEntry, Chain};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use switchboard_core::{CallObserver, CallRecord, ErrorKind};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Most entries committed in one transaction.
const MAX_BATCH: usize = 512;
/// How long a batch waits for company after its first entry: a few milliseconds of audit
/// latency (never call latency) buys far fewer transactions under load.
const LINGER: Duration = Duration::from_millis(5);

/// Counters for tests, metrics and benchmarks.
#[derive(Debug, Default)]
pub struct AuditWriterStats {
    pub written: AtomicU64,
    pub batches: AtomicU64,
    pub failed_batches: AtomicU64,
    /// Microseconds spent in successful commits, in total.
    pub commit_micros: AtomicU64,
}

/// The queue into the audit chain. Cloning shares the queue.
#[derive(Clone)]
pub struct AuditWriter {
    tx: mpsc::Sender<AuditEntry>,
    stats: Arc<AuditWriterStats>,
}

/// The committing task; `finish` commits everything queued so far and stops it.
pub struct AuditWriterTask {
    handle: JoinHandle<()>,
    closing: CancellationToken,
}

impl AuditWriter {
    /// Starts the committing task. `capacity` bounds the queue: when full, `record` waits
    /// (backpressure) rather than dropping audit rows.
    pub fn start(store: Arc<dyn Store>, chain: Chain, capacity: usize) -> (Self, AuditWriterTask) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let stats = Arc::new(AuditWriterStats::default());
        let closing = CancellationToken::new();
        let handle = tokio::spawn(commit_loop(
            store,
            chain,
            rx,
            stats.clone(),
            closing.clone(),
        ));
        (Self { tx, stats }, AuditWriterTask { handle, closing })
    }

    /// Queues one entry; waits only while the queue is full.
    pub async fn record(&self, entry: AuditEntry) {
        if self.tx.send(entry).await.is_err() {
            tracing::error!("audit writer is stopped; an audit row was lost");
        }
    }

    /// Queues one entry without waiting: when the queue is full the entry waits in a task of
    /// its own (the caller never blocks, the row is not lost).
    pub fn record_now(&self, entry: AuditEntry) {
        match self.tx.try_send(entry) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(entry)) => {
                let this = self.clone();
                tokio::spawn(async move { this.record(entry).await });
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                tracing::error!("audit writer is stopped; an audit row was lost");
            }
        }
    }

    pub fn stats(&self) -> Arc<AuditWriterStats> {
        self.stats.clone()
    }

    /// Rows waiting in the queue now.
    pub fn queued(&self) -> usize {
        self.tx.max_capacity() - self.tx.capacity()
    }
}

impl AuditWriterTask {
    /// Commits everything queued so far, then stops (graceful shutdown loses nothing that was
    /// recorded before this call).
    pub async fn finish(self) {
        self.closing.cancel();
        let _ = self.handle.await;
    }
}

impl CallObserver for AuditWriter {
    fn observe(&self, record: CallRecord) {
        self.record_now(entry_for(record));
    }
}

/// The audit row for one tool call.
pub fn entry_for(record: CallRecord) -> AuditEntry {
    let refused = matches!(
        record.outcome,
        Err(ErrorKind::PolicyDenied | ErrorKind::RateLimited)
    ) || record.verdicts.iter().any(|v| {
        v.mode == switchboard_core::Mode::Enforce
            && matches!(
                v.effect,
                switchboard_core::Effect::Deny | switchboard_core::Effect::Limit
            )
    });
    let verdict = if refused {
        "denied"
    } else if record
        .verdicts
        .iter()
        .any(|v| v.mode == switchboard_core::Mode::Observe)
    {
        // Let through, but a rule in observe mode would have refused it.
        "observed"
    } else {
        "allowed"
    };
    let outcome = match record.outcome {
        Ok(()) => "ok".to_string(),
        Err(kind) => kind.to_string(),
    };
    let policy = (!record.verdicts.is_empty())
        .then(|| serde_json::to_string(&record.verdicts).ok())
        .flatten();
    AuditEntry {
        at: crate::now_ms(),
        org_id: record.caller.org_id,
        agent_id: record.caller.agent_id,
        end_user_id: record.end_user_id,
        token_id: record.caller.token_id,
        action_id: record.action_id,
        server: record.server,
        verdict: verdict.into(),
        outcome,
        duration_us: record.duration.as_micros() as i64,
        request_bytes: record.request_bytes as i64,
        response_bytes: record.response_bytes as i64,
        detail: Some(format!("surface={}", record.caller.surface))
            .filter(|_| !record.caller.surface.is_empty()),
        policy,
    }
}

async fn commit_loop(
    store: Arc<dyn Store>,
    chain: Chain,
    mut rx: mpsc::Receiver<AuditEntry>,
    stats: Arc<AuditWriterStats>,
    closing: CancellationToken,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    loop {
        let first = tokio::select! {
            entry = rx.recv() => entry,
            _ = closing.cancelled() => rx.try_recv().ok(),
        };
        let Some(first) = first else { break };
        batch.push(first);
        let deadline = tokio::time::Instant::now() + LINGER;
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(entry) => batch.push(entry),
                Err(_) if closing.is_cancelled() => break,
                Err(_) => match tokio::time::timeout_at(deadline, rx.recv()).await {
                    Ok(Some(entry)) => batch.push(entry),
                    Ok(None) | Err(_) => break,
                },
            }
        }
        let mut delay = Duration::from_millis(50);
        loop {
            let started = std::time::Instant::now();
            match store.append_audit(&chain, &batch).await {
                Ok(rows) => {
                    stats
                        .commit_micros
                        .fetch_add(started.elapsed().as_micros() as u64, Ordering::Relaxed);
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
