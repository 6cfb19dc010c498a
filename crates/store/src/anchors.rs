//! The signed head of a shared chain, in the log at a fixed interval: Postgres replicas may
//! have no lasting disk for a checkpoint file, so each logs the head it sees, and whoever
//! keeps the logs keeps anchors (`audit verify --anchor` takes such a line).

use crate::{Chain, Store, now_ms};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often a replica logs the chain's head by default.
pub const HEAD_LOG_EVERY: Duration = Duration::from_secs(60);

/// Logs the chain's signed head every `every` while it moves, until `shutdown`.
pub fn spawn_head_log(
    store: Arc<dyn Store>,
    chain: Chain,
    every: Duration,
    shutdown: CancellationToken,
) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut logged = None;
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = ticks.tick() => {}
            }
            match store.audit_last().await {
                Ok(Some((seq, hash))) if logged != Some(seq) => {
                    let head = chain.sign_head(seq, &hash, now_ms());
                    let anchor = serde_json::to_string(&head).unwrap_or_default();
                    tracing::info!(target: "switchboard::audit", "audit head {anchor}");
                    logged = Some(seq);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("cannot read the audit chain's head to log it: {e}"),
            }
        }
    });
}
