//! Orgs and tokens with a lifecycle (issue 35): created, listed, changed, revoked, expired and
//! deleted over REST on one replica and refused at once by another (shared Postgres), with
//! the role rules (a token creates only tokens with roles it holds; only gateway:operate
//! manages orgs), audit rows, and the CLI's `org`/`token` commands with `--json`.

use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "2a4c6e8f0b1d3f5a7c9e0b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a3c5e7b9d0f2a";

/// `initialize` on `/mcp` with `token`: the status and the body.
async fn mcp_with(url: &str, token: &str) -> (u16, String) {
    let response = kit::post_mcp_from(
        url,
        "127.0.0.1",
        Some(token),
        None,
        &kit::initialize_request(),
    )
    .await;
    (
        response.status().as_u16(),
        response.text().await.unwrap_or_default(),
    )
}

/// `METHOD {gateway}{path}` with `token` and an optional JSON body: (status, body).
async fn api(
    gateway: &kit::Gateway,
    method: &str,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (u16, Value) {
    kit::rest(method, &format!("{}{path}", gateway.base()), token, body).await
}

/// The message of an error answer.
fn message(answer: &Value) -> &str {
    answer["error"]["message"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn tokens_and_orgs_change_on_one_replica_and_the_other_refuses_at_once() {
    let schema = kit::TestSchema::create("tenancy").await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("switchboard.toml");
    std::fs::write(&config, "[gateway]\nnaming = \"{server}__{tool}\"\n").unwrap();
    let (db, data) = (Some(schema.url.as_str()), dir.path().join("cli"));
    let org = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    kit::admin_on(Path::new(BIN), &data, db, &org);
    let operator = kit::api_token_on(
        Path::new(BIN),
        &data,
        db,
        "acme",
        &["gateway:operate", "integrations:manage"],
    );
    let args = ["--dev", "--database-url", schema.url.as_str()];
    let env = [("SWITCHBOARD_MASTER_KEY", MASTER_KEY)];
    let a =
        kit::Gateway::start_with_env(Path::new(BIN), &args, &dir.path().join("a"), &config, &env)
            .await;
    let b =
        kit::Gateway::start_with_env(Path::new(BIN), &args, &dir.path().join("b"), &config, &env)
            .await;

    // A manager's token (no operate) made on A; it may make tokens with its own roles, not
    // operate ones. (`viewer` below holds manage too: /mcp needs it.)
    let (status, made) = api(
        &a,
        "POST",
        "/api/tokens",
        &operator,
        Some(json!({"roles": ["integrations:manage"]})),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let manager = made["token"].as_str().unwrap().to_string();
    assert_eq!(made["org"], "acme");
    assert_eq!(made["state"], "live");
    let (status, refused) = api(
        &b,
        "POST",
        "/api/tokens",
        &manager,
        Some(json!({"roles": ["gateway:operate"]})),
    )
    .await;
    assert_eq!(status, 403, "{refused}");
    assert!(
        message(&refused).contains("lacks gateway:operate"),
        "{refused}"
    );
    let (status, viewer) = api(
        &b,
        "POST",
        "/api/tokens",
        &manager,
        Some(json!({"roles": ["integrations:manage"], "expires": "1h"})),
    )
    .await;
    assert_eq!(status, 201, "{viewer}");
    assert!(viewer["expires_at"].as_i64().unwrap() > switchboard_store::now_ms());
    let (viewer_secret, viewer_id) = (
        viewer["token"].as_str().unwrap(),
        viewer["id"].as_str().unwrap(),
    );
    // Only gateway:operate manages orgs.
    let (status, _) = api(&a, "GET", "/api/orgs", &manager, None).await;
    assert_eq!(status, 403);
    let (status, orgs) = api(&a, "GET", "/api/orgs", &operator, None).await;
    assert_eq!(status, 200, "{orgs}");
    assert_eq!(orgs["orgs"][0]["name"], "acme");
    let (status, twice) = api(
        &a,
        "POST",
        "/api/orgs",
        &operator,
        Some(json!({"name": "acme"})),
    )
    .await;
    assert_eq!(status, 409, "{twice}");
    assert!(message(&twice).contains("already exists"), "{twice}");

    // The list never shows a secret; revoking on A is refused by B on its next request.
    let (status, list) = api(&b, "GET", "/api/tokens", viewer_secret, None).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["tokens"].as_array().unwrap().len(), 3);
    assert!(!list.to_string().contains(viewer_secret));
    assert_eq!(mcp_with(&b.url, viewer_secret).await.0, 200);
    let (status, revoked) = api(
        &a,
        "DELETE",
        &format!("/api/tokens/{viewer_id}"),
        &manager,
        None,
    )
    .await;
    assert_eq!(status, 200, "{revoked}");
    assert_eq!(revoked["revoked"]["state"], "revoked");
    let (status, said) = mcp_with(&b.url, viewer_secret).await;
    assert_eq!(status, 401);
    assert!(said.contains("revoked"), "{said}");
    let (status, said) = api(&b, "GET", "/api/me", viewer_secret, None).await;
    assert_eq!(status, 401);
    assert!(message(&said).contains("revoked"), "{said}");

    // An expired token is refused with a 401 that says so.
    let (_, brief) = api(
        &a,
        "POST",
        "/api/tokens",
        &manager,
        Some(json!({"roles": ["integrations:view"], "expires": "1s"})),
    )
    .await;
    let brief = brief["token"].as_str().unwrap().to_string();
    kit::eventually("the one-second token expiring", async || {
        let (status, body) = api(&b, "GET", "/api/me", &brief, None).await;
        status == 401 && body.to_string().contains("expired")
    })
    .await;

    // An org deleted on A: its tokens stop on B; its name is free again.
    let (status, _) = api(
        &a,
        "POST",
        "/api/orgs",
        &operator,
        Some(json!({"name": "beta", "features": []})),
    )
    .await;
    assert_eq!(status, 201);
    let (_, beta) = api(
        &a,
        "POST",
        "/api/tokens",
        &operator,
        Some(json!({"org": "beta", "roles": ["integrations:view"]})),
    )
    .await;
    let beta = beta["token"].as_str().unwrap().to_string();
    let (status, _) = api(
        &b,
        "PATCH",
        "/api/orgs/beta",
        &operator,
        Some(json!({"features": ["mcp_external_servers"]})),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(api(&b, "GET", "/api/me", &beta, None).await.0, 200);
    let (status, gone) = api(&a, "DELETE", "/api/orgs/beta", &operator, None).await;
    assert_eq!(status, 200, "{gone}");
    assert_eq!(api(&b, "GET", "/api/me", &beta, None).await.0, 401);
    let (status, _) = api(
        &b,
        "POST",
        "/api/orgs",
        &operator,
        Some(json!({"name": "beta"})),
    )
    .await;
    assert_eq!(status, 201);

    // Every change is in the audit chain, under the token that made it.
    for action in [
        "token.create",
        "token.revoke",
        "org.create",
        "org.update",
        "org.delete",
    ] {
        let url = format!("{}/api/audit?action_id={action}", a.base());
        let (status, rows) = kit::rest("GET", &url, &operator, None).await;
        assert_eq!(status, 200, "{rows}");
        let rows = rows["rows"].as_array().cloned().unwrap_or_default();
        assert!(!rows.is_empty(), "no {action} row");
        assert!(
            rows.iter()
                .any(|r| r["detail"].as_str().unwrap().contains("surface=rest")),
            "{rows:?}"
        );
    }
    drop((a, b));
    schema.remove().await;
}

/// `switchboard ARGS…` on the SQLite store under `data`: (exit code, stdout, stderr).
fn cli(data: &Path, args: &[&str]) -> (i32, String, String) {
    kit::run_cli(Path::new(BIN), data, args)
}

#[tokio::test]
async fn the_cli_lists_changes_revokes_and_deletes_with_json_for_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    assert_eq!(cli(&data, &["org", "create", "acme"]).0, 0);
    let (code, _, said) = cli(&data, &["org", "create", "acme"]);
    assert_eq!(code, 1);
    assert!(
        said.contains("org \"acme\" already exists") && !said.contains("UNIQUE"),
        "{said}"
    );

    let (code, out, _) = cli(
        &data,
        &[
            "token",
            "create",
            "--org",
            "acme",
            "--role",
            "integrations:view",
            "--expires",
            "30d",
            "--json",
        ],
    );
    assert_eq!(code, 0);
    let made: Value = serde_json::from_str(&out).unwrap();
    for key in ["id", "token", "org", "roles", "expires_at"] {
        assert!(!made[key].is_null(), "{key} missing: {made}");
    }
    let (code, out, _) = cli(&data, &["token", "list", "--org", "acme", "--json"]);
    assert_eq!(code, 0);
    let listed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed["tokens"][0]["id"], made["id"]);
    assert_eq!(listed["tokens"][0]["state"], "live");
    assert!(!out.contains(made["token"].as_str().unwrap()));
    let id = made["id"].as_str().unwrap();
    let (code, out, _) = cli(&data, &["token", "revoke", id, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["revoked"]["state"],
        "revoked"
    );
    let (code, _, said) = cli(&data, &["token", "revoke", "tok_nope"]);
    assert_eq!(code, 1);
    assert!(said.contains("token list"), "{said}");
    let (code, _, said) = cli(
        &data,
        &[
            "token",
            "create",
            "--org",
            "acme",
            "--role",
            "integrations:view",
            "--expires",
            "soon",
        ],
    );
    assert_eq!(code, 1);
    assert!(said.contains("30d"), "{said}");

    let (code, out, _) = cli(
        &data,
        &[
            "org",
            "set",
            "acme",
            "--feature",
            "mcp_external_servers",
            "--json",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["features"],
        json!(["mcp_external_servers"])
    );
    let (_, out, _) = cli(&data, &["org", "list"]);
    assert!(
        out.contains("acme") && out.contains("mcp_external_servers"),
        "{out}"
    );
    assert_eq!(cli(&data, &["org", "delete", "acme"]).0, 0);
    let (_, out, _) = cli(&data, &["org", "list", "--json"]);
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["orgs"],
        json!([])
    );
    use switchboard_store::Store;
    let store = switchboard_store::SqlStore::open_sqlite(&data)
        .await
        .unwrap();
    let rows = store.audit(&Default::default()).await.unwrap();
    for action in [
        "org.create",
        "org.update",
        "org.delete",
        "token.create",
        "token.revoke",
    ] {
        let row = rows.iter().find(|r| r.entry.action_id == action);
        let detail = row.and_then(|r| r.entry.detail.clone()).unwrap_or_default();
        assert!(
            detail.contains("surface=cli"),
            "{action} not audited: {rows:?}"
        );
    }
    assert_eq!(cli(&data, &["audit", "verify"]).0, 0);
}
