//! Audit durability against a real SQLite whose "disk" fills up (`max_page_count`): strict
//! answers wait for their row and fail closed while it cannot be written; buffered rows wait
//! in memory up to the queue's bound and the rest are counted as dropped; a retried batch is
//! never written twice; the chain verifies afterwards.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use switchboard_core::{CallObserver, ErrorKind};
use switchboard_store::{
    AuditEntry, AuditOptions, AuditWriter, BatchMark, Chain, Durability, SqlStore, Store, now_ms,
    verify_audit,
};

/// How long a test waits for the writer to reach a state before it fails.
const PATIENCE: Duration = Duration::from_secs(20);

fn entry(i: i64) -> AuditEntry {
    AuditEntry {
        at: now_ms(),
        action_id: format!("mcp.billing.tool_{i}"),
        server: Some("billing".into()),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        duration_us: i,
        ..Default::default()
    }
}

/// Sets `max_page_count` on every connection of the store's pool (4 for SQLite) and on the
/// audit appender's own: a low value (SQLite raises it to the pages in use) stands for a full
/// disk, a high one frees it.
async fn set_page_limit(store: &SqlStore, pages: u64) {
    let pragma = format!("PRAGMA max_page_count = {pages}");
    (store.audit_connection_pragma(&pragma).await).expect("set max_page_count on the appender");
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(store.pool().acquire().await.expect("a pooled connection"));
    }
    for conn in &mut held {
        let sql = format!("PRAGMA max_page_count = {pages}");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut **conn)
            .await
            .expect("set max_page_count");
    }
}

/// Fills the "disk": no page may be added, and rows are appended until one no longer fits
/// (each smaller than any row a test writes after). How many filler rows went in.
async fn fill_disk(store: &SqlStore, chain: &Chain) -> usize {
    set_page_limit(store, 1).await;
    let filler = AuditEntry {
        action_id: "f".into(),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        ..Default::default()
    };
    for written in 0..100_000 {
        if store
            .append_audit(chain, std::slice::from_ref(&filler))
            .await
            .is_err()
        {
            return written;
        }
    }
    panic!("100,000 rows fit a full disk: max_page_count is not taking effect");
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let waited = tokio::time::timeout(PATIENCE, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "timed out waiting until {what}");
}

async fn sqlite() -> (tempfile::TempDir, Arc<SqlStore>, Chain) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqlStore::open_sqlite(dir.path()).await.unwrap());
    (dir, store, Chain::new([7; 32]))
}

async fn rows(store: &SqlStore) -> usize {
    store.audit(&Default::default()).await.unwrap().len()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_strict_answer_waits_for_its_row_and_fails_closed_while_the_disk_is_full() {
    let (_dir, store, chain) = sqlite().await;
    let options = AuditOptions::default()
        .with_durability(Durability::Strict)
        .with_strict_wait(Duration::from_millis(300));
    let (writer, task) = AuditWriter::start_with(store.clone(), chain.clone(), options);

    // Committed before the answer: the row is there the moment the wait ends.
    writer.record_committed(entry(1)).await.expect("committed");
    assert_eq!(rows(&store).await, 1);
    assert!(writer.refuses_calls().is_none());

    // The disk fills: the answer is withheld with its own kind, and later calls are refused
    // before they start.
    let filler = fill_disk(&store, &chain).await;
    let refused = writer.record_committed(entry(2)).await.unwrap_err();
    assert_eq!(refused.kind, ErrorKind::AuditUnavailable);
    assert!(
        refused.message.contains("durability"),
        "{}",
        refused.message
    );
    let stats = writer.stats();
    until("the writer knows the store fails", || {
        stats.failing.load(Ordering::Acquire)
    })
    .await;
    let before = writer.refuses_calls().expect("calls refused while failing");
    assert_eq!(before.kind, ErrorKind::AuditUnavailable);

    // Room again: the waiting row lands once, calls are let through again, the chain holds.
    set_page_limit(&store, 1 << 30).await;
    until("the waiting row is committed", || {
        stats.written.load(Ordering::Relaxed) == 2
    })
    .await;
    assert!(writer.refuses_calls().is_none());
    task.finish().await;
    assert_eq!(rows(&store).await, 2 + filler);
    assert_eq!(
        verify_audit(store.as_ref(), &chain, |_| {}).await.unwrap(),
        Ok(2 + filler as u64)
    );
    assert_eq!(stats.dropped.load(Ordering::Relaxed), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn buffered_rows_wait_for_a_full_disk_up_to_the_queue_and_the_rest_are_counted() {
    let (_dir, store, chain) = sqlite().await;
    let options = AuditOptions::default().with_queue(16);
    let (writer, task) = AuditWriter::start_with(store.clone(), chain.clone(), options);
    assert_eq!(writer.durability(), Durability::Buffered);
    writer.record_call_now(entry(0));
    let stats = writer.stats();
    until("the first row is committed", || {
        stats.written.load(Ordering::Relaxed) == 1
    })
    .await;

    let filler = fill_disk(&store, &chain).await;
    writer.record_call_now(entry(1));
    until("the writer knows the store fails", || {
        stats.failing.load(Ordering::Acquire)
    })
    .await;
    // Row 1 is held by the retrying commit; 16 more fit the queue; the rest are dropped.
    for i in 2..102 {
        writer.record_call_now(entry(i));
    }
    assert_eq!(writer.queued(), 16);
    assert_eq!(stats.dropped.load(Ordering::Relaxed), 100 - 16);
    assert!(writer.refuses_calls().is_none(), "buffered never refuses");
    // A configuration event is never dropped: it waits for room.
    writer.record_now(entry(1000));
    assert_eq!(stats.dropped.load(Ordering::Relaxed), 100 - 16);

    set_page_limit(&store, 1 << 30).await;
    until("every kept row is committed", || {
        stats.written.load(Ordering::Relaxed) == 1 + 1 + 16 + 1
    })
    .await;
    task.finish().await;
    assert!(!stats.failing.load(Ordering::Acquire));
    assert_eq!(rows(&store).await, 19 + filler);
    assert_eq!(
        verify_audit(store.as_ref(), &chain, |_| {}).await.unwrap(),
        Ok(19 + filler as u64)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_retried_after_its_commit_is_not_written_twice() {
    let (_dir, store, chain) = sqlite().await;
    let batch = [entry(1), entry(2), entry(3)];
    let mark = |id: &str, retried| BatchMark {
        id: id.into(),
        retried,
    };
    let first = store
        .append_audit_batch(&chain, &mark("b_once", false), &batch)
        .await
        .unwrap();
    let again = store
        .append_audit_batch(&chain, &mark("b_once", true), &batch)
        .await
        .unwrap();
    assert_eq!(
        first, again,
        "the retry answers with the rows already there"
    );
    let other = store
        .append_audit_batch(&chain, &mark("b_other", false), &batch[..1])
        .await
        .unwrap();
    assert_eq!(other[0].seq, 4);
    assert_eq!(rows(&store).await, 4);
    assert_eq!(
        verify_audit(store.as_ref(), &chain, |_| {}).await.unwrap(),
        Ok(4)
    );
}
