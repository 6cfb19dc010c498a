//! OAuth upstreams against a real authorization server on loopback (the `oauth-server`
//! fixture): client credentials exchanged again after a 401 and before expiry; given tokens
//! refreshed after a 401 and before expiry; a refused refresh leaves the server asking for new
//! credentials; the authorization code flow (registration, PKCE) ends in `ready`, and a new
//! registry (a restart) reuses the tokens kept in a 0600 file, refreshing them with the kept
//! client registration.

use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use switchboard_config::load_with_env;
use switchboard_core::{ErrorKind, ServerStatus};
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;
use switchboard_testkit::oauth_fixture::AuthServer;
use switchboard_upstream::auth::{FileTokens, OAuthContext};

const FIXTURE: &str = env!("CARGO_BIN_EXE_oauth-server");

async fn auth_server(args: &[&str]) -> AuthServer {
    AuthServer::start(Path::new(FIXTURE), args).await
}

fn no_env(_: &str) -> Option<String> {
    None
}

async fn registry_with(servers: Value, oauth: OAuthContext) -> (Registry, tempfile::TempDir) {
    let (dir, path) = kit::write_mcp_json(servers);
    let config = load_with_env(&[path], &no_env).unwrap();
    let registry = Registry::new(RegistryOptions::default().with_dev(true).with_oauth(oauth));
    registry.apply_config(&config).await;
    (registry, dir)
}

async fn whoami(registry: &Registry, tool: &str) -> Result<String, switchboard_core::CallError> {
    registry
        .call_tool(tool, None, CallOptions::default())
        .await
        .map(|r| kit::text(&r))
}

#[tokio::test(flavor = "multi_thread")]
async fn client_credentials_are_exchanged_again_after_a_401_and_before_expiry() {
    let server = auth_server(&["--client", "cc:cc-secret"]).await;
    let auth = |secret: &str| {
        json!({"type": "http", "url": server.served.url, "auth": {
            "type": "clientCredentials", "tokenUrl": format!("{}/token", server.base),
            "clientId": "cc", "clientSecret": secret, "scopes": ["read"]}})
    };
    let (registry, _dir) = registry_with(
        json!({"cc": auth("cc-secret"), "wrong": auth("not-the-secret")}),
        OAuthContext::in_memory(),
    )
    .await;
    assert_eq!(
        whoami(&registry, "cc__whoami").await.unwrap(),
        "scope: read"
    );
    let exchanged = server.stats("client_credentials").await;
    // One token serves every request until it is refused.
    whoami(&registry, "cc__whoami").await.unwrap();
    assert_eq!(server.stats("client_credentials").await, exchanged);
    server.admin("revoke-access").await;
    assert_eq!(
        whoami(&registry, "cc__whoami").await.unwrap(),
        "scope: read"
    );
    assert_eq!(server.stats("client_credentials").await, exchanged + 1);

    // A refused client: the server says why and calls fail at once as auth_unavailable.
    let wrong = registry
        .servers()
        .into_iter()
        .find(|s| s.name == "wrong")
        .unwrap();
    assert_eq!(wrong.status, ServerStatus::Error, "{wrong:?}");
    assert!(
        wrong
            .last_error
            .as_deref()
            .unwrap()
            .contains("invalid_client"),
        "{wrong:?}"
    );
    registry.shutdown().await;

    // Tokens that live less than the renewal margin are exchanged again before each use,
    // without waiting for a refusal.
    let short = auth_server(&["--client", "cc:cc-secret", "--lifetime", "30"]).await;
    let (registry, _dir) = registry_with(
        json!({"cc": {"type": "http", "url": short.served.url, "auth": {
            "type": "clientCredentials", "tokenUrl": format!("{}/token", short.base),
            "clientId": "cc", "clientSecret": "cc-secret"}}}),
        OAuthContext::in_memory(),
    )
    .await;
    let before = short.stats("client_credentials").await;
    whoami(&registry, "cc__whoami").await.unwrap();
    whoami(&registry, "cc__whoami").await.unwrap();
    assert!(
        short.stats("client_credentials").await >= before + 2,
        "a fresh token for each call"
    );
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn given_tokens_are_refreshed_and_a_refused_refresh_asks_for_new_credentials() {
    let server = auth_server(&["--lifetime", "20"]).await;
    let issued = server.admin("issue").await;
    let (registry, _dir) = registry_with(
        json!({"given": {"type": "http", "url": server.served.url, "auth": {
            "type": "oauth2", "accessToken": issued["access_token"], "refreshToken": issued["refresh_token"],
            "tokenUrl": format!("{}/token", server.base)}}}),
        OAuthContext::in_memory(),
    )
    .await;
    assert_eq!(
        whoami(&registry, "given__whoami").await.unwrap(),
        "scope: read"
    );
    assert_eq!(
        server.stats("refresh_token").await,
        0,
        "the given token works"
    );
    // Refused: refreshed once, the call retried once.
    server.admin("revoke-access").await;
    assert_eq!(
        whoami(&registry, "given__whoami").await.unwrap(),
        "scope: read"
    );
    assert_eq!(server.stats("refresh_token").await, 1);
    // The refreshed token says it expires in 20 s, inside the 30 s margin: the next request
    // refreshes it first, with no refusal.
    whoami(&registry, "given__whoami").await.unwrap();
    assert!(server.stats("refresh_token").await >= 2);

    // No refresh possible: the call fails as auth_unavailable and the server says what to do.
    server.admin("revoke-refresh").await;
    server.admin("revoke-access").await;
    let refused = whoami(&registry, "given__whoami").await.unwrap_err();
    assert_eq!(refused.kind, ErrorKind::AuthUnavailable, "{refused:?}");
    let info = registry.servers().remove(0);
    assert_eq!(info.status, ServerStatus::Error, "{info:?}");
    assert!(
        info.last_error
            .as_deref()
            .unwrap()
            .contains("give the server new credentials"),
        "{info:?}"
    );
    // Calls now fail fast instead of trying the dead token again.
    let again = whoami(&registry, "given__whoami").await.unwrap_err();
    assert_eq!(again.kind, ErrorKind::AuthUnavailable, "{again:?}");
    registry.shutdown().await;
}

/// Plays the person's browser: opens the authorize URL and returns (code, state) from the
/// redirect the authorization server answers with.
async fn approve(authorize_url: &str) -> (String, String) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = client.get(authorize_url).send().await.unwrap();
    assert_eq!(response.status(), 303, "the fixture approves at once");
    let location = url::Url::parse(response.headers()["location"].to_str().unwrap()).unwrap();
    let param = |name: &str| {
        location
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
            .unwrap()
    };
    (param("code"), param("state"))
}

#[tokio::test(flavor = "multi_thread")]
async fn authorization_code_flow_then_a_restart_reuses_the_kept_tokens() {
    let server = auth_server(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tokens.json");
    let oauth = || OAuthContext::new(Arc::new(FileTokens::new(&file)), "http://127.0.0.1:9");
    let servers = json!({"fx": {"type": "http", "url": server.served.url,
        "auth": {"type": "authorizationCode", "scopes": ["read"]}}});

    let ctx = oauth();
    let (registry, _config) = registry_with(servers.clone(), ctx.clone()).await;
    let info = registry.servers().remove(0);
    assert_eq!(info.status, ServerStatus::Authenticating, "{info:?}");
    let url = info.authorize_url.clone().unwrap();
    assert!(
        url.contains("code_challenge_method=S256")
            && url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Foauth%2Fcallback%2Ffx"),
        "{url}"
    );
    // Calls fail at once and say what an operator does; the URL itself is not given to
    // callers (whoever opens it links their account to the server).
    let waiting = whoami(&registry, "fx__whoami").await.unwrap_err();
    assert_eq!(waiting.kind, ErrorKind::AuthUnavailable);
    assert!(
        waiting.message.contains("switchboard auth login fx") && !waiting.message.contains(&url),
        "{waiting:?}"
    );

    let (code, state) = approve(&url).await;
    // A made-up state is refused; the real one works once.
    assert!(
        registry
            .complete_authorization("forged", &code, None)
            .await
            .is_err()
    );
    let done = registry
        .complete_authorization(&state, &code, None)
        .await
        .unwrap();
    assert_eq!(done.server, "fx");
    assert!(
        registry
            .complete_authorization(&state, &code, None)
            .await
            .is_err()
    );
    let info = registry.refresh("fx").await.unwrap();
    assert_eq!(info.status, ServerStatus::Ready, "{info:?}");
    assert_eq!(
        whoami(&registry, "fx__whoami").await.unwrap(),
        "scope: read"
    );

    // A tool needing more scope: that call fails, the server stays ready for the others, and
    // a new authorization asks for the scope the refusal named plus what was granted.
    let more = whoami(&registry, "fx__write").await.unwrap_err();
    assert_eq!(more.kind, ErrorKind::AuthUnavailable, "{more:?}");
    assert!(more.message.contains("needs more scope"), "{more:?}");
    let info = registry.servers().remove(0);
    assert_eq!(info.status, ServerStatus::Ready, "{info:?}");
    let wider = info.authorize_url.clone().unwrap();
    assert!(wider.contains("scope=read+write"), "{wider}");
    assert_eq!(
        whoami(&registry, "fx__whoami").await.unwrap(),
        "scope: read"
    );
    let (code, state) = approve(&wider).await;
    registry
        .complete_authorization(&state, &code, None)
        .await
        .unwrap();
    registry.refresh("fx").await.unwrap();
    assert_eq!(
        whoami(&registry, "fx__write").await.unwrap(),
        "scope: read write"
    );
    registry.shutdown().await;

    // The tokens are in a file only its owner can read.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // A restart: a new registry over the same file is ready without anyone authorizing.
    let (registry, _config) = registry_with(servers.clone(), oauth()).await;
    let info = registry.servers().remove(0);
    assert_eq!(info.status, ServerStatus::Ready, "{info:?}");
    assert_eq!(
        whoami(&registry, "fx__whoami").await.unwrap(),
        "scope: read write"
    );
    // Refused tokens are refreshed with the client registered before the restart (its
    // secret was kept), without registering again.
    server.admin("revoke-access").await;
    assert_eq!(
        whoami(&registry, "fx__whoami").await.unwrap(),
        "scope: read write"
    );
    assert_eq!(server.stats("authorization_code").await, 2);
    assert_eq!(server.stats("refresh_token").await, 1);
    registry.shutdown().await;

    // Tokens belong to their issuer: kept ones from another authorization server are not sent.
    let mut kept: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    // The authorization server is kept with the tokens: connects need no discovery.
    assert_eq!(
        kept["config:fx"]["authorization_server"]["token_endpoint"],
        json!(format!("{}/token", server.base))
    );
    kept["config:fx"]["credentials"]["issuer"] = json!("http://127.0.0.1:1");
    std::fs::write(&file, kept.to_string()).unwrap();
    let (registry, _config) = registry_with(servers, oauth()).await;
    let info = registry.servers().remove(0);
    assert_eq!(info.status, ServerStatus::Authenticating, "{info:?}");
    registry.shutdown().await;

    // And to their URL: the same server entry pointed at another URL gets none of them.
    kept["config:fx"]["credentials"]["issuer"] = json!(server.base);
    std::fs::write(&file, kept.to_string()).unwrap();
    let moved = server.served.url.replace("127.0.0.1", "localhost");
    let (registry, _config) = registry_with(
        json!({"fx": {"type": "http", "url": moved, "auth": {"type": "authorizationCode"}}}),
        oauth(),
    )
    .await;
    // (The kept token is valid there; the server saw none.)
    let info = registry.servers().remove(0);
    assert_ne!(info.status, ServerStatus::Ready, "{info:?}");
    assert!(
        info.last_error
            .as_deref()
            .unwrap()
            .contains("without a valid access token"),
        "{info:?}"
    );
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_authorization_is_shown_and_the_next_call_starts_a_new_one() {
    let server = auth_server(&[]).await;
    let (registry, _config) = registry_with(
        json!({"fx": {"type": "http", "url": server.served.url, "auth": {"type": "authorizationCode"}}}),
        OAuthContext::in_memory(),
    )
    .await;
    let first = registry.servers().remove(0).authorize_url.unwrap();
    let state = url::Url::parse(&first)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    // A callback for some other link changes nothing.
    registry.authorization_failed(
        "fx",
        "made-up",
        "the authorization server answered access_denied",
    );
    assert_eq!(registry.servers()[0].status, ServerStatus::Authenticating);
    // The person said no (the callback carried `error=access_denied`).
    registry.authorization_failed(
        "fx",
        &state,
        "the authorization server answered access_denied",
    );
    let info = registry.servers().remove(0);
    assert_eq!(info.status, ServerStatus::Error, "{info:?}");
    assert!(
        info.last_error
            .as_deref()
            .unwrap()
            .contains("access_denied"),
        "{info:?}"
    );
    // A refresh (or reauthorize) asks again, with a new link.
    let info = registry.refresh("fx").await.unwrap();
    assert_eq!(info.status, ServerStatus::Authenticating, "{info:?}");
    assert_ne!(info.authorize_url.unwrap(), first);
    registry.shutdown().await;
}
