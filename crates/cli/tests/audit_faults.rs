//! The audit store cut off under load: `switchboard serve` on Postgres through a TCP proxy
//! the test cuts and restores (the shared Postgres itself is never touched). Buffered: calls to
//! running servers carry on, their rows wait and land afterwards, once each, and the chain
//! verifies. Strict: while the store is gone answers are withheld (`audit_unavailable`); once
//! it is back calls succeed again, and no answered call lacks its row. And SQLite locked by
//! another process (`BEGIN EXCLUSIVE` held by a Python `sqlite3` connection) the same way.

use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use switchboard_store::{AuditFilter, Sealer, SqlStore, Store, verify_audit};
use switchboard_testkit as kit;
use switchboard_testkit::proxy::TcpProxy;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const PATIENCE: Duration = Duration::from_secs(60);
/// Callers at once, and calls each makes in a phase.
const CALLERS: usize = 4;
const CALLS: usize = 10;

struct Setup {
    dir: tempfile::TempDir,
    proxy: TcpProxy,
    /// The gateway's schema, reached directly (not through the proxy).
    direct: Arc<SqlStore>,
    gateway: kit::Gateway,
    schema: kit::TestSchema,
}

impl Setup {
    /// Stops the gateway and drops its schema.
    async fn finish(self) {
        drop(self.gateway);
        self.schema.remove().await;
    }
}

async fn setup(tag: &str, audit: &str) -> Setup {
    let schema = kit::TestSchema::create(&format!("auditcut_{tag}")).await;
    let scoped = schema.url.clone();
    let target = kit::postgres_addr(&schema.server);
    let proxy = TcpProxy::start(target).await;
    let proxied = scoped.replace(&target.to_string(), &proxy.addr.to_string());
    assert_ne!(proxied, scoped, "the URL names {target}");

    let (dir, mcp_json) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(30_000)}));
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, audit).unwrap();
    let toml = toml.to_str().unwrap().to_string();
    let args = [
        "--dev",
        "-c",
        toml.as_str(),
        "--database-url",
        proxied.as_str(),
    ];
    let gateway = kit::Gateway::start(Path::new(BIN), &args, dir.path(), &mcp_json, 1).await;
    let direct = Arc::new(SqlStore::open(&scoped).await.expect("the schema, directly"));
    Setup {
        dir,
        proxy,
        direct,
        gateway,
        schema,
    }
}

/// One `fx__echo` call in `session`: whether it was answered, or the error kind it got.
async fn call(url: &str, session: &str, id: usize) -> Result<(), String> {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "fx__echo", "arguments": {"text": format!("call {id}")}}});
    let (_, body) = kit::post_mcp(url, None, Some(session), &call).await;
    let text = kit::tool_outcome(&body)?;
    assert_eq!(text, format!("call {id}"));
    Ok(())
}

/// `CALLERS` callers make `CALLS` calls each; every outcome, in no particular order.
async fn phase(url: &str, session: &str, phase: usize) -> Vec<Result<(), String>> {
    let calls = (0..CALLERS).map(|caller| async move {
        let mut outcomes = Vec::new();
        for i in 0..CALLS {
            let id = 1 + phase * 1000 + caller * 100 + i;
            outcomes.push(call(url, session, id).await);
        }
        outcomes
    });
    futures::future::join_all(calls)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// The rows of `fx` calls in the chain, once there are at least `at_least`.
async fn fx_rows(store: &SqlStore, at_least: usize) -> Vec<switchboard_store::AuditRow> {
    let filter = AuditFilter {
        server: Some("fx".into()),
        limit: Some(100_000),
        ..Default::default()
    };
    let waited = tokio::time::timeout(PATIENCE, async {
        loop {
            let rows = store.audit(&filter).await.expect("read the audit rows");
            if rows.len() >= at_least {
                return rows;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    waited.unwrap_or_else(|_| panic!("fewer than {at_least} fx audit rows after {PATIENCE:?}"))
}

async fn chain_verifies(setup: &Setup) {
    let sealer = Sealer::load(None, &setup.dir.path().join("data/master.key")).unwrap();
    let chain = switchboard_store::Chain::new(sealer.audit_key());
    let verified = verify_audit(setup.direct.as_ref(), &chain, |_| {}).await;
    assert!(matches!(verified, Ok(Ok(_))), "{verified:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_cut_under_load_calls_continue_and_every_row_lands_once() {
    let setup = setup("buffered", "[audit]\ndurability = \"buffered\"\n").await;
    let url = setup.gateway.url.clone();
    let session = kit::open_session(&url).await;

    let mut outcomes = phase(&url, &session, 0).await;
    setup.proxy.cut();
    let during = phase(&url, &session, 1).await;
    assert!(
        during.iter().all(Result::is_ok),
        "calls to a running server carry on while the store is gone: {during:?}"
    );
    let failing = "switchboard_audit_store_failing ";
    assert_eq!(kit::metric(setup.gateway.base(), None, failing).await, 1.0);
    setup.proxy.restore();
    outcomes.extend(during);
    outcomes.extend(phase(&url, &session, 2).await);
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");

    // Every call has its row, none twice, and the chain holds.
    let made = outcomes.len();
    let rows = fx_rows(&setup.direct, made).await;
    assert_eq!(rows.len(), made, "one row per call, none duplicated");
    chain_verifies(&setup).await;
    let dropped = "switchboard_audit_rows_dropped_total ";
    assert_eq!(kit::metric(setup.gateway.base(), None, dropped).await, 0.0);
    setup.finish().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn strict_durability_withholds_answers_while_the_store_is_gone() {
    // Generous: before the cut every answer must come within it, even on a loaded machine.
    let audit = "[audit]\ndurability = \"strict\"\nstrict_wait_ms = 3000\n";
    let setup = setup("strict", audit).await;
    let url = setup.gateway.url.clone();
    let session = kit::open_session(&url).await;

    let before = phase(&url, &session, 0).await;
    assert!(before.iter().all(Result::is_ok), "{before:?}");
    setup.proxy.cut();
    let during = phase(&url, &session, 1).await;
    assert!(
        (during.iter()).all(|o| o.as_ref().err().map(String::as_str) == Some("audit_unavailable")),
        "no answer without its row: {during:?}"
    );
    setup.proxy.restore();
    // The store is back: calls are answered again once the writer has committed.
    let mut after = Vec::new();
    let recovered = tokio::time::timeout(PATIENCE, async {
        loop {
            let outcome = call(&url, &session, 9000 + after.len()).await;
            after.push(outcome.clone());
            if outcome.is_ok() {
                return;
            }
            assert_eq!(outcome, Err("audit_unavailable".into()));
        }
    })
    .await;
    assert!(
        recovered.is_ok(),
        "calls answered again after the store returned"
    );
    after.extend(phase(&url, &session, 2).await);

    // Every call made, answered or withheld, has its row once: none lost, none twice.
    let made = before.len() + during.len() + after.len();
    let rows = fx_rows(&setup.direct, made).await;
    assert_eq!(rows.len(), made);
    let answered = before.iter().chain(&after).filter(|o| o.is_ok()).count();
    let ok_rows = rows.iter().filter(|r| r.entry.outcome == "ok").count();
    assert!(
        ok_rows >= answered,
        "{ok_rows} ok rows for {answered} answers"
    );
    chain_verifies(&setup).await;
    setup.finish().await;
}

/// Another process holding SQLite's write lock on `db` until it is dropped.
struct Locker(tokio::process::Child);

impl Locker {
    async fn lock(db: &Path) -> Self {
        use tokio::io::AsyncBufReadExt;
        let script = "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], isolation_level=None)\nc.execute('BEGIN EXCLUSIVE')\nprint('locked', flush=True)\nsys.stdin.read()\nc.execute('COMMIT')\n";
        let mut child = tokio::process::Command::new(kit::python())
            .args(["-c", script])
            .arg(db)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start the locking process");
        let stdout = child.stdout.take().expect("stdout");
        let line = tokio::io::BufReader::new(stdout).lines().next_line().await;
        assert_eq!(line.ok().flatten().as_deref(), Some("locked"));
        Self(child)
    }

    /// Commits and exits, freeing the lock.
    async fn release(mut self) {
        drop(self.0.stdin.take());
        let status = self.0.wait().await.expect("the locking process ends");
        assert!(status.success());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_locked_by_another_process_delays_rows_and_strict_withholds_answers() {
    for (durability, strict) in [("buffered", false), ("strict", true)] {
        let (dir, mcp_json) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(30_000)}));
        let toml = dir.path().join("switchboard.toml");
        let audit = format!("[audit]\ndurability = \"{durability}\"\nstrict_wait_ms = 300\n");
        std::fs::write(&toml, audit).unwrap();
        let args = ["--dev", "-c", toml.to_str().unwrap()];
        let gateway = kit::Gateway::start(Path::new(BIN), &args, dir.path(), &mcp_json, 1).await;
        let url = gateway.url.clone();
        let session = kit::open_session(&url).await;
        let db = dir.path().join("data/switchboard.db");

        let locker = Locker::lock(&db).await;
        let during = phase(&url, &session, 1).await;
        if strict {
            let withheld = |o: &Result<(), String>| {
                o.as_ref().err().map(String::as_str) == Some("audit_unavailable")
            };
            assert!(during.iter().all(withheld), "{durability}: {during:?}");
        } else {
            assert!(during.iter().all(Result::is_ok), "{durability}: {during:?}");
        }
        locker.release().await;
        let mut after = 0;
        let answered = tokio::time::timeout(PATIENCE, async {
            loop {
                after += 1;
                if call(&url, &session, 5000 + after).await.is_ok() {
                    return;
                }
            }
        })
        .await;
        assert!(
            answered.is_ok(),
            "{durability}: answered again after the lock is gone"
        );

        // Every call made has its row once; the chain holds.
        let store = SqlStore::open_sqlite(&dir.path().join("data"))
            .await
            .unwrap();
        let rows = fx_rows(&store, during.len() + after).await;
        assert_eq!(rows.len(), during.len() + after, "{durability}");
        let sealer = Sealer::load(None, &dir.path().join("data/master.key")).unwrap();
        let chain = switchboard_store::Chain::new(sealer.audit_key());
        let verified = verify_audit(&store, &chain, |_| {}).await;
        assert!(matches!(verified, Ok(Ok(_))), "{verified:?}");
    }
}
