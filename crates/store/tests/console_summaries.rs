//! The console's summaries on a real SQLite and Postgres: call figures grouped by the
//! database (slots, latency buckets, errors; a task's end and other orgs' rows left out) and
//! the agents an org has toggled actions for.

use std::sync::Arc;
use switchboard_store::call_stats::{Window, bucket_of, summarize};
use switchboard_store::{
    AuditEntry, AuditFilter, AuditWriter, Chain, Sealer, SqlStore, Store, create_schema,
    drop_schema,
};

fn call(org: &str, server: &str, at: i64, duration_us: i64, outcome: &str) -> AuditEntry {
    AuditEntry {
        at,
        org_id: Some(org.into()),
        action_id: format!("mcp.{server}.tool"),
        server: Some(server.into()),
        verdict: "allowed".into(),
        outcome: outcome.into(),
        duration_us,
        ..Default::default()
    }
}

async fn summaries(store: Arc<SqlStore>) {
    let acme = store.create_org("acme", &[]).await.unwrap();
    let other = store.create_org("other", &[]).await.unwrap();
    let chain = Chain::new(Sealer::from_keys(vec![[7u8; 32]]).audit_key());
    let (writer, task) = AuditWriter::start(store.clone(), chain, 64);
    let since = 1_000_000;
    let mut rows = Vec::new();
    // Slot 0 of `time`: 99 calls of 1 ms and one of 100 ms that timed out.
    for i in 0..99 {
        rows.push(call(&acme.id, "time", since + i, 1_000, "ok"));
    }
    rows.push(call(&acme.id, "time", since + 500, 100_000, "timeout"));
    // And one the policy refused, in no time: counted, an error, not a call time.
    let mut refused = call(&acme.id, "time", since + 600, 0, "policy_denied");
    refused.verdict = "denied".into();
    rows.push(refused);
    // Slot 2 of `git`: a task begun and its end (one call), a question back (not an error).
    rows.push(call(&acme.id, "git", since + 20_500, 3_000, "task"));
    rows.push(call(&acme.id, "git", since + 20_600, 0, "task_completed"));
    rows.push(call(
        &acme.id,
        "git",
        since + 21_000,
        3_000,
        "input_required",
    ));
    // Not counted: before the window, another org's, an operation without a server.
    rows.push(call(&acme.id, "time", since - 1, 1_000, "ok"));
    rows.push(call(&other.id, "time", since + 1, 1_000, "ok"));
    let mut operation = call(&acme.id, "time", since + 2, 1_000, "ok");
    operation.action_id = "config.enable".into();
    rows.push(operation);
    for row in rows {
        writer.record_committed(row).await.unwrap();
    }
    let cells = store.call_stats(&acme.id, since, 10_000).await.unwrap();
    let window = Window {
        since_ms: since,
        step_ms: 10_000,
        slots: 6,
    };
    let figures = summarize(&cells, window);
    let names: Vec<&str> = figures.iter().map(|f| f.server.as_str()).collect();
    assert_eq!(names, ["git", "time"]);
    let (git, time) = (&figures[0], &figures[1]);
    assert_eq!((time.total.calls, time.total.errors), (101, 2));
    assert_eq!(time.series[0].figures.calls, 101);
    let p50 = time.total.p50_ms.unwrap();
    // 1 ms falls in the bucket [1.0, 1.259) ms.
    assert!((1.0..1.259).contains(&p50), "p50 {p50} ms of 1 ms calls");
    let p99 = time.total.p99_ms.unwrap();
    assert!(
        p99 <= 1.259,
        "p99 {p99}: the 99th of 100 calls is a 1 ms one"
    );
    assert_eq!((git.total.calls, git.total.errors), (2, 0));
    assert_eq!(git.series[2].figures.calls, 2);
    assert_eq!(git.series[2].at_ms, since + 20_000);
    let buckets = [
        Some(bucket_of(1_000)),
        Some(bucket_of(100_000)),
        Some(bucket_of(3_000)),
        None,
    ];
    assert!(
        cells.iter().all(|c| buckets.contains(&c.bucket)),
        "{cells:?}"
    );

    // The database puts each call time in the bucket bucket_of says, edges included.
    let durations = [
        0,
        9,
        10,
        11,
        99,
        100,
        101,
        12_345,
        1_000_000,
        99_999_999,
        100_000_000,
        1 << 40,
    ];
    let edges = store.create_org("edges", &[]).await.unwrap();
    for (i, d) in durations.iter().enumerate() {
        let row = call(&edges.id, &format!("s{i:02}"), since + i as i64, *d, "ok");
        writer.record_committed(row).await.unwrap();
    }
    let mut edge_cells = store.call_stats(&edges.id, since, 10_000).await.unwrap();
    edge_cells.sort_by(|a, b| a.server.cmp(&b.server));
    let seen: Vec<Option<usize>> = edge_cells.iter().map(|c| c.bucket).collect();
    let wanted: Vec<Option<usize>> = durations.iter().map(|d| Some(bucket_of(*d))).collect();
    assert_eq!(seen, wanted);

    // The request log reads newest first, a page at a time.
    let newest = |before: Option<i64>| AuditFilter {
        org_id: Some(acme.id.clone()),
        newest_first: true,
        before_seq: before,
        limit: Some(2),
        ..AuditFilter::default()
    };
    let first = store.audit(&newest(None)).await.unwrap();
    assert_eq!(first[0].entry.action_id, "config.enable");
    assert!(first[0].seq > first[1].seq);
    let second = store.audit(&newest(Some(first[1].seq))).await.unwrap();
    assert_eq!(second[0].seq, first[1].seq - 1);

    store
        .set_agent_action(&acme.id, "billing", "mcp.time.tool", true)
        .await
        .unwrap();
    store
        .set_agent_action(&acme.id, "billing", "mcp.git.tool", true)
        .await
        .unwrap();
    store
        .set_agent_action(&acme.id, "support", "mcp.git.tool", false)
        .await
        .unwrap();
    let agents = store.agents(&acme.id).await.unwrap();
    let seen: Vec<(&str, i64)> = agents
        .iter()
        .map(|a| (a.agent_id.as_str(), a.enabled))
        .collect();
    assert_eq!(seen, [("billing", 2), ("support", 0)]);
    assert!(store.agents(&other.id).await.unwrap().is_empty());
    task.finish().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqlStore::open_sqlite(dir.path()).await.unwrap();
    summaries(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_summaries() {
    let url = std::env::var("SWITCHBOARD_TEST_DATABASE_URL")
        .expect("SWITCHBOARD_TEST_DATABASE_URL (scripts/test.sh sets it)");
    let schema = format!(
        "sb_console_{}_{}",
        std::process::id(),
        switchboard_store::now_ms()
    );
    let scoped = create_schema(&url, &schema).await.unwrap();
    let store = SqlStore::open(&scoped).await.unwrap();
    summaries(Arc::new(store)).await;
    drop_schema(&url, &schema).await.unwrap();
}
