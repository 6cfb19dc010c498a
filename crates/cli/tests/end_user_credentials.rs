//! Per-end-user servers (`credentials = "per_end_user"`) against a real HTTP upstream (the
//! testkit's echo server, whose `headers` tool answers the Authorization and X-Test headers it
//! received): each end user's call carries their own key on their own session; a call with
//! no end user, an end user asserted by a caller that may not, or one without a grant is
//! refused naming what is missing; grants are set, listed and revoked over REST and the CLI.

use serde_json::{Value, json};
use std::path::Path;
use switchboard_store::{AuditFilter, SqlStore, Store};
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// `billing` lists its tools with a discovery token and trusts asserted end users; `strict`
/// sends each user's key as X-Test, has no discovery credential and trusts only tokens.
fn config(dir: &Path, echo: &str) -> std::path::PathBuf {
    let text = format!(
        r#"[gateway]
anonymous_loopback = false
token = "operator-token"

[servers.billing]
url = "{echo}"
auth = {{ type = "bearer", token = "discovery-secret" }}
credentials = "per_end_user"
trust_asserted_end_users = true

[servers.strict]
url = "{echo}"
auth = {{ type = "apiKey", headerName = "X-Test" }}
credentials = "per_end_user"
"#
    );
    let path = dir.join("switchboard.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Calls `tool` on `url` bearing `token`, asserting `end_user` when given; never answered
/// with the discovery credential.
async fn call(url: &str, token: &str, tool: &str, end_user: Option<&str>) -> Result<Value, String> {
    let meta = end_user.map(|user| json!({"bound_end_user_id": user}));
    let outcome = kit::call_tool_as(url, token, tool, meta).await;
    assert!(
        !format!("{outcome:?}").contains("discovery-secret"),
        "{outcome:?}"
    );
    outcome
}

#[tokio::test(flavor = "multi_thread")]
async fn each_end_user_calls_with_their_own_credential_and_nobody_else_can() {
    let echo_bin = Path::new(BIN).with_file_name("echo-server");
    let echo = kit::Served::start(&echo_bin, &["--http", "127.0.0.1:0"]).await;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let path = config(dir.path(), &echo.url);
    kit::admin(
        Path::new(BIN),
        &data,
        &["org", "create", "acme", "--feature", "mcp_external_servers"],
    );
    let platform = kit::api_token(
        Path::new(BIN),
        &data,
        "acme",
        &["integrations:manage", "end_users:assert"],
    );
    let plain = kit::api_token(Path::new(BIN), &data, "acme", &["integrations:manage"]);
    let mut gw = kit::Gateway::start_any(Path::new(BIN), &["--dev"], dir.path(), &path).await;
    gw.ignore_log();
    let url = gw.url.clone();
    let api = format!("{}/api", gw.base());

    // `billing` is listed with its discovery token; `strict` waits for a first grant.
    let names = kit::tool_names(&url, Some(&platform)).await;
    assert!(names.contains(&"billing__headers".to_string()), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("strict__")),
        "{names:?}"
    );

    // An org's per-end-user OAuth server needs a sign-in this gateway does not offer.
    let servers = format!("{api}/integrations/mcp/servers");
    let drive = json!({"name": "Drive", "slug": "drive", "url": echo.url,
        "auth_method": "authorizationCode", "credentials": {"per_end_user": true}});
    let (status, body) = kit::rest("POST", &servers, &platform, Some(drive)).await;
    assert_eq!(status, 400, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("offers no sign-in"), "{body}");

    // Keys are set over REST, never answered back.
    for (user, key) in [("alice", "alice-key"), ("bob", "bob-key")] {
        let route = format!("{api}/end-users/{user}/credentials/billing");
        let (status, body) =
            kit::rest("PUT", &route, &platform, Some(json!({"secret": key}))).await;
        assert_eq!(status, 200, "{body}");
        assert!(!body.to_string().contains(key), "{body}");
        assert_eq!(body["grant"]["end_user"], user, "{body}");
    }
    let (status, body) = kit::rest(
        "PUT",
        &format!("{api}/end-users/alice/credentials/nope"),
        &platform,
        Some(json!({"secret": "x"})),
    )
    .await;
    assert_eq!(status, 404, "{body}");

    // Each end user's call carries their own key, on their own upstream session.
    let alice = call(&url, &platform, "billing__headers", Some("alice"))
        .await
        .unwrap();
    assert_eq!(alice["authorization"], "Bearer alice-key", "{alice}");
    let bob = call(&url, &platform, "billing__headers", Some("bob"))
        .await
        .unwrap();
    assert_eq!(bob["authorization"], "Bearer bob-key", "{bob}");
    let sessions = "switchboard_upstream_end_user_sessions{server=\"billing\",org=\"\"}";
    assert_eq!(
        kit::metric(gw.base(), Some("operator-token"), sessions).await,
        2.0
    );

    // Nobody else acts as them, nor as the server's discovery identity.
    let carol = call(&url, &platform, "billing__headers", Some("carol"))
        .await
        .unwrap_err();
    assert!(
        carol.contains("auth_unavailable") && carol.contains("carol") && carol.contains("set-key"),
        "{carol}"
    );
    let nobody = call(&url, &platform, "billing__headers", None)
        .await
        .unwrap_err();
    assert!(
        nobody.contains("auth_unavailable") && nobody.contains("names no end user"),
        "{nobody}"
    );
    let untrusted = call(&url, &plain, "billing__headers", Some("alice"))
        .await
        .unwrap_err();
    assert!(untrusted.contains("end_users:assert"), "{untrusted}");
    let operator = call(&url, "operator-token", "billing__headers", Some("alice")).await;
    // The operator's alice is not acme's alice: grants are kept per org.
    let operator = operator.unwrap_err();
    assert!(operator.contains("no credential"), "{operator}");

    // `strict` (the operator's) is never listed with one org's end user's grant: only with
    // a grant of the operator's own callers, here set from the CLI and taken up on refresh.
    let route = format!("{api}/end-users/alice/credentials/strict");
    let (status, _) = kit::rest("PUT", &route, &platform, Some(json!({"secret": "alice-x"}))).await;
    assert_eq!(status, 200);
    let names = kit::tool_names(&url, Some(&platform)).await;
    assert!(
        !names.iter().any(|n| n.starts_with("strict__")),
        "{names:?}"
    );
    let config = path.to_str().unwrap();
    let set = [
        "end-users",
        "set-key",
        "--end-user",
        "ops",
        "--server",
        "strict",
        "-c",
        config,
    ];
    admin_with_stdin(&data, &set, "ops-key");
    let operate = kit::api_token(Path::new(BIN), &data, "acme", &["gateway:operate"]);
    let refresh = format!("{api}/integrations/mcp/servers/config:strict/refresh");
    let (status, body) = kit::rest("POST", &refresh, &operate, None).await;
    assert_eq!(status, 200, "{body}");
    let names = kit::tool_names(&url, Some(&platform)).await;
    assert!(names.contains(&"strict__headers".to_string()), "{names:?}");
    // And it trusts no asserted end user.
    let strict = call(&url, &platform, "strict__headers", Some("alice"))
        .await
        .unwrap_err();
    assert!(strict.contains("trust_asserted_end_users"), "{strict}");

    // Listed by person (REST and CLI), never with a secret.
    let (status, body) = kit::rest(
        "GET",
        &format!("{api}/end-users/alice/grants"),
        &platform,
        None,
    )
    .await;
    assert_eq!(status, 200);
    let servers: Vec<&str> = (body["grants"].as_array().unwrap().iter())
        .map(|g| g["server"].as_str().unwrap())
        .collect();
    assert_eq!(servers, ["billing", "strict"], "{body}");
    let listed = kit::admin(
        Path::new(BIN),
        &data,
        &["end-users", "list", "--org", "acme", "--json"],
    );
    let listed: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed["grants"].as_array().unwrap().len(), 3, "{listed}");
    let ops = kit::admin(Path::new(BIN), &data, &["end-users", "list", "--json"]);
    assert!(ops.contains("\"ops\"") && !ops.contains("alice"), "{ops}");
    assert!(!listed.to_string().contains("-key"), "{listed}");

    // Revoked over REST: refused at once, the session closed.
    let (status, _) = kit::rest(
        "DELETE",
        &format!("{api}/end-users/alice/grants/billing"),
        &platform,
        None,
    )
    .await;
    assert_eq!(status, 200);
    let revoked = call(&url, &platform, "billing__headers", Some("alice"))
        .await
        .unwrap_err();
    assert!(revoked.contains("no credential"), "{revoked}");
    assert_eq!(
        kit::metric(gw.base(), Some("operator-token"), sessions).await,
        1.0
    );

    // Revoked from the CLI beside the running gateway (SQLite: read again within 5 s).
    let config = path.to_str().unwrap();
    let revoke = [
        "end-users",
        "revoke",
        "--org",
        "acme",
        "--end-user",
        "bob",
        "--server",
        "billing",
        "-c",
        config,
    ];
    kit::admin(Path::new(BIN), &data, &revoke);
    kit::eventually("bob's revocation", async || {
        call(&url, &platform, "billing__headers", Some("bob"))
            .await
            .is_err()
    })
    .await;

    // Audited: each grant and revocation, and the grant each call went out with.
    let store = SqlStore::open_sqlite(&data).await.unwrap();
    let rows = |action: &str| AuditFilter {
        action_id: Some(action.into()),
        ..Default::default()
    };
    assert_eq!(store.audit(&rows("end_user.grant")).await.unwrap().len(), 4);
    assert_eq!(
        store.audit(&rows("end_user.revoke")).await.unwrap().len(),
        2
    );
    let calls = store.audit(&rows("mcp.billing.headers")).await.unwrap();
    let alice_row = calls
        .iter()
        .find(|r| r.entry.end_user_id.as_deref() == Some("alice") && r.entry.outcome == "ok")
        .expect("alice's call");
    assert!(
        alice_row
            .entry
            .policy
            .as_deref()
            .unwrap_or_default()
            .contains("grant grant"),
        "{alice_row:?}"
    );
}

/// `switchboard ARGS…` with its data under `data`, `input` on its stdin; panics on failure.
fn admin_with_stdin(data: &Path, args: &[&str], input: &str) {
    use std::io::Write;
    let mut child = std::process::Command::new(BIN)
        .args(args)
        .env("SWITCHBOARD_DATA", data)
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success(), "switchboard {args:?}");
}

#[test]
fn config_check_names_what_a_per_end_user_server_cannot_do() {
    let servers = json!({
        "local": {"command": "true", "credentials": "per_end_user"},
        "noauth": {"url": "https://example.com/mcp", "credentials": "per_end_user"},
        "odd": {"url": "https://example.com/mcp", "credentials": "per_user"},
        "shared": {"url": "https://example.com/mcp", "trust_asserted_end_users": true},
        "exchange_key": {"url": "https://example.com/mcp", "credentials": "token_exchange",
            "auth": {"type": "apiKey", "key": "k"}},
        "exchange_asserted": {"url": "https://example.com/mcp", "credentials": "token_exchange",
            "trust_asserted_end_users": true, "auth": {"type": "bearer", "token": "t"}},
        "one_client": {"url": "https://example.com/mcp", "credentials": "per_end_user",
            "auth": {"type": "clientCredentials", "tokenUrl": "https://example.com/token",
                "clientId": "c", "clientSecret": "s"}},
        "seeded": {"url": "https://example.com/mcp", "credentials": "per_end_user",
            "auth": {"type": "authorizationCode", "accessToken": "a"}},
        "no_sign_in": {"url": "https://example.com/mcp", "credentials": "per_end_user",
            "auth": {"type": "authorizationCode"}},
    });
    kit::config_check_refuses(
        Path::new(BIN),
        servers,
        &[
            "never one shared process",
            "needs auth to say where",
            "unknown credentials mode",
            "applies only to a server with credentials",
            "sends each end user's exchanged token as a bearer token",
            "an asserted end user has none",
            "one client's token would act for every end user",
            "tokens given here would belong to nobody",
            "server no_sign_in has each end user authorize it in their browser, and this gateway has no [gateway] public_url",
        ],
    );
}
