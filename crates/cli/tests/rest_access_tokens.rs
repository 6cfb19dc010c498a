//! The REST API takes OAuth access tokens from the operator's issuers for the resource
//! `{public_url}/api`, mapped to an org and roles by their claims, beside API tokens (a real
//! OpenID provider's key signs them: oidc-provider from npm).

use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;
use switchboard_testkit::oidc::Provider;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

#[tokio::test(flavor = "multi_thread")]
async fn an_access_token_for_the_api_acts_for_its_org_with_its_roles() {
    let provider = Provider::start().await;
    let dir = tempfile::tempdir().unwrap();
    let settings = format!(
        r#"[gateway]
anonymous_loopback = false

[limits]
failed_auth_per_minute = 1000

[[identity.issuers]]
issuer = "{}"
scopes = {{ api = ["api:read"] }}
[identity.issuers.claims]
org = "org"
roles = {{ claim = "groups", map = {{ "mcp-admins" = "integrations:manage" }} }}
"#,
        provider.issuer
    );
    let config = kit::relay_toml(dir.path(), &settings);
    let mut gw = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &config, 1).await;
    gw.ignore_log();
    let data = dir.path().join("data");
    kit::admin(
        Path::new(BIN),
        &data,
        &["org", "create", "acme", "--feature", "mcp_external_servers"],
    );
    let base = gw.base().to_string();
    let api = format!("{base}/api");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let token = |aud: &str, claims: Value| {
        let mut base = json!({"iss": provider.issuer, "sub": "ivan", "aud": aud,
            "exp": now + 600, "scope": "api:read", "org": "acme", "groups": ["mcp-admins"]});
        for (k, v) in claims.as_object().unwrap() {
            base[k] = v.clone();
        }
        provider.sign(json!({"typ": "at+jwt"}), base, None)
    };

    let admin = token(&api, json!({})).await;
    let (status, me) = kit::rest("GET", &format!("{api}/me"), &admin, None).await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["org"], "acme");
    assert_eq!(me["roles"], json!(["integrations:manage"]));
    assert_eq!(me["token_id"], format!("oauth:{}#ivan", provider.issuer));
    // Its roles hold on the routes: a manager may read the org's policy.
    assert_eq!(
        kit::rest("GET", &format!("{api}/policy"), &admin, None)
            .await
            .0,
        200
    );

    // Refused: a token of the MCP endpoint's audience, one without the API scope, one of
    // no org, one whose roles map to nothing.
    let (status, body) = kit::rest(
        "GET",
        &format!("{api}/me"),
        &token(&gw.url, json!({})).await,
        None,
    )
    .await;
    assert_eq!(status, 401, "{body}");
    assert!(body.to_string().contains("audience"), "{body}");
    let unscoped = token(&api, json!({"scope": "openid"})).await;
    assert_eq!(
        kit::rest("GET", &format!("{api}/me"), &unscoped, None)
            .await
            .0,
        403
    );
    let orgless = token(&api, json!({"org": null})).await;
    let (status, body) = kit::rest("GET", &format!("{api}/me"), &orgless, None).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.to_string().contains("claims.org"), "{body}");
    let user = token(&api, json!({"groups": ["mcp-users"]})).await;
    assert_eq!(
        kit::rest("GET", &format!("{api}/policy"), &user, None)
            .await
            .0,
        403
    );
}
