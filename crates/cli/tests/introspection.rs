//! Opaque access tokens checked by introspection (RFC 7662) at a real OpenID provider
//! (tests/fixtures/oidc_provider.mjs with opaque tokens): the official Python SDK client signs
//! in and calls with one; revoked, audience-less and foreign tokens are refused and counted.

use serde_json::Value;
use std::path::Path;
use switchboard_testkit as kit;
use switchboard_testkit::oidc::Provider;

/// A switchboard.toml trusting `issuer`, whose opaque tokens the client `gateway` introspects
/// (answers kept `cache_secs`), and the relay fixture as server `relay`.
fn config(dir: &Path, issuer: &str, cache_secs: u64) -> std::path::PathBuf {
    let settings = format!(
        r#"[gateway]
anonymous_loopback = false
token = "static-secret"

[limits]
failed_auth_per_minute = 1000

[[identity.issuers]]
issuer = "{issuer}"
scopes = {{ mcp = ["mcp:tools"] }}
introspection = {{ client_id = "gateway", client_secret = "{{env:TEST_INTROSPECTION_SECRET}}" }}
introspection_cache_secs = {cache_secs}
"#
    );
    kit::relay_toml(dir, &settings)
}

async fn gateway(dir: &Path, config: &Path) -> kit::Gateway {
    let mut gw = kit::Gateway::start_with_env(
        Path::new(env!("CARGO_BIN_EXE_switchboard")),
        &["--dev"],
        dir,
        config,
        &[("TEST_INTROSPECTION_SECRET", "gateway-secret")],
    )
    .await;
    gw.ignore_log();
    gw
}

fn looks_like_jwt(token: &str) -> bool {
    token.matches('.').count() == 2
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_calls_with_an_opaque_token() {
    let provider = Provider::start_opaque().await;
    let dir = tempfile::tempdir().unwrap();
    let path = config(dir.path(), &provider.issuer, 60);
    let gw = gateway(dir.path(), &path).await;
    let out: Value = kit::run_client(
        "oauth_probe.py",
        &[&gw.url, "erin", "relay__end_user", "{}"],
    )
    .await;
    assert!(
        !looks_like_jwt(out["access_token"].as_str().unwrap()),
        "the provider issued a JWT: {out}"
    );
    assert_eq!(out["call"]["text"], "erin", "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn revoked_audienceless_and_foreign_opaque_tokens_are_refused() {
    let provider = Provider::start_opaque().await;
    let dir = tempfile::tempdir().unwrap();
    // Answers are not kept: a revocation shows on the next request.
    let path = config(dir.path(), &provider.issuer, 0);
    let gw = gateway(dir.path(), &path).await;

    let token = provider.machine_token(Some(&gw.url)).await;
    assert!(!looks_like_jwt(&token), "{token}");
    assert_eq!(kit::initialize_with(&gw.url, Some(&token)).await.0, 200);
    provider.revoke(&token).await;
    let (status, challenge) = kit::initialize_with(&gw.url, Some(&token)).await;
    assert_eq!(status, 401);
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(challenge.contains("not active"), "{challenge}");

    // A token bound to no resource, and one bound to another resource.
    let unbound = provider.machine_token(None).await;
    let (status, challenge) = kit::initialize_with(&gw.url, Some(&unbound)).await;
    assert_eq!(status, 401);
    assert!(challenge.contains("names no aud"), "{challenge}");
    let foreign = provider
        .machine_token(Some("http://127.0.0.1:9/elsewhere"))
        .await;
    let (status, challenge) = kit::initialize_with(&gw.url, Some(&foreign)).await;
    assert_eq!(status, 401);
    assert!(challenge.contains("elsewhere"), "{challenge}");

    // A made-up opaque token is inactive; the static token still passes.
    let (status, _) = kit::initialize_with(&gw.url, Some("not-a-token-the-provider-issued")).await;
    assert_eq!(status, 401);
    assert_eq!(
        kit::initialize_with(&gw.url, Some("static-secret")).await.0,
        200
    );
    for (reason, at_least) in [("inactive", 2.0), ("audience", 2.0)] {
        let line = format!("switchboard_access_token_refusals_total{{reason=\"{reason}\"}}");
        let count = kit::metric(gw.base(), Some("static-secret"), &line).await;
        assert!(count >= at_least, "{reason}: {count}");
    }
}
