//! The gateway as an OAuth 2.1 protected resource, against a real OpenID provider
//! (tests/fixtures/oidc_provider.mjs: oidc-provider from npm): the official Python and
//! TypeScript SDK clients discover the metadata, register, sign in with PKCE and call tools
//! as the token's end user; every kind of bad token is refused with its challenge.

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use switchboard_store::{AuditFilter, SqlStore, Store};
use switchboard_testkit as kit;
use switchboard_testkit::oidc::Provider;

/// A switchboard.toml trusting `issuer`, the relay fixture as server `relay`, and a rule that
/// refuses `pid` to the end user bob.
fn config(dir: &Path, issuer: &str, gateway: &str, extra: &str) -> std::path::PathBuf {
    let settings = format!(
        r#"[gateway]
anonymous_loopback = false
{gateway}

[[identity.issuers]]
issuer = "{issuer}"
scopes = {{ mcp = ["mcp:tools"] }}
[identity.issuers.claims]
org = "org"
agent = "azp"
roles = {{ claim = "groups", map = {{ "mcp-admins" = "integrations:manage", "mcp-users" = "integrations:view" }} }}

[[policy.rules]]
name = "not-for-bob"
actions = ["mcp.relay.pid"]
end_users = ["bob"]
effect = "deny"
reason = "bob may not see process ids"
{extra}
"#
    );
    kit::relay_toml(dir, &settings)
}

async fn gateway(dir: &Path, config: &Path) -> kit::Gateway {
    let mut gw = kit::Gateway::start(
        Path::new(env!("CARGO_BIN_EXE_switchboard")),
        &["--dev"],
        dir,
        config,
        1,
    )
    .await;
    gw.ignore_log();
    gw
}

/// The audit rows of `action`, once `n` are there (rows are written after the answer).
async fn audit(dir: &Path, action: &str, n: usize) -> Vec<switchboard_store::AuditRow> {
    let store = SqlStore::open_sqlite(&dir.join("data")).await.unwrap();
    let filter = AuditFilter {
        action_id: Some(action.into()),
        ..Default::default()
    };
    for _ in 0..500 {
        let rows = store.audit(&filter).await.unwrap();
        if rows.len() >= n {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("fewer than {n} audit rows of {action}");
}

async fn python_probe(url: &str, login: &str, tool: &str, meta: Option<Value>) -> Value {
    let mut args = vec![url.to_string(), login.into(), tool.into(), "{}".into()];
    if let Some(meta) = meta {
        args.push(meta.to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    kit::run_client("oauth_probe.py", &args).await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_signs_in_and_calls_as_the_tokens_end_user() {
    let provider = Provider::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = config(dir.path(), &provider.issuer, "", "");
    let gw = gateway(dir.path(), &path).await;

    // Discovery, registration, PKCE and the call, all by the SDK; the end user is the
    // token's `sub`, with no `_meta` from the client.
    let alice = python_probe(&gw.url, "alice", "relay__end_user", None).await;
    assert!(alice["tools"].as_array().unwrap().len() > 5, "{alice}");
    assert_eq!(alice["call"]["text"], "alice", "{alice}");
    let rows = audit(dir.path(), "mcp.relay.end_user", 1).await;
    assert_eq!(rows[0].entry.end_user_id.as_deref(), Some("alice"));
    let detail = rows[0].entry.detail.clone().unwrap_or_default();
    assert!(detail.contains("end_user_source=token"), "{detail}");
    assert!(
        detail.contains(&format!("subject={}#alice", provider.issuer)),
        "{detail}"
    );

    // A rule matching the end user applies to the token's end user.
    let bob = python_probe(&gw.url, "bob", "relay__pid", None).await;
    assert_eq!(bob["call"]["is_error"], true, "{bob}");
    assert!(
        bob["call"]["text"]
            .as_str()
            .unwrap()
            .contains("bob may not see"),
        "{bob}"
    );
    let alice = python_probe(&gw.url, "alice", "relay__pid", None).await;
    assert_eq!(alice["call"]["is_error"], false, "{alice}");

    // An end user asserted against the token's is refused, naming both.
    let meta = json!({"bound_end_user_id": "mallory"});
    let forged = python_probe(&gw.url, "alice", "relay__end_user", Some(meta)).await;
    let text = forged["call"]["text"].as_str().unwrap();
    assert_eq!(forged["call"]["is_error"], true, "{forged}");
    assert!(text.contains("mallory") && text.contains("alice"), "{text}");
    let rows = audit(dir.path(), "mcp.relay.end_user", 2).await;
    assert!(rows.iter().any(|r| r.entry.verdict == "denied"), "{rows:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_sdk_signs_in_and_calls_as_the_tokens_end_user() {
    let provider = Provider::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = config(dir.path(), &provider.issuer, "", "");
    let gw = gateway(dir.path(), &path).await;
    let out = kit::run_node_client(
        "oauth_probe.mjs",
        &[gw.url.as_str(), "carol", "relay__end_user"],
    )
    .await;
    assert_eq!(out["call"]["text"], "carol", "{out}");
    assert!(out["tools"].as_array().unwrap().len() > 5, "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_tokens_are_refused_with_the_right_challenge() {
    let provider = Provider::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        &provider.issuer,
        "token = \"static-secret\"",
        "[limits]\nfailed_auth_per_minute = 1000",
    );
    let gw = gateway(dir.path(), &path).await;
    let resource = gw.url.clone();
    let metadata = format!(
        "resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        gw.base()
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let good = json!({"iss": provider.issuer, "sub": "dave", "aud": resource,
        "exp": now + 600, "iat": now, "scope": "mcp:tools", "groups": ["mcp-users"]});
    let with = |changes: Value| {
        let mut claims = good.clone();
        for (k, v) in changes.as_object().unwrap() {
            match v {
                Value::Null => claims.as_object_mut().unwrap().remove(k),
                v => claims.as_object_mut().unwrap().insert(k.clone(), v.clone()),
            };
        }
        claims
    };
    let at = json!({"typ": "at+jwt"});

    // The metadata names the resource and the issuer.
    let prm: Value = reqwest::get(format!(
        "{}/.well-known/oauth-protected-resource/mcp",
        gw.base()
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(prm["resource"], resource);
    assert_eq!(prm["authorization_servers"], json!([provider.issuer]));

    // A good token passes; so does the static token beside it.
    let token = provider.sign(at.clone(), good.clone(), None).await;
    assert_eq!(kit::initialize_with(&gw.url, Some(&token)).await.0, 200);
    assert_eq!(
        kit::initialize_with(&gw.url, Some("static-secret")).await.0,
        200
    );
    let other = provider
        .sign(at.clone(), with(json!({"sub": "eve"})), None)
        .await;

    // No token at all: 401 naming the metadata (anonymous_loopback = false).
    let (status, challenge) = kit::initialize_with(&gw.url, None).await;
    assert_eq!(status, 401);
    assert!(challenge.contains(&metadata), "{challenge}");

    let cases: Vec<(&str, String, u16, &str)> = vec![
        (
            "expired",
            provider
                .sign(at.clone(), with(json!({"exp": now - 3600})), None)
                .await,
            401,
            "invalid_token",
        ),
        (
            "another audience",
            provider
                .sign(
                    at.clone(),
                    with(json!({"aud": "https://elsewhere.example/mcp"})),
                    None,
                )
                .await,
            401,
            "invalid_token",
        ),
        (
            "an ID token",
            provider
                .sign(
                    json!({"typ": "JWT"}),
                    with(json!({"nonce": "n-1", "aud": "client-1"})),
                    None,
                )
                .await,
            401,
            "invalid_token",
        ),
        (
            "an ID token for the resource",
            provider
                .sign(json!({"typ": "JWT"}), with(json!({"nonce": "n-1"})), None)
                .await,
            401,
            "invalid_token",
        ),
        (
            "an unknown issuer",
            provider
                .sign(
                    at.clone(),
                    with(json!({"iss": "https://evil.example"})),
                    None,
                )
                .await,
            401,
            "invalid_token",
        ),
        (
            "HMAC",
            provider.sign(at.clone(), good.clone(), Some("guess")).await,
            401,
            "invalid_token",
        ),
        (
            "an unknown key",
            provider
                .sign(json!({"typ": "at+jwt", "kid": "k9"}), good.clone(), None)
                .await,
            401,
            "invalid_token",
        ),
        (
            "not yet valid",
            provider
                .sign(at.clone(), with(json!({"nbf": now + 3600})), None)
                .await,
            401,
            "invalid_token",
        ),
        (
            "issued in the future",
            provider
                .sign(at.clone(), with(json!({"iat": now + 3600})), None)
                .await,
            401,
            "invalid_token",
        ),
        (
            "no scope",
            provider
                .sign(at.clone(), with(json!({"scope": null})), None)
                .await,
            403,
            "insufficient_scope",
        ),
        (
            "no role",
            provider
                .sign(at.clone(), with(json!({"groups": ["nobody"]})), None)
                .await,
            403,
            "insufficient_scope",
        ),
        (
            "an org that does not exist",
            provider
                .sign(at.clone(), with(json!({"org": "nowhere"})), None)
                .await,
            403,
            "insufficient_scope",
        ),
        (
            "a wrong signature",
            format!(
                "{}.{}",
                &token[..token.rfind('.').unwrap()],
                other.rsplit('.').next().unwrap()
            ),
            401,
            "invalid_token",
        ),
        (
            "a made-up JWT",
            "eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.abcdefghij".into(),
            401,
            "invalid_token",
        ),
        ("a wrong static token", "static-secreT".into(), 401, ""),
        (
            "a huge token",
            format!("{}.{}.x", "a".repeat(9000), "b".repeat(9000)),
            401,
            "invalid_token",
        ),
    ];
    for (what, token, status, error) in cases {
        let (got, challenge) = kit::initialize_with(&gw.url, Some(&token)).await;
        assert_eq!(got, status, "{what}: {challenge}");
        assert!(
            challenge.contains(&format!("error=\"{error}\"")) || error.is_empty(),
            "{what}: {challenge}"
        );
        assert!(challenge.contains(&metadata), "{what}: {challenge}");
    }
    // A missing scope names the scope to ask for (step-up).
    let unscoped = provider
        .sign(at.clone(), with(json!({"scope": null})), None)
        .await;
    let (_, challenge) = kit::initialize_with(&gw.url, Some(&unscoped)).await;
    assert!(challenge.contains("scope=\"mcp:tools\""), "{challenge}");

    // Each refusal is counted by reason.
    for reason in [
        "expired",
        "audience",
        "not_access_token",
        "unknown_issuer",
        "algorithm",
        "unknown_key",
        "insufficient_scope",
        "signature",
        "too_large",
    ] {
        let line = format!("switchboard_access_token_refusals_total{{reason=\"{reason}\"}}");
        let count = kit::metric(gw.base(), Some("static-secret"), &line).await;
        assert!(count >= 1.0, "{reason}: {count}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_org_token_reaches_its_agent_endpoint_and_no_other() {
    let provider = Provider::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        &provider.issuer,
        "",
        "[limits]\nfailed_auth_per_minute = 1000",
    );
    let gw = gateway(dir.path(), &path).await;
    let data = dir.path().join("data");
    let binary = Path::new(env!("CARGO_BIN_EXE_switchboard"));
    kit::admin(
        binary,
        &data,
        &["org", "create", "acme", "--feature", "mcp_external_servers"],
    );
    let agent_url = format!("{}/agents/bot", gw.url);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let token = |aud: &str, claims: Value| {
        let mut base = json!({"iss": provider.issuer, "sub": "erin", "aud": aud,
            "exp": now + 600, "scope": "mcp:tools", "groups": ["mcp-users"]});
        for (k, v) in claims.as_object().unwrap() {
            base[k] = v.clone();
        }
        provider.sign(json!({"typ": "at+jwt"}), base, None)
    };

    // The agent's own metadata names its own resource.
    let prm: Value = reqwest::get(format!(
        "{}/.well-known/oauth-protected-resource/mcp/agents/bot",
        gw.base()
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(prm["resource"], agent_url);

    let bot = token(&agent_url, json!({"org": "acme", "azp": "bot"})).await;
    assert_eq!(kit::initialize_with(&agent_url, Some(&bot)).await.0, 200);
    // Mapped to agent bot: no other agent, and not /mcp (even with /mcp's audience).
    let other = format!("{}/agents/other", gw.url);
    let (status, challenge) = kit::initialize_with(&other, Some(&bot)).await;
    assert_eq!(status, 401, "the audience is bot's: {challenge}");
    let for_other = token(&other, json!({"org": "acme", "azp": "bot"})).await;
    let (status, challenge) = kit::initialize_with(&other, Some(&for_other)).await;
    assert_eq!(status, 403, "{challenge}");
    assert!(challenge.contains("insufficient_scope"), "{challenge}");
    let for_mcp = token(&gw.url, json!({"org": "acme", "azp": "bot"})).await;
    assert_eq!(kit::initialize_with(&gw.url, Some(&for_mcp)).await.0, 403);
    // A token of /mcp's audience is not one of the agent's.
    let org_only = token(&gw.url, json!({"org": "acme"})).await;
    assert_eq!(
        kit::initialize_with(&agent_url, Some(&org_only)).await.0,
        401
    );
    assert_eq!(kit::initialize_with(&gw.url, Some(&org_only)).await.0, 200);
    // An agent endpoint belongs to an org: a token naming none is refused there.
    let no_org = token(&agent_url, json!({})).await;
    assert_eq!(kit::initialize_with(&agent_url, Some(&no_org)).await.0, 403);
}

#[test]
fn config_check_names_bad_issuers_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switchboard.toml");
    let closed = kit::free_port();
    let check = |text: &str| {
        std::fs::write(&path, text).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["config", "check", "--json", "--dev", "-c"])
            .arg(&path)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.success(), report["problems"].clone())
    };
    let (ok, problems) = check(
        "[[identity.issuers]]\nissuer = \"https://idp.example.com\"\n[identity.issuers.claims]\nroles = { claim = \"groups\", map = { \"admins\" = \"gateway:admin\" } }\n",
    );
    assert!(!ok, "{problems}");
    assert_eq!(problems[0]["line"], 4, "{problems}");
    assert!(
        problems[0]["message"]
            .as_str()
            .unwrap()
            .contains("gateway:admin"),
        "{problems}"
    );
    let (ok, problems) = check("[[identity.issuers]]\nissuer = \"not a url\"\n");
    assert!(!ok, "{problems}");
    assert_eq!(problems[0]["line"], 2, "{problems}");
    // Unreachable (a closed loopback port): named, and the gateway would still start.
    let issuer = format!("http://127.0.0.1:{closed}/realms/x");
    let (ok, problems) = check(&format!("\n[[identity.issuers]]\nissuer = \"{issuer}\"\n"));
    assert!(ok, "{problems}");
    assert_eq!(problems[0]["line"], 3, "{problems}");
    assert_eq!(problems[0]["severity"], "warning", "{problems}");
    assert!(
        problems[0]["message"]
            .as_str()
            .unwrap()
            .contains("unreachable"),
        "{problems}"
    );
}
