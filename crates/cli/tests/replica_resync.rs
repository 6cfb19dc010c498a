//! A replica cut off from Postgres and back (through a loopback TCP proxy the test controls;
//! the shared Postgres itself is never touched): while cut, it keeps serving calls to its
//! running servers; a server connected meanwhile on the other replica reaches it once its
//! LISTEN connection is back and it has read every server again; the replicas' audit rows
//! share one chain that verifies.

use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use switchboard_store::{Sealer, SqlStore, verify_audit};
use switchboard_testkit as kit;
use switchboard_testkit::proxy::TcpProxy;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const PATIENCE: Duration = Duration::from_secs(60);

async fn echo(url: &str, session: &str, id: u64) -> Result<String, String> {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "fx__echo", "arguments": {"text": format!("echo {id}")}}});
    kit::tool_outcome(&kit::post_mcp(url, None, Some(session), &call).await.1)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_cut_off_from_postgres_serves_on_and_catches_up_when_back() {
    let schema = kit::TestSchema::create("resync").await;
    let direct = schema.url.clone();
    let target = kit::postgres_addr(&schema.server);
    let proxy = TcpProxy::start(target).await;
    let proxied = direct.replace(&target.to_string(), &proxy.addr.to_string());

    let (dir, mcp_json) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(30_000)}));
    let (dir_a, dir_b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&dir_b).unwrap();
    let a = kit::Gateway::start(
        Path::new(BIN),
        &["--dev", "--database-url", &direct],
        &dir_a,
        &mcp_json,
        1,
    )
    .await;
    // One master key for both replicas.
    std::fs::create_dir_all(dir_b.join("data")).unwrap();
    std::fs::copy(dir_a.join("data/master.key"), dir_b.join("data/master.key")).unwrap();
    let mut b = kit::Gateway::start(
        Path::new(BIN),
        &["--dev", "--database-url", &proxied],
        &dir_b,
        &mcp_json,
        1,
    )
    .await;
    let data_a = dir_a.join("data");
    let bin = Path::new(BIN);
    let org = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    kit::admin_on(bin, &data_a, Some(&direct), &org);
    let roles = ["integrations:manage", "integrations:view"];
    let token = kit::api_token_on(bin, &data_a, Some(&direct), "acme", &roles);
    let session_b = kit::open_session(&b.url).await;

    // B loses the database; it keeps serving its running server meanwhile.
    proxy.cut();
    for id in 1..=20 {
        assert_eq!(echo(&b.url, &session_b, id).await, Ok(format!("echo {id}")));
    }
    // A server connected through A while B cannot hear of it.
    let upstream = kit::Served::start(
        &kit::python(),
        &[kit::hostile_http_server().to_str().unwrap()],
    )
    .await;
    let connect =
        json!({"name": "Late", "slug": "late", "url": upstream.url, "auth_method": "none"});
    let response = reqwest::Client::new()
        .post(format!("{}/api/integrations/mcp/servers", a.base()))
        .bearer_auth(&token)
        .json(&connect)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
    let connected: Value = response.json().await.unwrap();
    assert_eq!(connected["status"], "ready", "{connected}");
    let on_a = kit::tool_names(&a.url, Some(&token)).await;
    assert!(on_a.contains(&"late__echo".to_string()), "{on_a:?}");

    // Back: B reads every server again and offers the one it missed.
    proxy.restore();
    let caught_up = tokio::time::timeout(PATIENCE, async {
        while !kit::tool_names(&b.url, Some(&token))
            .await
            .contains(&"late__echo".to_string())
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    let mut log = Vec::new();
    while let Ok(line) = b.log.try_recv() {
        log.push(line);
    }
    assert!(
        caught_up.is_ok(),
        "replica B offers the server connected while it was cut off; its log:\n{}",
        log.join("\n")
    );

    // Both replicas' rows, B's written after the cut, in one chain that verifies.
    let store = Arc::new(SqlStore::open(&direct).await.unwrap());
    let sealer = Sealer::load(None, &data_a.join("master.key")).unwrap();
    let chain = switchboard_store::Chain::new(sealer.audit_key());
    let rows = tokio::time::timeout(PATIENCE, async {
        loop {
            let filter = switchboard_store::AuditFilter {
                server: Some("fx".into()),
                ..Default::default()
            };
            let rows = switchboard_store::Store::audit(store.as_ref(), &filter)
                .await
                .unwrap();
            if rows.len() >= 20 {
                return rows.len();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("B's 20 rows land once the database is back");
    assert_eq!(rows, 20);
    let verified = verify_audit(store.as_ref(), &chain, |_| {}).await;
    assert!(matches!(verified, Ok(Ok(_))), "{verified:?}");
    drop((a, b));
    schema.remove().await;
}
