//! Audit retention: rows older than the retention are deleted after a row that records the cut
//! (`audit.retention`, naming the first row kept and the hash it links to) is committed, so
//! `audit verify` reports the cut as retention, never as rows removed.

use crate::audit::{RETENTION_ACTION, retention_detail};
use crate::{AuditEntry, AuditFilter, AuditWriter, Store, now_ms};

/// Deletes the rows written before `cutoff_ms`, after recording the cut in the chain; how many
/// rows went. The newest row always stays (the chain must keep its head).
pub async fn cut_audit_before(
    store: &dyn Store,
    audit: &AuditWriter,
    cutoff_ms: i64,
) -> Result<u64, String> {
    let first = |filter: AuditFilter| async move {
        let rows = store.audit(&filter).await.map_err(|e| e.to_string())?;
        Ok::<_, String>(rows.into_iter().next())
    };
    let oldest = first(AuditFilter {
        limit: Some(1),
        ..AuditFilter::default()
    });
    let Some(oldest) = oldest.await? else {
        return Ok(0);
    };
    let kept = first(AuditFilter {
        since_ms: Some(cutoff_ms),
        limit: Some(1),
        ..AuditFilter::default()
    });
    // Every row is older than the cutoff: the newest stays, the rest go.
    let kept = match kept.await? {
        Some(row) => row,
        None => {
            let last = store.audit_last().await.map_err(|e| e.to_string())?;
            let Some((seq, _)) = last else { return Ok(0) };
            let filter = AuditFilter {
                after_seq: Some(seq - 1),
                limit: Some(1),
                ..AuditFilter::default()
            };
            first(filter)
                .await?
                .ok_or("the newest audit row vanished")?
        }
    };
    if kept.seq <= oldest.seq {
        return Ok(0);
    }
    let record = AuditEntry {
        at: now_ms(),
        action_id: RETENTION_ACTION.into(),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        detail: Some(retention_detail(kept.seq, &kept.prev_hash, cutoff_ms)),
        ..AuditEntry::default()
    };
    // The record is in the chain before any row goes: a crash in between leaves rows a later
    // cut removes, never a gap nobody recorded.
    (audit.record_committed(record).await).map_err(|e| e.message)?;
    let removed = store.delete_audit_before(kept.seq).await;
    removed.map_err(|e| e.to_string())
}
