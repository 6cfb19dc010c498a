//! Per-end-user OAuth on two replicas sharing a Postgres behind haproxy (the public URL): an
//! OAuth-protected MCP server (the testkit's oauth-server, which answers each token with its
//! user) is authorized by each end user in their own browser from a consent link, after
//! signing in with the org's provider (one of them while their TypeScript SDK client, which
//! declared URL elicitation, waits). Two end users see their own upstream identity on both
//! replicas; a callback opened in another browser is refused; a third user is asked; expired
//! tokens are refreshed once across replicas; a refresh the upstream refuses turns the next
//! call into a consent request (audited); a revoked grant asks again.

use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;
use tokio::io::{AsyncBufReadExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "1f3e5d7c9b0a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e";

/// The -32042 error a call answered, with its consent link.
fn consent_link(answer: &Value) -> String {
    assert_eq!(answer["error"]["code"], -32042, "{answer}");
    let asked = &answer["error"]["data"]["elicitations"][0];
    asked["url"].as_str().unwrap().to_string()
}

/// The text a successful `whoami` answered.
fn whoami(answer: &Value) -> String {
    assert_eq!(answer["error"], Value::Null, "{answer}");
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_string()
}

/// The audit rows of `action`, once there is one (rows are written after the answer).
async fn audit_rows(base: &str, token: &str, action: &str) -> Vec<Value> {
    let url = format!("{base}/api/audit?action_id={action}");
    let mut rows = Vec::new();
    kit::eventually(&format!("an audit row {action}"), async || {
        let (_, body) = kit::rest("GET", &url, token, None).await;
        rows = body["rows"].as_array().cloned().unwrap_or_default();
        !rows.is_empty()
    })
    .await;
    rows
}

#[tokio::test(flavor = "multi_thread")]
async fn each_end_user_authorizes_the_server_as_themselves() {
    let schema = kit::TestSchema::create("eu_oauth").await;
    let provider = kit::oidc::Provider::start().await;
    let upstream_bin = Path::new(BIN).with_file_name("oauth-server");
    let upstream = kit::oauth_fixture::AuthServer::start(&upstream_bin, &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let port = kit::free_port();
    let public = format!("http://127.0.0.1:{port}");
    let text = format!(
        "[gateway]\npublic_url = \"{public}\"\nanonymous_loopback = false\ntoken = \"operator-token\"\n\n\
         [[identity.issuers]]\nissuer = \"{}\"\n\
         sign_in = {{ client_id = \"dashboard\", client_secret = \"dashboard-secret\" }}\n\
         [identity.issuers.claims]\norg = \"org\"\n\n\
         [servers.drive]\nurl = \"{}\"\ncredentials = \"per_end_user\"\n\
         auth = {{ type = \"authorizationCode\" }}\n",
        provider.issuer, upstream.served.url
    );
    let config = dir.path().join("switchboard.toml");
    std::fs::write(&config, text).unwrap();
    let (db, data) = (Some(schema.url.as_str()), dir.path().join("cli"));
    let org = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    kit::admin_on(Path::new(BIN), &data, db, &org);
    let platform = kit::api_token_on(Path::new(BIN), &data, db, "acme", &["integrations:manage"]);
    let roles = ["integrations:view", "gateway:operate"];
    let operate = kit::api_token_on(Path::new(BIN), &data, db, "acme", &roles);
    let args = ["--dev", "--database-url", schema.url.as_str()];
    let env = [("SWITCHBOARD_MASTER_KEY", MASTER_KEY)];
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
    let (alice, bob, carol) = (
        token_for("alice@acme").await,
        token_for("bob@acme").await,
        token_for("carol@acme").await,
    );
    let authorize = async |link: &str, login: &str, upstream_user: &str, mode: &str| {
        let args = [link, login, upstream.base.as_str(), upstream_user, mode];
        kit::run_node_client("consent_oauth.mjs", &args).await
    };

    // No end user has authorized yet: the server waits for its own authorization, which an
    // operator gives to list its tools (never used for a call).
    let servers = format!("{}/api/integrations/mcp/servers", a.base());
    let mut authorize_url = String::new();
    kit::eventually("the server's authorize URL", async || {
        let (_, body) = kit::rest("GET", &servers, &operate, None).await;
        let rows = body["servers"].as_array().cloned().unwrap_or_default();
        let drive = rows.iter().find(|s| s["slug"] == "drive").cloned();
        let url = drive.and_then(|d| d["authorize_url"].as_str().map(String::from));
        authorize_url = url.unwrap_or_default();
        !authorize_url.is_empty()
    })
    .await;
    let listed = reqwest::get(&authorize_url).await.unwrap();
    assert_eq!(listed.status(), 200, "{:?}", listed.text().await);
    // Alice is asked for consent: the operator's authorization is not hers.
    kit::eventually("the server's tools listed, and alice asked", async || {
        let answer = kit::call_tool_answer(&a.url, &alice, "drive__whoami", None).await;
        answer["error"]["code"] == -32042
    })
    .await;
    let answer = kit::call_tool_answer(&a.url, &alice, "drive__whoami", None).await;
    let link = consent_link(&answer);
    assert!(link.starts_with(&format!("{public}/consent/")), "{link}");

    // Her callback opened in another browser is refused before its code is used.
    let stolen = authorize(&link, "alice@acme", "alice-at-drive", "steal").await;
    assert_eq!(stolen["problems"], json!([]), "{stolen}");
    assert_eq!(stolen["consent_title"], "Authorize drive", "{stolen}");
    assert_eq!(stolen["status"], 403, "{stolen}");
    assert!(
        stolen["text"].as_str().unwrap().contains("another browser"),
        "{stolen}"
    );
    // In her own browser the link goes on to the upstream and back: authorized.
    let took = authorize(&link, "alice@acme", "alice-at-drive", "").await;
    assert_eq!(took["problems"], json!([]), "{took}");
    assert_eq!(took["title"], "Authorized", "{took}");

    // Bob's client (the TypeScript SDK) declares URL elicitation: it is sent his link and
    // its call waits while he authorizes as himself, then runs as him.
    let mut probe = tokio::process::Command::new("node")
        .arg(kit::client_script("consent_probe.mjs"))
        .args([&b.url, &bob, "drive__whoami"])
        .env("SWITCHBOARD_NODE_MODULES", kit::node_modules())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(probe.stdout.take().unwrap()).lines();
    let elicited: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(elicited["elicited"]["mode"], "url", "{elicited}");
    let bobs_link = elicited["elicited"]["url"].as_str().unwrap().to_string();
    let bobs = authorize(&bobs_link, "bob@acme", "bob-at-drive", "").await;
    assert_eq!(bobs["title"], "Authorized", "{bobs}");
    let outcome: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(outcome["rpc_error"], Value::Null, "{outcome}");
    assert!(
        outcome["text"]
            .as_str()
            .unwrap()
            .ends_with("user: bob-at-drive"),
        "{outcome}"
    );
    assert_eq!(
        outcome["completed"],
        json!([elicited["elicited"]["id"]]),
        "{outcome}"
    );
    probe.wait().await.unwrap();

    // Each sees their own identity upstream, on both replicas; carol is asked.
    for gw in [&a, &b] {
        kit::eventually("the servers' tools listed", async || {
            let answer = kit::call_tool_answer(&gw.url, &alice, "drive__whoami", None).await;
            answer["error"] == Value::Null
        })
        .await;
        let mine = kit::call_tool_answer(&gw.url, &alice, "drive__whoami", None).await;
        assert!(whoami(&mine).ends_with("user: alice-at-drive"), "{mine}");
        let his = kit::call_tool_answer(&gw.url, &bob, "drive__whoami", None).await;
        assert!(whoami(&his).ends_with("user: bob-at-drive"), "{his}");
        let hers = kit::call_tool_answer(&gw.url, &carol, "drive__whoami", None).await;
        consent_link(&hers);
    }

    // Expired access tokens: both replicas call at once, and bob's token is refreshed once
    // (the refresh token rotates: a second refresh would have been refused).
    let refreshes = "refresh_token:bob-at-drive";
    let refreshed = upstream.stats(refreshes).await;
    upstream.admin("revoke-access").await;
    let (on_a, on_b) = tokio::join!(
        kit::call_tool_answer(&a.url, &bob, "drive__whoami", None),
        kit::call_tool_answer(&b.url, &bob, "drive__whoami", None),
    );
    assert!(whoami(&on_a).ends_with("user: bob-at-drive"), "{on_a}");
    assert!(whoami(&on_b).ends_with("user: bob-at-drive"), "{on_b}");
    assert_eq!(upstream.stats(refreshes).await, refreshed + 1);

    // Bob's grant revoked over REST: the next call on either replica asks again.
    let api = format!("{}/api", b.base());
    let route = format!("{api}/end-users/bob@acme/grants/drive");
    let (status, body) = kit::rest("DELETE", &route, &platform, None).await;
    assert_eq!(status, 200, "{body}");
    // His tokens (the refresh token too) went with the grant; alice's stay.
    let store = switchboard_store::SqlStore::open(&schema.url)
        .await
        .unwrap();
    let keys = switchboard_store::Store::oauth_token_keys(&store)
        .await
        .unwrap();
    assert!(!keys.iter().any(|k| k.contains("bob")), "{keys:?}");
    assert!(keys.iter().any(|k| k.contains("alice")), "{keys:?}");
    for gw in [&a, &b] {
        kit::eventually("the revocation asking for consent again", async || {
            let answer = kit::call_tool_answer(&gw.url, &bob, "drive__whoami", None).await;
            answer["error"]["code"] == -32042
        })
        .await;
    }

    // The upstream refuses every token and refresh: alice's next call is a consent request,
    // and the refusal is audited.
    upstream.admin("revoke-access").await;
    upstream.admin("revoke-refresh").await;
    let answer = kit::call_tool_answer(&a.url, &alice, "drive__whoami", None).await;
    let again = consent_link(&answer);
    assert_ne!(again, link);
    let rows = audit_rows(a.base(), &operate, "end_user.grant_refused").await;
    assert_eq!(rows[0]["end_user_id"], "alice@acme", "{rows:?}");
    // On the other replica too (the grant is gone everywhere).
    let answer = kit::call_tool_answer(&b.url, &alice, "drive__whoami", None).await;
    consent_link(&answer);
    drop((a, b));
    schema.remove().await;
}
