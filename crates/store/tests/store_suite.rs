//! The same store tests against embedded SQLite and against Postgres
//! (`SWITCHBOARD_TEST_DATABASE_URL`, set by scripts/test.sh and .ci/run).

use std::sync::Arc;
use switchboard_store::{
    AuditEntry, AuditWriter, Chain, ChainBreak, Change, ChangeKind, Heard, SealError, Sealer,
    ServerRow, SqlStore, Store, StoreError, create_schema, drop_schema, now_ms, verify_audit,
};

const PLAINTEXT_TOKEN: &str = "ghp_plaintextTokenThatMustNeverBeStored42";

async fn sqlite() -> (tempfile::TempDir, SqlStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqlStore::open_sqlite(dir.path()).await.unwrap();
    (dir, store)
}

/// A fresh schema on the test Postgres, so runs never see each other's rows; its URL too.
async fn postgres() -> (String, String, SqlStore) {
    let url = std::env::var("SWITCHBOARD_TEST_DATABASE_URL").expect(
        "SWITCHBOARD_TEST_DATABASE_URL is not set: point it at a Postgres database (scripts/test.sh sets postgres://postgres@127.0.0.1:5432/test)",
    );
    let schema = format!(
        "sb_test_{}",
        now_ms() % 1_000_000_000 * 1000 + std::process::id() as i64 % 1000
    );
    let scoped = create_schema(&url, &schema)
        .await
        .expect("create a schema on the test Postgres");
    let store = SqlStore::open(&scoped).await.unwrap();
    (schema, scoped, store)
}

fn entry(i: i64) -> AuditEntry {
    AuditEntry {
        at: now_ms(),
        org_id: Some("org_a".into()),
        agent_id: Some(format!("agent-{}", i % 3)),
        action_id: format!("mcp.billing.tool_{i}"),
        server: Some("billing".into()),
        verdict: "allowed".into(),
        outcome: if i % 5 == 0 {
            "timeout".into()
        } else {
            "ok".into()
        },
        duration_us: 100 + i,
        request_bytes: 10,
        response_bytes: 20,
        ..Default::default()
    }
}

async fn orgs_tokens_and_servers(store: Arc<dyn Store>, sealer: &Sealer) {
    let org = store
        .create_org("acme", &["mcp_external_servers".into()])
        .await
        .unwrap();
    assert!(org.has_feature("mcp_external_servers"));
    assert!(matches!(
        store.create_org("acme", &[]).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(store.org_by_name("acme").await.unwrap().unwrap().id, org.id);
    assert_eq!(store.org(&org.id).await.unwrap().unwrap().name, "acme");

    let token = store
        .create_token(&org.id, &["integrations:manage".into()], "hash-of-token")
        .await
        .unwrap();
    let found = store.token_by_hash("hash-of-token").await.unwrap().unwrap();
    assert_eq!(found.id, token.id);
    assert_eq!(found.roles, ["integrations:manage"]);
    assert!(store.token_by_hash("other").await.unwrap().is_none());

    let id = "srv_1".to_string();
    let mut row = ServerRow {
        id: id.clone(),
        org_id: org.id.clone(),
        slug: "github".into(),
        name: "GitHub".into(),
        url: "https://api.example.test/mcp".into(),
        auth_method: "bearer".into(),
        credentials: Some(sealer.seal(&id, "credentials", PLAINTEXT_TOKEN)),
        status: "ready".into(),
        last_error: None,
        discovered_tools: vec!["search".into()],
        last_discovered_at: Some(now_ms()),
        created_at: now_ms(),
        deleted_at: None,
    };
    store.insert_server(&row).await.unwrap();
    let mut duplicate = row.clone();
    duplicate.id = "srv_2".into();
    assert!(matches!(
        store.insert_server(&duplicate).await,
        Err(StoreError::Conflict { .. })
    ));

    let stored = store.server(&org.id, &id).await.unwrap().unwrap();
    assert_eq!(stored, row);
    let opened = sealer
        .open(&id, "credentials", stored.credentials.as_deref().unwrap())
        .unwrap();
    assert_eq!(opened, PLAINTEXT_TOKEN);
    assert!(matches!(
        sealer.open(
            "srv_2",
            "credentials",
            stored.credentials.as_deref().unwrap()
        ),
        Err(SealError::DoesNotOpen)
    ));

    // Soft delete: credentials wiped, row kept, the slug free again.
    row.deleted_at = Some(now_ms());
    row.credentials = None;
    row.status = "deleted".into();
    store.update_server(&row).await.unwrap();
    store.insert_server(&duplicate).await.unwrap();
    let all = store.servers(&org.id).await.unwrap();
    assert_eq!(all.len(), 2);
    assert!(
        all.iter()
            .any(|s| s.id == id && s.deleted_at.is_some() && s.credentials.is_none())
    );
    assert_eq!(store.all_servers().await.unwrap().len(), 2);
}

async fn audit_chain(store: Arc<dyn Store>, chain: &Chain) {
    let (writer, task) = AuditWriter::start(store.clone(), chain.clone(), 64);
    let mut producers = Vec::new();
    for p in 0..4 {
        let writer = writer.clone();
        producers.push(tokio::spawn(async move {
            for i in 0..50 {
                writer.record(entry(p * 100 + i)).await;
            }
        }));
    }
    for p in producers {
        p.await.unwrap();
    }
    drop(writer);
    task.finish().await;
    assert_eq!(
        verify_audit(store.as_ref(), chain, |_| {}).await.unwrap(),
        Ok(200)
    );
    let timeouts = store
        .audit(&switchboard_store::AuditFilter {
            outcome: Some("timeout".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(timeouts.len(), 40);
    let agent = store
        .audit(&switchboard_store::AuditFilter {
            agent_id: Some("agent-1".into()),
            limit: Some(5),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(agent.len(), 5);
    assert!(agent.windows(2).all(|w| w[0].seq < w[1].seq));
    let by_server = |server: &str| switchboard_store::AuditFilter {
        server: Some(server.into()),
        ..Default::default()
    };
    assert_eq!(store.audit(&by_server("billing")).await.unwrap().len(), 200);
    assert!(store.audit(&by_server("nobody")).await.unwrap().is_empty());
}

/// Tampers with the audit table through plain SQL and expects `verify` to point at it.
async fn tampering_is_caught(store: &SqlStore, chain: &Chain) {
    let pool = store.pool();
    let verify = || verify_audit(store, chain, |_| {});
    sqlx::query("UPDATE audit SET duration_us = duration_us + 1 WHERE seq = 10")
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(
        verify().await.unwrap(),
        Err(ChainBreak::Altered { seq: 10 })
    );
    sqlx::query("UPDATE audit SET duration_us = duration_us - 1 WHERE seq = 10")
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(verify().await.unwrap(), Ok(200));

    let saved = store.audit(&Default::default()).await.unwrap()[19].clone();
    sqlx::query("DELETE FROM audit WHERE seq = 20")
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(
        verify().await.unwrap(),
        Err(ChainBreak::Removed {
            after: 19,
            next: 21
        })
    );

    // A row slipped into the gap, forged without the key.
    sqlx::query("INSERT INTO audit (seq, at, action_id, verdict, outcome, duration_us, request_bytes, response_bytes, prev_hash, hash) VALUES (20, 1, 'mcp.x.y', 'allowed', 'ok', 1, 1, 1, $1, $2)")
        .bind(&saved.prev_hash)
        .bind("f".repeat(64))
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(
        verify().await.unwrap(),
        Err(ChainBreak::Altered { seq: 20 })
    );
    sqlx::query("DELETE FROM audit WHERE seq = 20")
        .execute(pool)
        .await
        .unwrap();

    // The original row put back exactly: the chain is whole again.
    let e = &saved.entry;
    sqlx::query("INSERT INTO audit (seq, at, org_id, agent_id, end_user_id, token_id, action_id, server, verdict, outcome, duration_us, request_bytes, response_bytes, detail, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)")
        .bind(saved.seq).bind(e.at).bind(&e.org_id).bind(&e.agent_id).bind(&e.end_user_id)
        .bind(&e.token_id).bind(&e.action_id).bind(&e.server).bind(&e.verdict).bind(&e.outcome)
        .bind(e.duration_us).bind(e.request_bytes).bind(e.response_bytes).bind(&e.detail)
        .bind(&saved.prev_hash).bind(&saved.hash)
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(verify().await.unwrap(), Ok(200));
}

/// Two stores on one database, as two replicas see it.
async fn replicas_share_jobs_sessions_and_changes(a: Arc<dyn Store>, b: Arc<dyn Store>) {
    // Twenty claims at once from two "replicas": exactly one runs the job.
    let claims = (0..20).map(|i| {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        async move { store.claim_job("refresh", 60_000, &format!("r{i}")).await }
    });
    let won = futures::future::join_all(claims)
        .await
        .into_iter()
        .map(|r| r.unwrap())
        .filter(|&won| won)
        .count();
    assert_eq!(won, 1, "one claim per interval across the cluster");
    assert!(!b.claim_job("refresh", 60_000, "late").await.unwrap());
    assert!(
        a.claim_job("other", 60_000, "r0").await.unwrap(),
        "jobs are independent"
    );
    assert!(b.claim_job("refresh", 0, "r1").await.unwrap(), "due again");

    // A session saved through one replica resumes through the other.
    a.save_session("s1", r#"{"v":1}"#).await.unwrap();
    assert_eq!(
        b.load_session("s1").await.unwrap().as_deref(),
        Some(r#"{"v":1}"#)
    );
    b.delete_session("s1").await.unwrap();
    assert_eq!(a.load_session("s1").await.unwrap(), None);
    // Sessions are pruned by their last use, not their age: a touch or a load is a use.
    for id in ["old", "touched", "loaded"] {
        a.save_session(id, "{}").await.unwrap();
    }
    let saved = now_ms();
    // Waits for the clock to pass the saves' millisecond (a spin on the clock, no sleep).
    while now_ms() <= saved {
        std::hint::spin_loop();
    }
    let cutoff = now_ms();
    b.touch_session("touched").await.unwrap();
    assert!(b.load_session("loaded").await.unwrap().is_some());
    assert_eq!(b.prune_sessions(cutoff).await.unwrap(), 1);
    assert_eq!(a.load_session("old").await.unwrap(), None);
    assert!(a.load_session("touched").await.unwrap().is_some());
    assert_eq!(a.prune_sessions(now_ms() + 1).await.unwrap(), 2);

    // An input round saved through one replica is taken once, through either; an expired
    // one is never given out, and pruning forgets it.
    a.save_round("rq1", "me", r#"{"state":"s"}"#, now_ms() + 60_000)
        .await
        .unwrap();
    // Another owner neither gets it nor takes it away.
    assert_eq!(b.take_round("rq1", "someone else").await.unwrap(), None);
    let (first, second) = tokio::join!(b.take_round("rq1", "me"), a.take_round("rq1", "me"));
    let taken = [first.unwrap(), second.unwrap()];
    assert_eq!(
        taken.iter().flatten().collect::<Vec<_>>(),
        [r#"{"state":"s"}"#],
        "taken exactly once: {taken:?}"
    );
    a.save_round("rq2", "me", "{}", now_ms() - 1).await.unwrap();
    a.save_round("rq3", "me", "{}", now_ms() - 1).await.unwrap();
    assert_eq!(b.take_round("rq2", "me").await.unwrap(), None);
    assert_eq!(b.prune_rounds().await.unwrap(), 1);

    // A task saved through one replica is read through the other by its owner only; its end
    // is recorded once, whichever replica races; an expired one is never read, and pruned.
    a.save_task("task_1", "me", r#"{"server":"s"}"#, now_ms() + 60_000)
        .await
        .unwrap();
    assert_eq!(b.load_task("task_1", "someone else").await.unwrap(), None);
    assert_eq!(
        b.load_task("task_1", "me").await.unwrap(),
        Some((r#"{"server":"s"}"#.to_string(), None))
    );
    let (first, second) = tokio::join!(
        a.end_task("task_1", "completed"),
        b.end_task("task_1", "cancelled")
    );
    let ended = [first.unwrap(), second.unwrap()];
    assert_eq!(ended.iter().filter(|e| **e).count(), 1, "{ended:?}");
    let (_, status) = a.load_task("task_1", "me").await.unwrap().unwrap();
    assert!(
        matches!(status.as_deref(), Some("completed" | "cancelled")),
        "{status:?}"
    );
    a.save_task("task_2", "me", "{}", now_ms() - 1)
        .await
        .unwrap();
    assert_eq!(b.load_task("task_2", "me").await.unwrap(), None);
    assert_eq!(b.prune_tasks().await.unwrap(), 1);
    assert!(a.load_task("task_1", "me").await.unwrap().is_some());

    // OAuth token records are shared, replaced in place and deleted.
    assert_eq!(a.load_oauth_tokens("config:gh").await.unwrap(), None);
    a.save_oauth_tokens("config:gh", "sealed-1").await.unwrap();
    b.save_oauth_tokens("config:gh", "sealed-2").await.unwrap();
    assert_eq!(
        a.load_oauth_tokens("config:gh").await.unwrap().as_deref(),
        Some("sealed-2")
    );
    assert_eq!(a.oauth_token_keys().await.unwrap(), ["config:gh"]);
    // A lock shared by replicas (Postgres): the second holder waits for the first.
    if let Some(held) = a.lock("config:gh").await.unwrap() {
        let b2 = b.clone();
        let waiting = tokio::spawn(async move { b2.lock("config:gh").await.map(|l| l.is_some()) });
        // The first holder is still inside its lock after a full round trip of its own.
        a.load_oauth_tokens("config:gh").await.unwrap();
        assert!(!waiting.is_finished(), "the lock is held");
        drop(held);
        assert!(waiting.await.unwrap().unwrap(), "taken once released");
    }
    // Taken once: the second taker gets nothing.
    a.save_oauth_tokens("flow:s1", "f").await.unwrap();
    assert_eq!(
        b.take_oauth_tokens("flow:s1").await.unwrap().as_deref(),
        Some("f")
    );
    assert_eq!(a.take_oauth_tokens("flow:s1").await.unwrap(), None);
    // Pruning by prefix and age leaves the rest.
    a.save_oauth_tokens("flow:old", "f").await.unwrap();
    assert_eq!(
        a.prune_oauth_tokens("flow:", now_ms() + 1).await.unwrap(),
        1
    );
    assert!(a.load_oauth_tokens("config:gh").await.unwrap().is_some());
    b.delete_oauth_tokens("config:gh").await.unwrap();
    assert_eq!(a.load_oauth_tokens("config:gh").await.unwrap(), None);

    // VS Code input values are shared, replaced in place and forgotten.
    a.save_input("gh-token", "sealed-1").await.unwrap();
    b.save_input("gh-token", "sealed-2").await.unwrap();
    let inputs = a.inputs().await.unwrap();
    assert_eq!(inputs.len(), 1);
    assert_eq!(
        (inputs[0].0.as_str(), inputs[0].1.as_str()),
        ("gh-token", "sealed-2")
    );
    assert!(b.delete_input("gh-token").await.unwrap());
    assert!(!a.delete_input("gh-token").await.unwrap());
    assert!(a.inputs().await.unwrap().is_empty());

    // Discovery snapshots are shared and replaced in place.
    assert_eq!(a.load_snapshot("fp").await.unwrap(), None);
    a.save_snapshot("fp", r#"{"tools":[]}"#).await.unwrap();
    b.save_snapshot("fp", r#"{"tools":[1]}"#).await.unwrap();
    assert_eq!(
        a.load_snapshot("fp").await.unwrap().as_deref(),
        Some(r#"{"tools":[1]}"#)
    );

    // A change published by one replica is heard by the other (Postgres only).
    let change = Change {
        org_id: "org_a".into(),
        server_id: "srv_1".into(),
        replica: "r0".into(),
        kind: ChangeKind::Rediscovered,
    };
    match b.listen_changes().await.unwrap() {
        Some(mut listener) => {
            a.publish_change(&change).await.unwrap();
            let heard = tokio::time::timeout(std::time::Duration::from_secs(10), listener.next())
                .await
                .expect("the notice arrives")
                .unwrap();
            assert_eq!(heard, Heard::Change(change));
        }
        None => {
            assert_eq!(b.backend(), switchboard_store::Backend::Sqlite);
            a.publish_change(&change).await.unwrap();
        }
    }
}

/// Orgs listed, changed and deleted (refused while they have servers; their tokens revoked,
/// their names free again); tokens listed, expiring and revoked.
async fn tenancy_lifecycle(store: Arc<dyn Store>) {
    let org = store.create_org("gone", &[]).await.unwrap();
    let twice = store.create_org("gone", &[]).await.unwrap_err();
    assert_eq!(twice.to_string(), "org \"gone\" already exists");
    let feature = ["mcp_external_servers".to_string()];
    let changed = store.set_org_features(&org.id, &feature).await.unwrap();
    assert_eq!(changed.unwrap().features, feature);
    assert!(store.orgs().await.unwrap().iter().any(|o| o.name == "gone"));
    let soon = now_ms() + 60_000;
    let token = (store.create_token_expiring(
        &org.id,
        &["integrations:view".into()],
        "gone-hash",
        Some(soon),
    ))
    .await
    .unwrap();
    assert_eq!(
        store.token(&token.id).await.unwrap().unwrap().expires_at,
        Some(soon)
    );
    assert_eq!(token.state(now_ms()), "live");
    assert_eq!(token.state(soon), "expired");
    let mut row = ServerRow {
        id: "srv_gone".into(),
        org_id: org.id.clone(),
        slug: "kept".into(),
        name: "Kept".into(),
        url: "https://api.example.test/mcp".into(),
        auth_method: "none".into(),
        credentials: None,
        status: "ready".into(),
        last_error: None,
        discovered_tools: vec![],
        last_discovered_at: None,
        created_at: now_ms(),
        deleted_at: None,
    };
    store.insert_server(&row).await.unwrap();
    let refused = store.delete_org(&org.id).await.unwrap_err().to_string();
    assert!(refused.contains("kept"), "{refused}");
    row.deleted_at = Some(now_ms());
    store.update_server(&row).await.unwrap();
    assert!(store.delete_org(&org.id).await.unwrap());
    assert!(!store.delete_org(&org.id).await.unwrap());
    assert!(store.org_by_name("gone").await.unwrap().is_none());
    assert!(store.org(&org.id).await.unwrap().is_none());
    let revoked = store.token_by_hash("gone-hash").await.unwrap().unwrap();
    assert_eq!(revoked.state(now_ms()), "revoked");
    assert!(
        store
            .tokens(Some(&org.id))
            .await
            .unwrap()
            .iter()
            .all(|t| t.revoked_at.is_some())
    );
    let again = store.create_org("gone", &[]).await.unwrap();
    assert_ne!(again.id, org.id);
    let other = store
        .create_token(&again.id, &["integrations:view".into()], "again-hash")
        .await
        .unwrap();
    assert!(
        store
            .revoke_token(&other.id)
            .await
            .unwrap()
            .unwrap()
            .revoked_at
            .is_some()
    );
    assert!(store.revoke_token("tok_none").await.unwrap().is_none());
}

async fn suite(store: SqlStore) -> Arc<SqlStore> {
    let sealer = Sealer::from_keys(vec![[9u8; 32]]);
    let chain = Chain::new(sealer.audit_key());
    let store = Arc::new(store);
    orgs_tokens_and_servers(store.clone(), &sealer).await;
    tenancy_lifecycle(store.clone()).await;
    audit_chain(store.clone(), &chain).await;
    tampering_is_caught(&store, &chain).await;
    store
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_store() {
    let (dir, store) = sqlite().await;
    let store = suite(store).await;
    let second = SqlStore::open_sqlite(dir.path()).await.unwrap();
    replicas_share_jobs_sessions_and_changes(store.clone(), Arc::new(second)).await;
    store.pool().close().await;
    // The database file holds the sealed token, never the token itself.
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        bytes.extend(std::fs::read(entry.unwrap().path()).unwrap());
    }
    let needle = PLAINTEXT_TOKEN.as_bytes();
    assert!(bytes.len() > 4096);
    assert!(
        !bytes.windows(needle.len()).any(|w| w == needle),
        "plaintext token found in the SQLite files"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_store() {
    let (schema, url, store) = postgres().await;
    let store = suite(store).await;
    let second = SqlStore::open(&url).await.unwrap();
    replicas_share_jobs_sessions_and_changes(store.clone(), Arc::new(second)).await;
    let dump: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT row_to_json(t)::text FROM (SELECT * FROM {schema}.servers) t"
    )))
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert!(!dump.is_empty());
    assert!(
        dump.iter().all(|row| !row.contains(PLAINTEXT_TOKEN)),
        "plaintext token in Postgres"
    );
    let url = std::env::var("SWITCHBOARD_TEST_DATABASE_URL").unwrap();
    drop_schema(&url, &schema).await.unwrap();
}
