//! OAuth through the gateway's own surfaces: an org connects a server with
//! `auth_method: authorizationCode` over REST, the answer carries the authorize URL, the
//! browser comes back to `/oauth/callback/{id}`, the server becomes ready; its tokens are
//! sealed in the store, so a restarted gateway connects without asking anyone; `reauthorize`
//! starts a new flow.

use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use switchboard_registry::{Registry, RegistryOptions};
use switchboard_server::ControlPlane;
use switchboard_server::{HttpOptions, SealedTokens, serve_http};
use switchboard_store::{AuditWriter, Chain, Sealer, SqlStore, Store, new_api_token};
use switchboard_testkit as kit;
use switchboard_upstream::auth::OAuthContext;
use tokio_util::sync::CancellationToken;

const FIXTURE: &str = env!("CARGO_BIN_EXE_oauth-server");

struct Gateway {
    base: String,
    registry: Registry,
    shutdown: CancellationToken,
    state: ControlPlane,
}

/// A gateway over `store` (as `serve` builds it), listening on loopback.
async fn gateway(store: Arc<SqlStore>, sealer: Arc<Sealer>) -> Gateway {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let tokens = SealedTokens {
        store: store.clone(),
        sealer: sealer.clone(),
    };
    let registry = Registry::new(
        RegistryOptions::default()
            .with_dev(true)
            .with_oauth(OAuthContext::new(Arc::new(tokens), base.clone())),
    );
    let (audit, _task) = AuditWriter::start(store.clone(), Chain::new(sealer.audit_key()), 64);
    let state = ControlPlane::new(registry.clone(), store as Arc<dyn Store>, sealer, audit);
    let shutdown = CancellationToken::new();
    let options = HttpOptions::default()
        .with_shutdown(shutdown.clone())
        .with_control_plane(state.clone());
    tokio::spawn(serve_http(listener, registry.clone(), options));
    Gateway {
        base,
        registry,
        shutdown,
        state,
    }
}

async fn call(base: &str, method: &str, path: &str, token: &str, body: Option<Value>) -> Value {
    let mut request = reqwest::Client::new()
        .request(method.parse().unwrap(), format!("{base}{path}"))
        .bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap().json().await.unwrap()
}

/// The person's browser: the authorization server approves at once and sends it on to the
/// redirect URI, which this follows like a browser would; returns the page it ends on.
async fn browse(authorize_url: &str) -> (u16, String) {
    let response = reqwest::get(authorize_url).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn authorization_code_over_rest_and_the_callback_then_a_restart_keeps_the_tokens() {
    let upstream = kit::Served::start(Path::new(FIXTURE), &[]).await;
    let data = tempfile::tempdir().unwrap();
    let store = Arc::new(SqlStore::open_sqlite(data.path()).await.unwrap());
    let sealer = Arc::new(Sealer::from_keys(vec![[7u8; 32]]));
    let org = store
        .create_org("acme", &["mcp_external_servers".into()])
        .await
        .unwrap();
    let (token, hash) = new_api_token();
    store
        .create_token(&org.id, &["integrations:manage".into()], &hash)
        .await
        .unwrap();

    let gw = gateway(store.clone(), sealer.clone()).await;
    let servers = "/api/integrations/mcp/servers";
    let created = call(
        &gw.base,
        "POST",
        servers,
        &token,
        Some(
            json!({"name": "Protected", "slug": "protected", "url": upstream.url,
            "auth_method": "authorizationCode", "credentials": {"scopes": ["read"]}}),
        ),
    )
    .await;
    assert_eq!(created["status"], "authenticating", "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let url = created["authorize_url"].as_str().unwrap().to_string();
    let callback = format!("{}/oauth/callback/{id}", gw.base);
    assert!(url.contains(&url_encoded(&callback)), "{url}");

    // The listing says the same, with the URL, for dashboards.
    let list = call(&gw.base, "GET", servers, &token, None).await;
    let row = &list["servers"][0];
    assert_eq!(
        (row["status"].as_str(), row["authorize_url"].as_str()),
        (Some("authenticating"), Some(url.as_str()))
    );

    let (status, page) = browse(&url).await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("Authorized") && page.contains("ready"),
        "{page}"
    );
    // The link works once.
    let (again, page) = browse(&url).await;
    assert_eq!(again, 400, "{page}");
    let list = call(&gw.base, "GET", servers, &token, None).await;
    assert_eq!(list["servers"][0]["status"], "ready", "{list}");
    assert_eq!(
        list["servers"][0]["discovered_tools"],
        json!(["whoami", "write"])
    );

    // Sealed at rest: the stored record never shows a token.
    let sealed = store
        .load_oauth_tokens(&format!("api:{id}"))
        .await
        .unwrap()
        .unwrap();
    assert!(
        !sealed.contains("at-") && !sealed.contains("rt-"),
        "{sealed}"
    );

    // A restart: a new gateway over the same store connects with the kept tokens.
    gw.shutdown.cancel();
    gw.registry.shutdown().await;
    let restarted = gateway(store.clone(), sealer.clone()).await;
    restarted.state.load_servers().await.unwrap();
    let list = call(&restarted.base, "GET", servers, &token, None).await;
    assert_eq!(list["servers"][0]["status"], "ready", "{list}");

    // Reauthorize: a new flow with a new URL; the server waits for it.
    let again = call(
        &restarted.base,
        "POST",
        &format!("{servers}/{id}/reauthorize"),
        &token,
        None,
    )
    .await;
    assert_eq!(again["status"], "authenticating", "{again}");
    let new_url = again["authorize_url"].as_str().unwrap();
    assert_ne!(new_url, url);
    let (status, page) = browse(new_url).await;
    assert_eq!(status, 200, "{page}");
    let list = call(&restarted.base, "GET", servers, &token, None).await;
    assert_eq!(list["servers"][0]["status"], "ready", "{list}");

    // A server with fixed credentials has no flow to run again.
    let bearer = call(
        &restarted.base,
        "POST",
        servers,
        &token,
        Some(
            json!({"name": "Fixed", "slug": "fixed", "url": upstream.url,
            "auth_method": "bearer", "credentials": {"token": "not-a-live-token"}}),
        ),
    )
    .await;
    let refused = call(
        &restarted.base,
        "POST",
        &format!("{servers}/{}/reauthorize", bearer["id"].as_str().unwrap()),
        &token,
        None,
    )
    .await;
    assert_eq!(refused["error"]["kind"], "invalid_request", "{refused}");
    restarted.shutdown.cancel();
    restarted.registry.shutdown().await;

    // A key rotation seals the token records again with the new key; they still open.
    let rotated = Arc::new(Sealer::from_keys(vec![[7u8; 32], [8u8; 32]]));
    let resealed = SealedTokens {
        store: store.clone(),
        sealer: rotated.clone(),
    }
    .reseal()
    .await
    .unwrap();
    assert_eq!(resealed, 1);
    let sealed = store
        .load_oauth_tokens(&format!("api:{id}"))
        .await
        .unwrap()
        .unwrap();
    assert!(!rotated.is_stale(&sealed));
    let after_rotation = gateway(store.clone(), rotated).await;
    after_rotation.state.load_servers().await.unwrap();
    let list = call(&after_rotation.base, "GET", servers, &token, None).await;
    let protected = list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slug"] == "protected")
        .unwrap();
    assert_eq!(protected["status"], "ready", "{list}");
    after_rotation.shutdown.cancel();
    after_rotation.registry.shutdown().await;
}

fn url_encoded(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flow_begun_on_one_replica_is_finished_on_another() {
    let upstream = kit::Served::start(Path::new(FIXTURE), &[]).await;
    let data = tempfile::tempdir().unwrap();
    let sealer = Arc::new(Sealer::from_keys(vec![[9u8; 32]]));
    let store_a = Arc::new(SqlStore::open_sqlite(data.path()).await.unwrap());
    let store_b = Arc::new(SqlStore::open_sqlite(data.path()).await.unwrap());
    let org = store_a
        .create_org("acme", &["mcp_external_servers".into()])
        .await
        .unwrap();
    let (token, hash) = new_api_token();
    store_a
        .create_token(&org.id, &["integrations:manage".into()], &hash)
        .await
        .unwrap();
    let a = gateway(store_a, sealer.clone()).await;
    let b = gateway(store_b, sealer).await;
    let created = call(
        &a.base,
        "POST",
        "/api/integrations/mcp/servers",
        &token,
        Some(
            json!({"name": "Protected", "slug": "protected", "url": upstream.url,
            "auth_method": "authorizationCode"}),
        ),
    )
    .await;
    let url = created["authorize_url"].as_str().unwrap();
    // The authorization server sends the browser to A's callback; a load balancer hands it
    // to B instead.
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let approved = no_redirects.get(url).send().await.unwrap();
    let location = approved.headers()["location"].to_str().unwrap();
    assert!(location.starts_with(&a.base), "{location}");
    let to_b = location.replacen(&a.base, &b.base, 1);
    let page = reqwest::get(&to_b).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("ready"));
    let row = &call(
        &b.base,
        "GET",
        "/api/integrations/mcp/servers",
        &token,
        None,
    )
    .await["servers"][0];
    assert_eq!(row["status"], "ready", "{row}");
    // Used once, on any replica: A refuses the same link now.
    let again = reqwest::get(location).await.unwrap();
    assert_eq!(again.status(), 400);
    for gw in [a, b] {
        gw.shutdown.cancel();
        gw.registry.shutdown().await;
    }
}

/// Two replicas on one Postgres share a server's tokens; its refresh tokens work once. When
/// both find the access token refused at the same moment, they refresh in turn (a lock in the
/// database), the second with the refresh token the first just got: both calls succeed.
#[tokio::test(flavor = "multi_thread")]
async fn replicas_refresh_a_rotating_token_in_turn() {
    let url = std::env::var("SWITCHBOARD_TEST_DATABASE_URL").expect(
        "SWITCHBOARD_TEST_DATABASE_URL is not set: point it at a Postgres database (scripts/test.sh sets postgres://postgres@127.0.0.1:5432/test)",
    );
    let schema = format!("sb_oauth_{}", std::process::id());
    let scoped = switchboard_store::create_schema(&url, &schema)
        .await
        .unwrap();
    let upstream = kit::Served::start(Path::new(FIXTURE), &[]).await;
    let issued: Value = reqwest::Client::new()
        .post(upstream.url.replace("/mcp", "/admin/issue"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (_dir, config) = kit::write_mcp_json(json!({"given": {"type": "http", "url": upstream.url,
        "auth": {"type": "oauth2", "accessToken": issued["access_token"], "refreshToken": issued["refresh_token"],
                 "tokenUrl": upstream.url.replace("/mcp", "/token")}}}));
    let config = switchboard_config::load(&[config]).unwrap();
    let sealer = Arc::new(Sealer::from_keys(vec![[3u8; 32]]));
    let mut replicas = Vec::new();
    for _ in 0..2 {
        let store = Arc::new(SqlStore::open(&scoped).await.unwrap());
        let tokens = SealedTokens {
            store,
            sealer: sealer.clone(),
        };
        let registry = Registry::new(
            RegistryOptions::default()
                .with_dev(true)
                .with_oauth(OAuthContext::new(Arc::new(tokens), "http://127.0.0.1:9")),
        );
        registry.apply_config(&config).await;
        replicas.push(registry);
    }
    reqwest::Client::new()
        .post(upstream.url.replace("/mcp", "/admin/revoke-access"))
        .send()
        .await
        .unwrap();
    let calls = replicas.iter().map(|r| {
        r.call_tool(
            "given__whoami",
            None,
            switchboard_registry::CallOptions::default(),
        )
    });
    for outcome in futures::future::join_all(calls).await {
        let result = outcome.expect("both replicas get a fresh token");
        assert_eq!(kit::text(&result), "scope: read");
    }
    for registry in replicas {
        registry.shutdown().await;
    }
    switchboard_store::drop_schema(&url, &schema).await.unwrap();
}
