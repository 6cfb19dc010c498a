//! Two replicas on one Postgres behind haproxy (round robin, no stickiness), both trusting the
//! same issuer and bound to the balancer's public URL: an access token works on either, and a
//! session is bound to whoever opened it on every replica, restored or not.

use serde_json::json;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use switchboard_testkit as kit;
use switchboard_testkit::oidc::Provider;
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "1f3e5d7c9b0a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e";

/// haproxy on `port`, each request to the next of `a` and `b`.
async fn balancer(dir: &Path, port: u16, a: &str, b: &str) -> Child {
    let config = dir.join("haproxy.cfg");
    let text = format!(
        "defaults\n  mode http\n  timeout connect 5s\n  timeout client 60s\n  timeout server 60s\n\
         frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend both\n\
         backend both\n  balance roundrobin\n  server a {a}\n  server b {b}\n"
    );
    std::fs::write(&config, text).unwrap();
    let haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("haproxy");
    let child = Command::new(haproxy)
        .args(["-db", "-f"])
        .arg(&config)
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start haproxy (scripts/fixtures.sh installs it)");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "haproxy never listened"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child
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
    let args = ["--dev", "--database-url", &schema.url];
    let env = [("SWITCHBOARD_MASTER_KEY", MASTER_KEY)];
    let (dir_a, dir_b) = (dir.path().join("a"), dir.path().join("b"));
    let mut a = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_a, &config, &env).await;
    let mut b = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_b, &config, &env).await;
    a.ignore_log();
    b.ignore_log();
    let host = |url: &str| {
        url.trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string()
    };
    let _haproxy = balancer(dir.path(), port, &host(&a.url), &host(&b.url)).await;
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
