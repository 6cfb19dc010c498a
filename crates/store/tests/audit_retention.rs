//! Audit retention on a real SQLite and Postgres: rows older than the cutoff are deleted after
//! the cut is recorded in the chain, and the walk reports the cut as retention; rows deleted
//! without that record (or one more than it names) are still a removal.

use std::sync::Arc;
use switchboard_store::{
    AuditEntry, AuditFilter, AuditWriter, Chain, ChainBreak, RETENTION_ACTION, Sealer, SqlStore,
    Store, create_schema, cut_audit_before, drop_schema, verify_audit_to,
};

fn entry(at: i64) -> AuditEntry {
    AuditEntry {
        at,
        action_id: "mcp.billing.charge".into(),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        ..Default::default()
    }
}

async fn retention(store: Arc<SqlStore>) {
    let chain = Chain::new(Sealer::from_keys(vec![[7u8; 32]]).audit_key());
    let (writer, task) = AuditWriter::start(store.clone(), chain.clone(), 64);
    // Five old rows (at 1 000 … 5 000 ms after the epoch), then three of today.
    let now = switchboard_store::now_ms();
    for at in [1_000, 2_000, 3_000, 4_000, 5_000, now, now + 1, now + 2] {
        writer.record_committed(entry(at)).await.unwrap();
    }
    let removed = cut_audit_before(store.as_ref(), &writer, now - 60_000)
        .await
        .unwrap();
    assert_eq!(removed, 5);
    // Nothing older is left: a second cut removes nothing and records nothing.
    assert_eq!(
        cut_audit_before(store.as_ref(), &writer, now - 60_000)
            .await
            .unwrap(),
        0
    );
    let verified = verify_audit_to(store.as_ref(), &chain, None, |_| {})
        .await
        .unwrap();
    let verified = verified.expect("the chain verifies after a recorded cut");
    assert_eq!(verified.rows, 4, "three kept rows and the record");
    assert_eq!(verified.kept_from, Some((6, 9)));
    let rows = store.audit(&AuditFilter::default()).await.unwrap();
    assert_eq!(rows.last().unwrap().entry.action_id, RETENTION_ACTION);

    // One more row deleted than the record names: a removal, as before retention existed.
    store.delete_audit_before(7).await.unwrap();
    let broken = verify_audit_to(store.as_ref(), &chain, None, |_| {})
        .await
        .unwrap();
    assert_eq!(broken, Err(ChainBreak::Removed { after: 0, next: 7 }));
    task.finish().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_retention() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqlStore::open_sqlite(dir.path()).await.unwrap();
    retention(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_retention() {
    let url = std::env::var("SWITCHBOARD_TEST_DATABASE_URL")
        .expect("SWITCHBOARD_TEST_DATABASE_URL (scripts/test.sh sets it)");
    let schema = format!(
        "sb_retention_{}_{}",
        std::process::id(),
        switchboard_store::now_ms()
    );
    let scoped = create_schema(&url, &schema).await.unwrap();
    let store = SqlStore::open(&scoped).await.unwrap();
    retention(Arc::new(store)).await;
    drop_schema(&url, &schema).await.unwrap();
}
