//! Consent asked where the end user is, on two replicas sharing a Postgres behind haproxy (the
//! gateway's public URL, where consent links point): a caller that declared URL elicitation
//! (the official Python SDK) is sent the link and its call waits; the link, opened in a
//! browser signed in with the org's provider as another person, is refused, and as the end
//! user takes their key; the waiting call then completes as them. Callers without
//! elicitation, over MCP and REST, get `-32042` with the link; the end user sees and revokes
//! their grant on the dashboard, and the next call asks again; a 2026-07-28 caller gets the
//! consent as an input round, answered on either replica.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use switchboard_testkit as kit;
use tokio::io::{AsyncBufReadExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "1f3e5d7c9b0a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e";

/// The -32042 error a call answered, with its consent link.
fn consent_link(answer: &Value) -> String {
    assert_eq!(answer["error"]["code"], -32042, "{answer}");
    let asked = &answer["error"]["data"]["elicitations"][0];
    assert_eq!(asked["mode"], "url", "{answer}");
    asked["url"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_end_user_without_a_grant_is_asked_where_they_are() {
    let schema = kit::TestSchema::create("consent").await;
    let provider = kit::oidc::Provider::start().await;
    let echo_bin = Path::new(BIN).with_file_name("echo-server");
    let echo = kit::Served::start(&echo_bin, &["--http", "127.0.0.1:0"]).await;
    let dir = tempfile::tempdir().unwrap();
    let port = kit::free_port();
    let public = format!("http://127.0.0.1:{port}");
    let text = format!(
        "[gateway]\npublic_url = \"{public}\"\nanonymous_loopback = false\ntoken = \"operator-token\"\n\n\
         [limits]\nconsent_timeout_secs = 120\n\n\
         [[identity.issuers]]\nissuer = \"{}\"\n\
         sign_in = {{ client_id = \"dashboard\", client_secret = \"{{env:SIGN_IN_SECRET}}\" }}\n\
         [identity.issuers.claims]\norg = \"org\"\n\n\
         [servers.billing]\nurl = \"{}\"\ncredentials = \"per_end_user\"\n\
         trust_asserted_end_users = true\n\
         auth = {{ type = \"bearer\", token = \"discovery-secret\" }}\n",
        provider.issuer, echo.url
    );
    let config = dir.path().join("switchboard.toml");
    std::fs::write(&config, text).unwrap();
    let (db, data) = (Some(schema.url.as_str()), dir.path().join("cli"));
    let org = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    kit::admin_on(Path::new(BIN), &data, db, &org);
    let platform = kit::api_token_on(
        Path::new(BIN),
        &data,
        db,
        "acme",
        &["integrations:manage", "end_users:assert"],
    );
    let args = ["--dev", "--database-url", schema.url.as_str()];
    let env = [
        ("SWITCHBOARD_MASTER_KEY", MASTER_KEY),
        ("SIGN_IN_SECRET", "dashboard-secret"),
    ];
    let replicas = (&args[..], config.as_path(), &env[..]);
    let (a, b, _haproxy) =
        kit::balancer::two_replicas(Path::new(BIN), dir.path(), port, replicas).await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let token_for = |sub: &str| {
        let claims = json!({"iss": provider.issuer, "sub": sub, "aud": format!("{public}/mcp"),
            "org": "acme", "exp": now + 600, "iat": now, "scope": "mcp:tools"});
        provider.sign(json!({"typ": "at+jwt"}), claims, None)
    };
    let alice = token_for("alice@acme").await;

    // A caller without elicitation gets the link in a -32042 error.
    let answer = kit::call_tool_answer(&a.url, &alice, "billing__headers", None).await;
    let first = consent_link(&answer);
    assert!(first.starts_with(&format!("{public}/consent/")), "{first}");
    assert!(!first.contains("alice"), "the link names nobody: {first}");

    // Over REST, an agent's invoke for an asserted end user answers the same error.
    let action = format!("{}/api/agents/bot/actions/mcp.billing.headers", b.base());
    let (status, body) = kit::rest("PUT", &action, &platform, Some(json!({"enabled": true}))).await;
    assert_eq!(status, 200, "{body}");
    let invoke = json!({"arguments": {}, "end_user_id": "carol@acme"});
    let (_, body) = kit::rest("POST", &format!("{action}/invoke"), &platform, Some(invoke)).await;
    let link = body["error"]["data"]["elicitations"][0]["url"].as_str();
    assert_eq!(body["error"]["code"], -32042, "{body}");
    assert!(link.is_some_and(|l| l.starts_with(&public)), "{body}");

    // A caller that declared URL elicitation is sent a link and its call waits.
    let mut probe = tokio::process::Command::new(kit::python())
        .arg(kit::client_script("consent_probe.py"))
        .args([&a.url, &alice, "billing__headers"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(probe.stdout.take().unwrap()).lines();
    let elicited: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    let link = elicited["elicited"]["url"].as_str().unwrap().to_string();
    assert_eq!(elicited["elicited"]["mode"], "url", "{elicited}");
    assert_ne!(link, first, "each consent has its own link");

    // Opened by another person of the org: refused, and the link still works.
    let bob = kit::run_node_client("consent_page.mjs", &[&link, "bob@acme", "bob-key"]).await;
    assert_eq!(bob["problems"], json!([]), "{bob}");
    assert_eq!(bob["offered_form"], false, "{bob}");
    assert_eq!(bob["status"], 403, "{bob}");
    assert!(
        bob["text"].as_str().unwrap().contains("another person"),
        "{bob}"
    );
    // Opened by alice, signed in with the provider: her key is taken; used once.
    let took = kit::run_node_client("consent_page.mjs", &[&link, "alice@acme", "alice-key"]).await;
    assert_eq!(took["problems"], json!([]), "{took}");
    assert_eq!(took["offered_form"], true, "{took}");
    assert_eq!(took["title"], "Saved", "{took}");
    assert_eq!(took["again"], 410, "{took}");

    // The waiting call completes as alice, told that the elicitation completed.
    let outcome: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(outcome["rpc_error"], Value::Null, "{outcome}");
    assert_eq!(outcome["error"], false, "{outcome}");
    let headers: Value = serde_json::from_str(outcome["text"].as_str().unwrap()).unwrap();
    assert_eq!(headers["authorization"], "Bearer alice-key", "{outcome}");
    assert_eq!(
        outcome["completed"],
        json!([elicited["elicited"]["id"]]),
        "{outcome}"
    );
    probe.wait().await.unwrap();

    // Both replicas use the grant; revoked, both ask again (over MCP and over REST).
    for gw in [&a, &b] {
        let seen = kit::call_tool_as(&gw.url, &alice, "billing__headers", None).await;
        assert_eq!(seen.unwrap()["authorization"], "Bearer alice-key");
    }
    // Alice sees her own grant on the dashboard and revokes it there.
    let mine = kit::run_node_client("my_grants.mjs", &[&public, "alice@acme", "billing"]).await;
    assert_eq!(mine["problems"], json!([]), "{mine}");
    assert_eq!(mine["who"], "(as alice@acme)", "{mine}");
    assert_eq!(mine["before"], json!(["billing"]), "{mine}");
    assert_eq!(mine["after"], json!([]), "{mine}");
    for gw in [&a, &b] {
        kit::eventually("the revocation asking for consent again", async || {
            let answer = kit::call_tool_answer(&gw.url, &alice, "billing__headers", None).await;
            answer["error"]["code"] == -32042
        })
        .await;
    }

    // A caller whose end user declines in their client hears so.
    let declined = tokio::process::Command::new(kit::python())
        .arg(kit::client_script("consent_probe.py"))
        .args([&b.url, &alice, "billing__headers", "decline"])
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&declined.stdout);
    let outcome: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(outcome["error"], true, "{outcome}");
    assert!(
        outcome["text"].as_str().unwrap().contains("declined"),
        "{outcome}"
    );

    // A 2026-07-28 caller (SDK 2.x) through the balancer gets the consent as an input round;
    // its retry (on either replica) waits for the grant, then runs as alice.
    let mut modern = tokio::process::Command::new(kit::python2())
        .arg(kit::client_script("consent_probe.py"))
        .args([
            &format!("{public}/mcp"),
            &alice,
            "billing__headers",
            "accept",
            "auto",
        ])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(modern.stdout.take().unwrap()).lines();
    let elicited: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    let link = elicited["elicited"]["url"].as_str().unwrap().to_string();
    let took =
        kit::run_node_client("consent_page.mjs", &[&link, "alice@acme", "alice-key-2"]).await;
    assert_eq!(took["title"], "Saved", "{took}");
    let outcome: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(outcome["protocol"], "2026-07-28", "{outcome}");
    assert_eq!(outcome["rpc_error"], Value::Null, "{outcome}");
    let headers: Value = serde_json::from_str(outcome["text"].as_str().unwrap()).unwrap();
    assert_eq!(headers["authorization"], "Bearer alice-key-2", "{outcome}");
    modern.wait().await.unwrap();
    drop((a, b));
    schema.remove().await;
}

/// A caller that declared URL elicitation whose end user never grants: after
/// `consent_timeout_secs` the call answers `-32042` with the same link, so a retry works
/// (SQLite, one gateway; nobody opens the link).
#[tokio::test(flavor = "multi_thread")]
async fn a_consent_that_never_comes_answers_the_same_link() {
    let provider = kit::oidc::Provider::start().await;
    let echo_bin = Path::new(BIN).with_file_name("echo-server");
    let echo = kit::Served::start(&echo_bin, &["--http", "127.0.0.1:0"]).await;
    let dir = tempfile::tempdir().unwrap();
    // The links' public URL: nothing listens there, and nothing needs to.
    let public = "http://127.0.0.1:9";
    let text = format!(
        "[gateway]\npublic_url = \"{public}\"\nanonymous_loopback = false\n\n\
         [limits]\nconsent_timeout_secs = 1\n\n\
         [[identity.issuers]]\nissuer = \"{}\"\n\
         sign_in = {{ client_id = \"dashboard\", client_secret = \"dashboard-secret\" }}\n\
         [identity.issuers.claims]\norg = \"org\"\n\n\
         [servers.billing]\nurl = \"{}\"\ncredentials = \"per_end_user\"\n\
         auth = {{ type = \"bearer\", token = \"discovery-secret\" }}\n",
        provider.issuer, echo.url
    );
    let config = dir.path().join("switchboard.toml");
    std::fs::write(&config, text).unwrap();
    let data = dir.path().join("gw");
    let org = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    // kit::Gateway keeps its data under its folder's `data`.
    kit::admin_on(Path::new(BIN), &data.join("data"), None, &org);
    let mut gw =
        kit::Gateway::start_with_env(Path::new(BIN), &["--dev"], &data, &config, &[]).await;
    gw.ignore_log();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = json!({"iss": provider.issuer, "sub": "erin@acme", "aud": format!("{public}/mcp"),
        "org": "acme", "exp": now + 600, "iat": now, "scope": "mcp:tools"});
    let erin = provider.sign(json!({"typ": "at+jwt"}), claims, None).await;
    let out = tokio::process::Command::new(kit::python())
        .arg(kit::client_script("consent_probe.py"))
        .args([&gw.url, &erin, "billing__headers"])
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let first = lines.next();
    let first = first.unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    let elicited: Value = serde_json::from_str(first).unwrap();
    let outcome: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    let error = &outcome["rpc_error"];
    assert_eq!(error["code"], -32042, "{outcome}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("no grant came within 1 s"), "{outcome}");
    assert_eq!(
        error["data"]["elicitations"][0]["url"], elicited["elicited"]["url"],
        "the same link: {outcome}"
    );
}
