//! People sign in to the dashboard with the organisation's OpenID Connect provider (a real
//! one: oidc-provider from npm) in Chromium, on one of two replicas sharing a Postgres: roles
//! from the claims, a Secure-when-https, HttpOnly, SameSite cookie, changes refused without the
//! CSRF header, the session known to the other replica and ended there by the sign-out.

use std::path::Path;
use std::process::Stdio;
use switchboard_testkit as kit;
use switchboard_testkit::oidc::Provider;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "1f3e5d7c9b0a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e";

/// `serve` on `port` with `config`, its data under `data`, until it is ready.
async fn replica(port: u16, config: &Path, data: &Path, database: &str) -> Child {
    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--dev",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "-c",
        ])
        .arg(config)
        .args(["--database-url", database])
        .env("SWITCHBOARD_DATA", data)
        .env("SWITCHBOARD_MASTER_KEY", MASTER_KEY)
        // The sign-in client's secret, read through a placeholder.
        .env("SIGN_IN_SECRET", "dashboard-secret")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start switchboard serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    while let Some(line) = lines.next_line().await.unwrap() {
        if line.starts_with("switchboard ready: ") {
            break;
        }
    }
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    child
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_signs_in_with_the_provider_and_out_on_every_replica() {
    let schema = kit::TestSchema::create("signin").await;
    let provider = Provider::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (port_a, port_b) = (kit::free_port(), kit::free_port());
    let base = format!("http://127.0.0.1:{port_a}");
    let config = dir.path().join("switchboard.toml");
    std::fs::write(
        &config,
        format!(
            r#"[gateway]
public_url = "{base}"

[[identity.issuers]]
issuer = "{}"
sign_in = {{ client_id = "dashboard", client_secret = "{{env:SIGN_IN_SECRET}}" }}
[identity.issuers.claims]
org = "org"
roles = {{ claim = "groups", map = {{ "mcp-admins" = "integrations:manage", "mcp-users" = "integrations:view" }} }}
"#,
            provider.issuer
        ),
    )
    .unwrap();
    kit::admin_on(
        Path::new(BIN),
        &dir.path().join("admin"),
        Some(&schema.url),
        &["org", "create", "acme", "--feature", "mcp_external_servers"],
    );
    let _a = replica(port_a, &config, &dir.path().join("a"), &schema.url).await;
    let _b = replica(port_b, &config, &dir.path().join("b"), &schema.url).await;
    let other = format!("http://127.0.0.1:{port_b}");
    let seen = kit::run_node_client("dashboard_sign_in.mjs", &[&base, "admin@acme", &other]).await;
    assert_eq!(seen["problems"], serde_json::json!([]), "{seen}");
    assert_eq!(
        seen["person"],
        format!("{}#admin@acme", provider.issuer),
        "{seen}"
    );
    assert_eq!(seen["me"]["org"], "acme", "{seen}");
    assert_eq!(
        seen["me"]["roles"],
        serde_json::json!(["integrations:manage"]),
        "{seen}"
    );
    assert_eq!(seen["cookie"]["httpOnly"], true, "{seen}");
    assert_eq!(seen["cookie"]["sameSite"], "Lax", "{seen}");
    assert_eq!(seen["without_csrf"]["status"], 403, "{seen}");
    let with = seen["with_csrf"]["status"].as_u64().unwrap();
    assert!(with != 403 && with != 401, "{seen}");
    assert_eq!(seen["other_before"], 200, "{seen}");
    assert_eq!(seen["other_after"], 401, "{seen}");

    // A sign-in is finished only in the browser that began it (login CSRF): a callback with
    // its state but without its cookie is refused; with the cookie it goes on to the code.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let begin = || async {
        let begun = client
            .get(format!("{other}/auth/login"))
            .send()
            .await
            .unwrap();
        assert_eq!(begun.status().as_u16(), 303);
        let location = reqwest::Url::parse(begun.headers()["location"].to_str().unwrap()).unwrap();
        let state = (location.query_pairs())
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.to_string())
            .unwrap();
        let cookie = (begun.headers().get_all("set-cookie").iter())
            .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string())
            .find(|c| c.starts_with("sb_signin="))
            .expect("the browser binding cookie");
        (
            format!("{other}/auth/callback?code=made-up&state={state}"),
            cookie,
        )
    };
    let (callback, _) = begin().await;
    let elsewhere = client.get(&callback).send().await.unwrap();
    assert_eq!(elsewhere.status().as_u16(), 403);
    assert!(elsewhere.text().await.unwrap().contains("another browser"));
    let (callback, cookie) = begin().await;
    let here = client
        .get(&callback)
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    let status = here.status().as_u16();
    let text = here.text().await.unwrap();
    assert_eq!(
        status, 401,
        "the made-up code is refused by the provider: {text}"
    );
    assert!(text.contains("sign-in refused"), "{text}");

    // Signing in and out are audited under the person.
    let store = switchboard_store::SqlStore::open(&schema.url)
        .await
        .unwrap();
    for action in ["identity.sign_in", "identity.sign_out"] {
        let filter = switchboard_store::AuditFilter {
            action_id: Some(action.into()),
            ..Default::default()
        };
        let mut rows = Vec::new();
        for _ in 0..500 {
            rows = switchboard_store::Store::audit(&store, &filter)
                .await
                .unwrap();
            if !rows.is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let token = rows.first().and_then(|r| r.entry.token_id.clone());
        assert!(
            token.is_some_and(|t| t.starts_with("person:")),
            "{action}: {rows:?}"
        );
    }
    schema.remove().await;
}
