//! Per-end-user servers on two replicas sharing one Postgres: an access token's end user
//! gets a grant set through the other replica, and loses it when it is revoked there.

use serde_json::json;
use std::path::Path;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "1f3e5d7c9b0a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e";

/// Two replicas on one Postgres: an access token's end user (no trust in asserted ones
/// needed) gets the grant set through the other replica, and loses it when it is revoked
/// there, each as soon as the change notice arrives.
#[tokio::test(flavor = "multi_thread")]
async fn a_grant_made_or_revoked_on_one_replica_holds_on_the_other() {
    let schema = kit::TestSchema::create("end_users").await;
    let provider = kit::oidc::Provider::start().await;
    let echo_bin = Path::new(BIN).with_file_name("echo-server");
    let echo = kit::Served::start(&echo_bin, &["--http", "127.0.0.1:0"]).await;
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[gateway]\nanonymous_loopback = false\ntoken = \"operator-token\"\n\n\
         [[identity.issuers]]\nissuer = \"{}\"\n[identity.issuers.claims]\norg = \"org\"\n\n\
         [servers.billing]\nurl = \"{}\"\ncredentials = \"per_end_user\"\n\
         auth = {{ type = \"bearer\", token = \"discovery-secret\" }}\n",
        provider.issuer, echo.url
    );
    let config = dir.path().join("switchboard.toml");
    std::fs::write(&config, text).unwrap();
    let (db, data) = (Some(schema.url.as_str()), dir.path().join("cli"));
    let org = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    kit::admin_on(Path::new(BIN), &data, db, &org);
    let platform = kit::api_token_on(Path::new(BIN), &data, db, "acme", &["integrations:manage"]);
    let args = ["--dev", "--database-url", schema.url.as_str()];
    let env = [("SWITCHBOARD_MASTER_KEY", MASTER_KEY)];
    let start = |name: &str| {
        let dir = dir.path().join(name);
        let (config, args) = (config.clone(), args);
        async move {
            let mut gw =
                kit::Gateway::start_with_env(Path::new(BIN), &args, &dir, &config, &env).await;
            gw.ignore_log();
            gw
        }
    };
    let (a, b) = (start("a").await, start("b").await);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = json!({"iss": provider.issuer, "sub": "dave@acme", "aud": b.url, "org": "acme",
        "exp": now + 600, "iat": now, "scope": "mcp:tools", "groups": ["mcp-users"]});
    let dave = provider.sign(json!({"typ": "at+jwt"}), claims, None).await;

    // No grant yet (B remembers that), then one set through A.
    let none = kit::call_tool_as(&b.url, &dave, "billing__headers", None)
        .await
        .unwrap_err();
    assert!(
        none.contains("no credential") && none.contains("dave@acme"),
        "{none}"
    );
    let route = format!("{}/api/end-users/dave@acme/credentials/billing", a.base());
    let (status, body) = kit::rest(
        "PUT",
        &route,
        &platform,
        Some(json!({"secret": "dave-key"})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let set = tokio::time::Instant::now();
    kit::eventually("the grant reaching B", async || {
        kit::call_tool_as(&b.url, &dave, "billing__headers", None)
            .await
            .is_ok()
    })
    .await;
    println!("grant seen on the other replica after {:?}", set.elapsed());
    let seen = kit::call_tool_as(&b.url, &dave, "billing__headers", None)
        .await
        .unwrap();
    assert_eq!(seen["authorization"], "Bearer dave-key", "{seen}");

    // Revoked through A: B refuses dave's next call and closes his session.
    let route = format!("{}/api/end-users/dave@acme/grants/billing", a.base());
    let (status, _) = kit::rest("DELETE", &route, &platform, None).await;
    assert_eq!(status, 200);
    let revoked = tokio::time::Instant::now();
    kit::eventually("the revocation reaching B", async || {
        kit::call_tool_as(&b.url, &dave, "billing__headers", None)
            .await
            .is_err()
    })
    .await;
    println!(
        "revocation seen on the other replica after {:?}",
        revoked.elapsed()
    );
    let sessions = "switchboard_upstream_end_user_sessions{server=\"billing\",org=\"\"}";
    assert_eq!(
        kit::metric(b.base(), Some("operator-token"), sessions).await,
        0.0
    );
    drop((a, b));
    schema.remove().await;
}
