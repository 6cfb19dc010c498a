//! Two replicas on one Postgres behind haproxy (round robin, no stickiness), both trusting the
//! same issuer and bound to the balancer's public URL: an access token works on either, and a
//! session is bound to whoever opened it on every replica, restored or not.

use serde_json::json;
use std::path::Path;
use std::time::Duration;
use switchboard_testkit as kit;
use switchboard_testkit::oidc::Provider;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "1f3e5d7c9b0a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e";

/// Two replicas of `config` on the database at `url`, with the same master key.
async fn replicas(dir: &Path, url: &str, config: &Path) -> (kit::Gateway, kit::Gateway) {
    let args = ["--dev", "--database-url", url];
    let env = [("SWITCHBOARD_MASTER_KEY", MASTER_KEY)];
    let (dir_a, dir_b) = (dir.join("a"), dir.join("b"));
    let mut a = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_a, config, &env).await;
    let mut b = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_b, config, &env).await;
    a.ignore_log();
    b.ignore_log();
    (a, b)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_belongs_to_its_opener_on_every_replica() {
    let schema = kit::TestSchema::create("identity").await;
    let provider = Provider::start().await;
    let dir = tempfile::tempdir().unwrap();
    let port = kit::free_port();
    let public = format!("http://127.0.0.1:{port}");
    let settings = format!(
        "[gateway]\npublic_url = \"{public}\"\nanonymous_loopback = false\n\n\
         [[identity.issuers]]\nissuer = \"{}\"\n",
        provider.issuer
    );
    let config = kit::server_toml(dir.path(), &settings, "time", &kit::time_entry());
    let (a, b) = replicas(dir.path(), &schema.url, &config).await;
    let host = |url: &str| {
        url.trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string()
    };
    let _haproxy = kit::balancer::round_robin(dir.path(), port, &host(&a.url), &host(&b.url)).await;
    let url = format!("{public}/mcp");
    let dave = provider.access_token("dave", &url).await;
    let eve = provider.access_token("eve", &url).await;

    let post = |token: String, session: Option<String>, message: serde_json::Value| {
        let url = url.clone();
        async move {
            let response = kit::post_mcp_from(
                &url,
                "127.0.0.1",
                Some(&token),
                session.as_deref(),
                &message,
            )
            .await;
            let status = response.status().as_u16();
            let session =
                (response.headers().get("mcp-session-id")).map(|v| v.to_str().unwrap().to_string());
            (status, session, response.text().await.unwrap())
        }
    };
    let (status, session, body) = post(dave.clone(), None, kit::initialize_request()).await;
    assert_eq!(status, 200, "{body}");
    let session = session.expect("a session");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, body) = post(dave.clone(), Some(session.clone()), initialized).await;
    assert_eq!(status, 202, "{body}");
    // Requests alternate between the replicas: each of eve's is refused as for an unknown
    // session, each of dave's is answered, wherever it lands.
    for i in 0..4 {
        let list = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/list"});
        let (status, _, body) = post(eve.clone(), Some(session.clone()), list.clone()).await;
        assert_eq!(status, 404, "eve, request {i}: {body}");
        let (status, _, body) = post(dave.clone(), Some(session.clone()), list).await;
        assert_eq!(status, 200, "dave, request {i}: {body}");
        assert!(body.contains("time__get_current_time"), "{body}");
    }
    drop((a, b));
    schema.remove().await;
}

/// The status `url` answers an initialize bearing `token`.
async fn status_with(url: &str, token: &str) -> u16 {
    kit::post_mcp_from(
        url,
        "127.0.0.1",
        Some(token),
        None,
        &kit::initialize_request(),
    )
    .await
    .status()
    .as_u16()
}

/// Asks `url` with `token` until it answers `want` (at most 10 s); how long that took.
async fn until_status(url: &str, token: &str, want: u16) -> Duration {
    let start = tokio::time::Instant::now();
    loop {
        let got = status_with(url, token).await;
        if got == want {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{url} still answers {got}, not {want}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_orgs_issuer_changes_on_every_replica() {
    let schema = kit::TestSchema::create("org_issuers").await;
    let provider = Provider::start().await;
    let dir = tempfile::tempdir().unwrap();
    let public = format!("http://127.0.0.1:{}", kit::free_port());
    let settings = format!("[gateway]\npublic_url = \"{public}\"\nanonymous_loopback = false\n");
    let config = kit::server_toml(dir.path(), &settings, "time", &kit::time_entry());
    let (a, b) = replicas(dir.path(), &schema.url, &config).await;
    let data = dir.path().join("cli");
    let db = Some(schema.url.as_str());
    let create = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    kit::admin_on(Path::new(BIN), &data, db, &create);
    let admin = kit::api_token_on(Path::new(BIN), &data, db, "acme", &["integrations:manage"]);
    // The token's audience is the public URL's resource, wherever the request lands.
    let resource = format!("{public}/orgs/acme/mcp");
    let token = provider.access_token("heidi", &resource).await;
    let on_b = format!("{}/orgs/acme/mcp", b.base());
    assert_eq!(status_with(&on_b, &token).await, 401, "no issuer yet");

    let client = reqwest::Client::new();
    let issuers = format!("{}/api/identity/issuers", a.base());
    let put = |map: serde_json::Value| {
        let spec = json!({"issuer": provider.issuer,
            "claims": {"roles": {"claim": "groups", "map": map}}});
        client.put(&issuers).bearer_auth(&admin).json(&spec).send()
    };
    // Added on replica a: replica b accepts the issuer's tokens.
    let added = put(json!({"mcp-users": "integrations:view"}))
        .await
        .unwrap();
    assert_eq!(added.status().as_u16(), 201);
    let took = until_status(&on_b, &token, 200).await;
    println!("added on a, in force on b after {took:?}");
    // Its mapping changed on a: b maps the same token to no role.
    let changed = put(json!({"mcp-admins": "integrations:view"}))
        .await
        .unwrap();
    assert_eq!(changed.status().as_u16(), 200);
    let took = until_status(&on_b, &token, 403).await;
    println!("mapping changed on a, in force on b after {took:?}");
    // Removed on a: b refuses its tokens.
    let remove = reqwest::Url::parse_with_params(&issuers, [("issuer", &provider.issuer)]).unwrap();
    let removed = client
        .delete(remove)
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap();
    assert_eq!(removed.status().as_u16(), 204);
    let took = until_status(&on_b, &token, 401).await;
    println!("removed on a, refused on b after {took:?}");
    drop((a, b));
    schema.remove().await;
}
