//! `credentials = "token_exchange"`: each end user's call reaches the upstream with the
//! caller's own access token exchanged (RFC 8693) at the issuer that minted it (oidc-provider
//! from npm, with a token-exchange grant the fixture registers), for a token whose audience is
//! the upstream; kept per end user until it expires; never for an API token's asserted user;
//! over MCP and over the REST invoke route.

use serde_json::json;
use std::path::Path;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

#[tokio::test(flavor = "multi_thread")]
async fn each_end_user_reaches_the_upstream_with_their_own_exchanged_token() {
    let provider = kit::oidc::Provider::start().await;
    let echo_bin = Path::new(BIN).with_file_name("echo-server");
    let echo = kit::Served::start(&echo_bin, &["--http", "127.0.0.1:0"]).await;
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[gateway]\nanonymous_loopback = false\n\n\
         [[identity.issuers]]\nissuer = \"{}\"\n\
         token_exchange = {{ client_id = \"exchanger\", client_secret = \"exchanger-secret\" }}\n\
         [identity.issuers.claims]\norg = \"org\"\n\
         roles = {{ claim = \"groups\", map = {{ \"mcp-admins\" = \"integrations:manage\", \"mcp-users\" = \"integrations:view\" }} }}\n\
\n\
         [servers.billing]\nurl = \"{}\"\ncredentials = \"token_exchange\"\n\
         auth = {{ type = \"bearer\", token = \"discovery-secret\" }}\n",
        provider.issuer, echo.url
    );
    let config = dir.path().join("switchboard.toml");
    std::fs::write(&config, text).unwrap();
    let home = dir.path().join("gw");
    let org = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    // kit::Gateway keeps its data under its folder's `data`.
    kit::admin_on(Path::new(BIN), &home.join("data"), None, &org);
    let mut gw =
        kit::Gateway::start_with_env(Path::new(BIN), &["--dev"], &home, &config, &[]).await;
    gw.ignore_log();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let token_for = |sub: &str, groups: &[&str]| {
        let claims = json!({"iss": provider.issuer, "sub": sub, "aud": gw.url, "org": "acme",
            "exp": now + 600, "iat": now, "scope": "mcp:tools", "groups": groups});
        provider.sign(json!({"typ": "at+jwt"}), claims, None)
    };
    let alice = token_for("alice@acme", &["mcp-users"]).await;
    let bob = token_for("bob@acme", &["mcp-users"]).await;

    // Alice's call carries a token exchanged for her, for the upstream, not her own.
    let seen = kit::call_tool_as(&gw.url, &alice, "billing__headers", None)
        .await
        .unwrap();
    let sent = seen["authorization"]
        .as_str()
        .unwrap()
        .strip_prefix("Bearer ")
        .unwrap()
        .to_string();
    assert_ne!(sent, alice, "the caller's own token never goes upstream");
    let claims = kit::oidc::claims_of(&sent);
    assert_eq!(claims["sub"], "alice@acme", "{claims}");
    assert_eq!(claims["aud"], echo.url, "{claims}");
    assert_eq!(claims["act"]["sub"], "exchanger", "{claims}");
    assert_eq!(provider.exchanges().await, 1);
    // Her next call uses the same exchanged token (kept until it expires).
    let again = kit::call_tool_as(&gw.url, &alice, "billing__headers", None)
        .await
        .unwrap();
    assert_eq!(again["authorization"], seen["authorization"]);
    assert_eq!(provider.exchanges().await, 1);
    // Bob gets his own.
    let his = kit::call_tool_as(&gw.url, &bob, "billing__headers", None)
        .await
        .unwrap();
    let his = kit::oidc::claims_of(
        his["authorization"]
            .as_str()
            .unwrap()
            .trim_start_matches("Bearer "),
    );
    assert_eq!(his["sub"], "bob@acme", "{his}");
    assert_eq!(provider.exchanges().await, 2);

    // A platform's API token asserting alice has no token of hers to exchange: refused.
    let roles = ["integrations:manage", "end_users:assert"];
    let platform = kit::api_token_on(Path::new(BIN), &home.join("data"), None, "acme", &roles);
    let meta = json!({"bound_end_user_id": "alice@acme"});
    let refused = kit::call_tool_as(&gw.url, &platform, "billing__headers", Some(meta)).await;
    let refused = refused.unwrap_err();
    assert!(
        refused.contains("auth_unavailable") && refused.contains("exchanges"),
        "{refused}"
    );
    assert_eq!(provider.exchanges().await, 2);

    // Over REST, an invoke with carol's own access token (for the API) is exchanged too.
    let api = format!("{}/api", gw.base());
    let claims = json!({"iss": provider.issuer, "sub": "carol@acme", "aud": api, "org": "acme",
        "exp": now + 600, "iat": now, "groups": ["mcp-admins"]});
    let carol = provider.sign(json!({"typ": "at+jwt"}), claims, None).await;
    let action = format!("{api}/agents/bot/actions/mcp.billing.headers");
    let (status, body) = kit::rest("PUT", &action, &carol, Some(json!({"enabled": true}))).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = kit::rest("POST", &format!("{action}/invoke"), &carol, None).await;
    assert_eq!(status, 200, "{body}");
    let text = body["result"]["content"][0]["text"].as_str().unwrap();
    let headers: serde_json::Value = serde_json::from_str(text).unwrap();
    let sent = headers["authorization"].as_str().unwrap();
    let sent = sent.strip_prefix("Bearer ").unwrap();
    assert_ne!(sent, carol, "the caller's own token never goes upstream");
    let claims = kit::oidc::claims_of(sent);
    assert_eq!(claims["sub"], "carol@acme", "{claims}");
    assert_eq!(claims["aud"], echo.url, "{claims}");
    assert_eq!(provider.exchanges().await, 3);
}
