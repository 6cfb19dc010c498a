//! The newest audit rows cannot be cut unseen (issue 30). On SQLite every commit moves a
//! signed checkpoint file forward, so `audit verify` finds rows deleted from the end of a
//! real store, and rows written again in their place; on Postgres the head is kept as an
//! anchor (`audit anchor`, or a replica's `audit head` log line) and checked with
//! `audit verify --anchor`.

use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// `switchboard ARGS…` on the store under `data` (or at `database` when given).
fn run(data: &Path, database: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env("SWITCHBOARD_DATA", data)
        .env_remove("SWITCHBOARD_DATABASE_URL");
    if let Some(url) = database {
        command.args(["--database-url", url]);
    }
    command.output().expect("run switchboard")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One audited call through `switchboard call`; its stderr.
fn call(data: &Path, database: Option<&str>, config: &Path, text: &str) -> String {
    let args = json!({"text": text}).to_string();
    let config = config.to_str().unwrap();
    let out = run(
        data,
        database,
        &["call", "fx__echo", "--args", &args, "-c", config],
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

/// `audit verify --json [--anchor FILE]`: its report and whether it exited 0.
fn verify(data: &Path, database: Option<&str>, anchor: Option<&Path>) -> (Value, bool) {
    let mut args = vec!["audit", "verify", "--json"];
    if let Some(anchor) = anchor {
        args.extend(["--anchor", anchor.to_str().unwrap()]);
    }
    let out = run(data, database, &args);
    let report = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    (report, out.status.success())
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_rows_cut_from_the_end_are_found_against_the_checkpoint() {
    let (dir, config) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(10_000)}));
    let data = dir.path().join("data");
    for i in 0..5 {
        call(&data, None, &config, &format!("t{i}"));
    }
    let (report, ok) = verify(&data, None, None);
    assert!(ok, "{report}");
    assert_eq!(report["rows"], 5);
    assert_eq!(report["head"]["source"], "checkpoint", "{report}");
    assert_eq!(report["head"]["seq"], 5, "{report}");

    // The newest row deleted in the store itself, as a database writer could.
    let db = format!("sqlite://{}", data.join("switchboard.db").display());
    assert_eq!(kit::tamper(&db, "DELETE FROM audit WHERE seq = 5").await, 1);
    let (report, ok) = verify(&data, None, None);
    assert!(!ok, "{report}");
    assert_eq!(report["problem"], "row 5, the newest, was removed");
    assert_eq!(report["first_bad_row"], 5);
    assert_eq!(report["head"]["seq"], 5, "{report}");

    assert_eq!(
        kit::tamper(&db, "DELETE FROM audit WHERE seq >= 3").await,
        2
    );
    let out = run(&data, None, &["audit", "verify"]);
    assert!(!out.status.success());
    let said = stdout(&out);
    assert!(
        said.contains("broken: rows 3 to 5, the newest, were removed"),
        "{said}"
    );
    let checkpoint = data.join("audit.head");
    let named = format!(
        "checked against the checkpoint {} (row 5)",
        checkpoint.display()
    );
    assert!(said.contains(&named), "{said}");

    // Rows written again in their place: the gateway says so, and the checkpoint does not
    // follow them, however many come after.
    let mut logged = String::new();
    for i in 0..4 {
        logged += &call(&data, None, &config, &format!("again{i}"));
    }
    assert!(
        logged.contains("ERROR") && logged.contains("the audit chain was cut"),
        "{logged}"
    );
    let (report, ok) = verify(&data, None, None);
    assert!(!ok, "{report}");
    assert_eq!(report["first_bad_row"], 5, "{report}");
    assert!(
        report["problem"]
            .as_str()
            .unwrap()
            .contains("row 5 is not the row that was written there"),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_rows_cut_from_the_end_are_found_against_an_anchor() {
    let schema = kit::TestSchema::create("audit_tail").await;
    let url = schema.url.as_str();
    let (dir, config) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(10_000)}));
    let data = dir.path().join("data");
    for i in 0..3 {
        call(&data, Some(url), &config, &format!("t{i}"));
    }
    // The operator keeps the head `audit anchor` prints.
    let anchored = run(&data, Some(url), &["audit", "anchor"]);
    assert!(anchored.status.success());
    let anchor = dir.path().join("anchor.json");
    std::fs::write(&anchor, stdout(&anchored)).unwrap();
    let (report, ok) = verify(&data, Some(url), Some(&anchor));
    assert!(ok, "{report}");
    assert_eq!(
        report["head"],
        json!({"source": "anchor", "path": anchor, "seq": 3,
        "at_ms": report["head"]["at_ms"]})
    );

    assert_eq!(kit::tamper(url, "DELETE FROM audit WHERE seq = 3").await, 1);
    let (report, ok) = verify(&data, Some(url), Some(&anchor));
    assert!(!ok, "{report}");
    assert_eq!(report["problem"], "row 3, the newest, was removed");
    // Without an anchor, a cut at the end of a Postgres chain is not detectable: said so.
    let (report, ok) = verify(&data, Some(url), None);
    assert!(ok && report["head"].is_null(), "{report}");
    let plain = stdout(&run(&data, Some(url), &["audit", "verify"]));
    assert!(plain.contains("found only against an anchor"), "{plain}");

    // A replica logs the signed head as it moves; that line is an anchor too.
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, "[audit]\nhead_log_secs = 1\n").unwrap();
    let args = ["-c", toml.to_str().unwrap(), "--database-url", url];
    let mut gateway = kit::Gateway::start(Path::new(BIN), &args, dir.path(), &config, 1).await;
    let session = kit::open_session(&gateway.url).await;
    let echo = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "fx__echo", "arguments": {"text": "logged"}}});
    kit::post_mcp(&gateway.url, None, Some(&session), &echo).await;
    let line = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        while let Some(line) = gateway.log.recv().await {
            if line.contains("audit head") && line.contains("\"seq\":3") {
                return line;
            }
        }
        panic!("the log ended without the head");
    })
    .await
    .expect("the head logged within a minute");
    drop(gateway);
    let logged = dir.path().join("logged-head.txt");
    std::fs::write(&logged, &line).unwrap();
    let (report, ok) = verify(&data, Some(url), Some(&logged));
    assert!(ok, "{report}");
    assert_eq!(kit::tamper(url, "DELETE FROM audit WHERE seq = 3").await, 1);
    let (report, ok) = verify(&data, Some(url), Some(&logged));
    assert!(!ok && report["first_bad_row"] == 3, "{report}");
    schema.remove().await;
}
