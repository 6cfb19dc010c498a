//! What the policy pipeline keeps, on SQLite and Postgres: an old store (before the policy
//! columns) opened, written and verified as one chain; pins, pending changes, taint, org
//! documents; and rate-limit cells exact under concurrency across two connection pools.

use std::sync::Arc;
use switchboard_store::{
    Admit, AuditEntry, Chain, GENESIS, PinRow, PolicyStore, SqlStore, Store, create_schema,
    drop_schema, now_ms, verify_audit,
};

fn old_entry(i: i64) -> AuditEntry {
    AuditEntry {
        at: 1_000 + i,
        action_id: format!("mcp.old.t{i}"),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        detail: Some("surface=mcp".into()),
        ..Default::default()
    }
}

/// Migrates `url` only as far as the store before the policy pipeline (0001–0005) and writes
/// three audit rows the way that version did.
async fn old_store(url: &str, chain: &Chain) {
    sqlx::any::install_default_drivers();
    let dir = tempfile::tempdir().unwrap();
    let migrations = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for file in std::fs::read_dir(&migrations).unwrap() {
        let path = file.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.as_str() < "0006" {
            std::fs::copy(&path, dir.path().join(name)).unwrap();
        }
    }
    let pool = sqlx::AnyPool::connect(url).await.unwrap();
    sqlx::migrate::Migrator::new(dir.path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    let rows = chain.link(0, GENESIS, &[old_entry(1), old_entry(2), old_entry(3)]);
    for r in rows {
        let e = &r.entry;
        sqlx::query("INSERT INTO audit (seq, at, org_id, agent_id, end_user_id, token_id, action_id, server, verdict, outcome, duration_us, request_bytes, response_bytes, detail, prev_hash, hash) VALUES ($1, $2, NULL, NULL, NULL, NULL, $3, NULL, $4, $5, 0, 0, 0, $6, $7, $8)")
            .bind(r.seq)
            .bind(e.at)
            .bind(e.action_id.clone())
            .bind(e.verdict.clone())
            .bind(e.outcome.clone())
            .bind(e.detail.clone())
            .bind(r.prev_hash.clone())
            .bind(r.hash.clone())
            .execute(&pool)
            .await
            .unwrap();
    }
    pool.close().await;
}

async fn upgraded_chain_verifies(store: &SqlStore, chain: &Chain) {
    let mut new = old_entry(4);
    new.verdict = "denied".into();
    new.outcome = "policy_denied".into();
    new.policy = Some(r#"[{"stage":"rules","rule":"r","effect":"deny","mode":"enforce"}]"#.into());
    store
        .append_audit(chain, &[new, old_entry(5)])
        .await
        .unwrap();
    let checked = verify_audit(store, chain, |_| {}).await.unwrap();
    assert_eq!(checked, Ok(5), "old and new rows verify as one chain");
    let rows = store.audit(&Default::default()).await.unwrap();
    assert_eq!(rows[0].entry.policy, None);
    assert!(
        rows[3]
            .entry
            .policy
            .as_deref()
            .unwrap()
            .contains("\"rule\":\"r\"")
    );
}

async fn pins_taint_and_documents(store: &dyn PolicyStore) {
    let pin = |hash: &str, note: &str| PinRow {
        owner: "operator".into(),
        server: "s".into(),
        launch: "l1".into(),
        tool: "t".into(),
        hash: hash.into(),
        definition: "{}".into(),
        at: now_ms(),
        note: note.into(),
    };
    assert_eq!(
        store.pin_first(&pin("h1", "tofu")).await.unwrap().hash,
        "h1"
    );
    assert_eq!(
        store.pin_first(&pin("h2", "tofu")).await.unwrap().hash,
        "h1",
        "the first pin wins"
    );
    store.save_pending(&pin("h2", "changed")).await.unwrap();
    assert_eq!(store.pending(Some("operator")).await.unwrap().len(), 1);
    store.approve_pin(&pin("h2", "cli")).await.unwrap();
    assert_eq!(store.pins(None).await.unwrap()[0].hash, "h2");
    assert!(store.pending(None).await.unwrap().is_empty());
    // Pins are kept per launch: another launch of the same server pins on its own.
    let other = PinRow {
        launch: "l2".into(),
        ..pin("h3", "tofu")
    };
    assert_eq!(store.pin_first(&other).await.unwrap().hash, "h3");
    let pins = store.pins(None).await.unwrap();
    assert_eq!(pins.len(), 2, "{pins:?}");
    assert!(pins.iter().any(|p| p.launch == "l1" && p.hash == "h2"));

    store
        .taint("conv", "reads_sensitive", "mcp.v.read")
        .await
        .unwrap();
    store
        .taint("conv", "reads_sensitive", "mcp.v.other")
        .await
        .unwrap();
    assert_eq!(
        store.taints("conv").await.unwrap(),
        vec![("reads_sensitive".to_string(), "mcp.v.read".to_string())]
    );
    assert!(store.taints("other").await.unwrap().is_empty());

    assert_eq!(store.org_policy("org_a").await.unwrap(), None);
    store
        .save_org_policy("org_a", "{\"rules\":[]}")
        .await
        .unwrap();
    store.save_org_policy("org_a", "{}").await.unwrap();
    assert_eq!(
        store.org_policy("org_a").await.unwrap().as_deref(),
        Some("{}")
    );
}

/// 200 concurrent admissions on one cell through two pools: exactly the burst passes.
async fn exact_limits(a: Arc<SqlStore>, b: Arc<SqlStore>) {
    let interval_us = 3_600_000_000 / 50;
    let tolerance_us = interval_us * 49;
    let key = format!("rl|test|{}", now_ms());
    let tasks: Vec<_> = (0..200)
        .map(|i| {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            let key = key.clone();
            tokio::spawn(async move { store.rate_admit(&key, interval_us, tolerance_us).await })
        })
        .collect();
    let mut admitted = 0;
    for task in tasks {
        match task.await.unwrap().unwrap() {
            Admit::Yes => admitted += 1,
            Admit::RetryAfterUs(us) => assert!(us > 0 && us <= interval_us as u64, "{us}"),
        }
    }
    assert_eq!(admitted, 50);
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_policy_store() {
    let dir = tempfile::tempdir().unwrap();
    let chain = Chain::new([7; 32]);
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("switchboard.db").display()
    );
    old_store(&url, &chain).await;
    let store = SqlStore::open_sqlite(dir.path()).await.unwrap();
    upgraded_chain_verifies(&store, &chain).await;
    pins_taint_and_documents(&store).await;
    let store = Arc::new(store);
    exact_limits(store.clone(), store).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_policy_store() {
    let url = std::env::var("SWITCHBOARD_TEST_DATABASE_URL")
        .expect("SWITCHBOARD_TEST_DATABASE_URL is not set (scripts/test.sh sets it)");
    let schema = format!(
        "sb_policy_{}",
        now_ms() % 1_000_000_000 * 1000 + std::process::id() as i64 % 1000
    );
    let scoped = create_schema(&url, &schema).await.unwrap();
    let chain = Chain::new([7; 32]);
    old_store(&scoped, &chain).await;
    let store = SqlStore::open(&scoped).await.unwrap();
    upgraded_chain_verifies(&store, &chain).await;
    pins_taint_and_documents(&store).await;
    let second = SqlStore::open(&scoped).await.unwrap();
    exact_limits(Arc::new(store), Arc::new(second)).await;
    drop_schema(&url, &schema).await.unwrap();
}
