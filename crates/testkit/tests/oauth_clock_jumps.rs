//! A clock jump (issue 15) and token expiry, which runs on wall time: the wall clock jumping
//! past a token's lifetime (a suspend, an NTP step) renews the token before it is sent, with no
//! refusal needed; the wall clock set back hours neither breaks calls nor renews tokens on
//! every call; a refusal still renews. Both kinds of token: client credentials (kept in the
//! connection) and refreshed tokens (kept in the store). Against the `oauth-server` fixture,
//! whose tokens live an hour.

use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use switchboard_config::load_with_env;
use switchboard_core::{JumpableClock, SharedClock};
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;
use switchboard_testkit::oauth_fixture::AuthServer;
use switchboard_upstream::auth::OAuthContext;

const FIXTURE: &str = env!("CARGO_BIN_EXE_oauth-server");
const HOURS_2: Duration = Duration::from_secs(2 * 3_600);

async fn registry_on(servers: Value, clock: &Arc<JumpableClock>) -> (Registry, tempfile::TempDir) {
    let (dir, path) = kit::write_mcp_json(servers);
    let config = load_with_env(&[path], &|_| None).unwrap();
    let options = RegistryOptions::default()
        .with_dev(true)
        .with_oauth(OAuthContext::in_memory())
        .with_clock(SharedClock::new(clock.clone()));
    let registry = Registry::new(options);
    registry.apply_config(&config).await;
    (registry, dir)
}

async fn whoami(registry: &Registry, tool: &str) -> String {
    let result = registry.call_tool(tool, None, CallOptions::default()).await;
    kit::text(&result.unwrap_or_else(|e| panic!("{tool}: {e}")))
}

#[tokio::test(flavor = "multi_thread")]
async fn client_credentials_follow_the_wall_clock_across_jumps() {
    let server = AuthServer::start(Path::new(FIXTURE), &["--client", "cc:cc-secret"]).await;
    let clock = Arc::new(JumpableClock::default());
    let entry = json!({"type": "http", "url": server.served.url, "auth": {
        "type": "clientCredentials", "tokenUrl": format!("{}/token", server.base),
        "clientId": "cc", "clientSecret": "cc-secret"}});
    let (registry, _dir) = registry_on(json!({ "cc": entry }), &clock).await;
    whoami(&registry, "cc__whoami").await;
    let exchanged = server.stats("client_credentials").await;
    whoami(&registry, "cc__whoami").await;
    assert_eq!(server.stats("client_credentials").await, exchanged);

    // Two hours pass on the wall clock only (the machine slept): the hour-long token is
    // exchanged again before it is sent, though the server would still take it.
    clock.jump_wall(HOURS_2, true);
    whoami(&registry, "cc__whoami").await;
    assert_eq!(server.stats("client_credentials").await, exchanged + 1);

    // Four hours back: the new token serves on, without an exchange per call.
    clock.jump_wall(2 * HOURS_2, false);
    for _ in 0..3 {
        whoami(&registry, "cc__whoami").await;
    }
    assert_eq!(server.stats("client_credentials").await, exchanged + 1);
    // And a refusal still gets a new one.
    server.admin("revoke-access").await;
    whoami(&registry, "cc__whoami").await;
    assert_eq!(server.stats("client_credentials").await, exchanged + 2);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn stored_tokens_are_refreshed_by_the_wall_clock_across_jumps() {
    let server = AuthServer::start(Path::new(FIXTURE), &[]).await;
    let issued = server.admin("issue").await;
    let clock = Arc::new(JumpableClock::default());
    let entry = json!({"type": "http", "url": server.served.url, "auth": {
        "type": "oauth2", "accessToken": issued["access_token"],
        "refreshToken": issued["refresh_token"], "tokenUrl": format!("{}/token", server.base)}});
    let (registry, _dir) = registry_on(json!({ "given": entry }), &clock).await;
    // Given tokens say nothing of their lifetime; the first refresh (after a refusal) brings
    // tokens that live an hour, stamped with the gateway's clock.
    server.admin("revoke-access").await;
    whoami(&registry, "given__whoami").await;
    assert_eq!(server.stats("refresh_token").await, 1);
    whoami(&registry, "given__whoami").await;
    assert_eq!(
        server.stats("refresh_token").await,
        1,
        "a fresh token is kept"
    );

    clock.jump_wall(HOURS_2, true);
    whoami(&registry, "given__whoami").await;
    assert_eq!(
        server.stats("refresh_token").await,
        2,
        "refreshed before use after the jump"
    );

    clock.jump_wall(2 * HOURS_2, false);
    for _ in 0..3 {
        whoami(&registry, "given__whoami").await;
    }
    assert_eq!(
        server.stats("refresh_token").await,
        2,
        "no refresh per call with the clock set back"
    );
    server.admin("revoke-access").await;
    whoami(&registry, "given__whoami").await;
    assert_eq!(server.stats("refresh_token").await, 3);
    registry.shutdown().await;
}
