//! Issuers an org configures over REST, trusted on its own endpoints `/orgs/{org}/mcp…` only
//! and mapping only into that org, against two real OpenID providers (oidc-provider): the
//! operator's, which takes the org from a claim, and the org's own.

use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;
use switchboard_testkit::oidc::Provider;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

async fn prm(base: &str, path: &str) -> (u16, Value) {
    let url = format!("{base}/.well-known/oauth-protected-resource{path}");
    let response = reqwest::get(url).await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A token of `provider` for `aud` with `claims` on top of an ordinary user's.
async fn token(provider: &Provider, aud: &str, claims: Value) -> String {
    let mut base = json!({"iss": provider.issuer, "sub": "grace", "aud": aud,
        "exp": now() + 600, "scope": "mcp:tools", "groups": ["mcp-users"]});
    for (k, v) in claims.as_object().unwrap() {
        base[k] = v.clone();
    }
    provider.sign(json!({"typ": "at+jwt"}), base, None).await
}

#[tokio::test(flavor = "multi_thread")]
async fn an_orgs_issuer_maps_into_that_org_on_its_own_endpoints_only() {
    let operator_idp = Provider::start().await;
    let org_idp = Provider::start().await;
    let dir = tempfile::tempdir().unwrap();
    let settings = format!(
        r#"[gateway]
anonymous_loopback = false

[limits]
failed_auth_per_minute = 1000

[[identity.issuers]]
issuer = "{}"
[identity.issuers.claims]
org = "org"
"#,
        operator_idp.issuer
    );
    let config = kit::relay_toml(dir.path(), &settings);
    let mut gw = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &config, 1).await;
    gw.ignore_log();
    let data = dir.path().join("data");
    for org in ["acme", "globex"] {
        kit::admin(
            Path::new(BIN),
            &data,
            &["org", "create", org, "--feature", "mcp_external_servers"],
        );
    }
    let acme_admin = kit::api_token(Path::new(BIN), &data, "acme", &["integrations:manage"]);
    let globex_admin = kit::api_token(Path::new(BIN), &data, "globex", &["integrations:manage"]);
    let base = gw.base().to_string();
    let issuers = format!("{base}/api/identity/issuers");
    let acme = format!("{base}/orgs/acme/mcp");
    let globex = format!("{base}/orgs/globex/mcp");

    // Before the org has an issuer: its endpoint names its metadata, which lists the
    // operator's issuer that takes the org from a claim.
    let (status, doc) = prm(&base, "/orgs/acme/mcp").await;
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["authorization_servers"], json!([operator_idp.issuer]));

    // What an org's issuer may not do is refused, naming it, and nothing is saved.
    let refused = [
        (
            json!({"issuer": org_idp.issuer, "claims": {"org": "org"}}),
            "claims.org",
        ),
        (
            json!({"issuer": org_idp.issuer, "claims": {"roles": {"claim": "groups",
                "map": {"mcp-users": "gateway:operate"}}}}),
            "gateway:operate",
        ),
        (
            json!({"issuer": org_idp.issuer, "claims": {"roles": {"claim": "groups",
                "map": {"mcp-users": "end_users:assert"}}}}),
            "end_users:assert",
        ),
        (json!({"issuer": "not a url"}), "https URL"),
    ];
    for (body, named) in refused {
        let (status, answer) = kit::rest("PUT", &issuers, &acme_admin, Some(body)).await;
        assert_eq!(status, 400, "{answer}");
        assert!(answer.to_string().contains(named), "{named}: {answer}");
    }
    let viewer = kit::api_token(Path::new(BIN), &data, "acme", &["integrations:view"]);
    let spec = json!({"issuer": org_idp.issuer, "scopes": {"mcp": ["mcp:tools"]},
        "claims": {"agent": "azp", "roles": {"claim": "groups",
            "map": {"mcp-users": "integrations:view"}}}});
    let (status, _) = kit::rest("PUT", &issuers, &viewer, Some(spec.clone())).await;
    assert_eq!(status, 403, "a viewer may not add issuers");
    let (status, answer) = kit::rest("PUT", &issuers, &acme_admin, Some(spec.clone())).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["reachable"], true, "{answer}");
    let (_, listed) = kit::rest("GET", &issuers, &acme_admin, None).await;
    assert_eq!(listed["issuers"][0]["issuer"], org_idp.issuer, "{listed}");
    assert_eq!(listed["endpoint"], "/orgs/acme/mcp");

    // Advertised on the org's endpoints, never on /mcp.
    let (_, doc) = prm(&base, "/orgs/acme/mcp").await;
    assert_eq!(doc["resource"], acme);
    assert_eq!(
        doc["authorization_servers"],
        json!([org_idp.issuer, operator_idp.issuer])
    );
    let (_, doc) = prm(&base, "/orgs/acme/mcp/agents/bot").await;
    assert_eq!(doc["resource"], format!("{acme}/agents/bot"));
    let (_, doc) = prm(&base, "/mcp").await;
    assert_eq!(doc["authorization_servers"], json!([operator_idp.issuer]));
    let (_, doc) = prm(&base, "/orgs/globex/mcp").await;
    assert_eq!(doc["authorization_servers"], json!([operator_idp.issuer]));
    assert_eq!(prm(&base, "/orgs/nobody/mcp").await.0, 404);

    // The org's issuer's tokens map into acme on acme's endpoints, whatever org they claim.
    let own = token(&org_idp, &acme, json!({"org": "globex"})).await;
    assert_eq!(kit::initialize_with(&acme, Some(&own)).await.0, 200);
    let on_globex = token(&org_idp, &globex, json!({})).await;
    let (status, challenge) = kit::initialize_with(&globex, Some(&on_globex)).await;
    assert_eq!(status, 401, "{challenge}");
    assert!(challenge.contains("not configured"), "{challenge}");
    let on_mcp = token(&org_idp, &gw.url, json!({})).await;
    assert_eq!(kit::initialize_with(&gw.url, Some(&on_mcp)).await.0, 401);
    // Its agent mapping chooses the agent within the org.
    let bot = format!("{acme}/agents/bot");
    let as_bot = token(&org_idp, &bot, json!({"azp": "bot"})).await;
    assert_eq!(kit::initialize_with(&bot, Some(&as_bot)).await.0, 200);
    let bot_on_org = token(&org_idp, &acme, json!({"azp": "bot"})).await;
    assert_eq!(kit::initialize_with(&acme, Some(&bot_on_org)).await.0, 403);

    // The operator's issuer takes the org from its claim: acme's token on acme's endpoint
    // only; static API tokens reach their own org's endpoint only.
    let operator_acme = token(&operator_idp, &acme, json!({"org": "acme"})).await;
    assert_eq!(
        kit::initialize_with(&acme, Some(&operator_acme)).await.0,
        200
    );
    let operator_globex = token(&operator_idp, &acme, json!({"org": "globex"})).await;
    assert_eq!(
        kit::initialize_with(&acme, Some(&operator_globex)).await.0,
        403
    );
    assert_eq!(kit::initialize_with(&acme, Some(&acme_admin)).await.0, 200);
    assert_eq!(
        kit::initialize_with(&acme, Some(&globex_admin)).await.0,
        403
    );
    assert_eq!(
        kit::initialize_with(&globex, Some(&globex_admin)).await.0,
        200
    );

    // The official Python SDK signs in at the org's provider through acme's endpoint's
    // metadata and calls as the token's end user.
    let out = kit::run_client("oauth_probe.py", &[&acme, "frank", "relay__end_user", "{}"]).await;
    assert_eq!(out["call"]["text"], "frank", "{out}");

    // Removed: its tokens are refused at once, and the org's metadata no longer names it.
    let remove = reqwest::Url::parse_with_params(&issuers, [("issuer", &org_idp.issuer)])
        .unwrap()
        .to_string();
    assert_eq!(kit::rest("DELETE", &remove, &acme_admin, None).await.0, 204);
    assert_eq!(kit::rest("DELETE", &remove, &acme_admin, None).await.0, 404);
    assert_eq!(kit::initialize_with(&acme, Some(&own)).await.0, 401);
    let (_, doc) = prm(&base, "/orgs/acme/mcp").await;
    assert_eq!(doc["authorization_servers"], json!([operator_idp.issuer]));

    // Each change is in the org's audit log, under the token that made it.
    for action in ["identity.issuer.put", "identity.issuer.delete"] {
        let rows = audit_rows(&base, &acme_admin, action).await;
        let detail = rows[0]["detail"].as_str().unwrap_or_default().to_string();
        assert!(detail.contains(&org_idp.issuer), "{action}: {detail}");
    }
}

/// The org's audit rows of `action`, once there is one (rows are written after the answer).
async fn audit_rows(base: &str, token: &str, action: &str) -> Vec<Value> {
    let url = format!("{base}/api/audit?action_id={action}");
    for _ in 0..500 {
        let (_, body) = kit::rest("GET", &url, token, None).await;
        let rows = body["rows"].as_array().cloned().unwrap_or_default();
        if !rows.is_empty() {
            return rows;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("no audit row of {action}");
}
