//! A per-end-user stdio server (`credentials = "per_end_user"`, `per_session = true`,
//! `end_user_env`): each end user's calls reach their own process of the testkit's echo
//! server, started with their secret in its environment (its `headers` tool answers the
//! SERVICE_TOKEN and pid it has); never another user's process nor the listing one (started
//! with the discovery secret in `env`); at most
//! `end_user_processes_per_server` at once, the longest unused stopped for a new one.

use serde_json::json;
use std::path::Path;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

#[tokio::test(flavor = "multi_thread")]
async fn each_end_user_gets_their_own_process_with_their_own_secret() {
    let echo_bin = Path::new(BIN).with_file_name("echo-server");
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let text = format!(
        "[gateway]\nanonymous_loopback = false\ntoken = \"operator-token\"\n\n\
         [limits]\nend_user_processes_per_server = 2\n\n\
         [servers.local]\ncommand = {:?}\ncredentials = \"per_end_user\"\nper_session = true\n\
         end_user_env = \"SERVICE_TOKEN\"\ntrust_asserted_end_users = true\n\
         env = {{ SERVICE_TOKEN = \"discovery-secret\" }}\n",
        echo_bin.display().to_string()
    );
    let config = dir.path().join("switchboard.toml");
    std::fs::write(&config, text).unwrap();
    let org = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    kit::admin(Path::new(BIN), &data, &org);
    let roles = ["integrations:manage", "end_users:assert"];
    let platform = kit::api_token(Path::new(BIN), &data, "acme", &roles);
    let mut gw = kit::Gateway::start_any(Path::new(BIN), &["--dev"], dir.path(), &config).await;
    gw.ignore_log();
    let api = format!("{}/api", gw.base());
    for (user, key) in [
        ("alice", "alice-key"),
        ("bob", "bob-key"),
        ("carol", "carol-key"),
    ] {
        let route = format!("{api}/end-users/{user}/credentials/local");
        let (status, body) =
            kit::rest("PUT", &route, &platform, Some(json!({"secret": key}))).await;
        assert_eq!(status, 200, "{body}");
    }
    let call = async |user: &str| {
        let meta = json!({"bound_end_user_id": user});
        kit::call_tool_as(&gw.url, &platform, "local__headers", Some(meta)).await
    };
    // The server lists its tools with its discovery secret's process (never used for a
    // call), and serves each user from their own.
    kit::eventually("the server listed", async || call("alice").await.is_ok()).await;
    let alice = call("alice").await.unwrap();
    assert_eq!(alice["service_token"], "alice-key", "{alice}");
    let bob = call("bob").await.unwrap();
    assert_eq!(bob["service_token"], "bob-key", "{bob}");
    assert_ne!(alice["pid"], bob["pid"], "one process per end user");
    // Each in its own sandbox folders: one end user's process never reads another's files.
    let (alice_home, bob_home) = (
        alice["home"].as_str().unwrap(),
        bob["home"].as_str().unwrap(),
    );
    assert_ne!(alice_home, bob_home, "{alice} {bob}");
    assert!(alice_home.contains("/sandbox/local-"), "{alice}");
    let again = call("alice").await.unwrap();
    assert_eq!(again["pid"], alice["pid"], "her process is kept");
    let processes = "switchboard_upstream_end_user_sessions{server=\"local\",org=\"\"}";
    let base = gw.base().to_string();
    assert_eq!(
        kit::metric(&base, Some("operator-token"), processes).await,
        2.0
    );

    // A third user past the bound of 2: the longest unused process (bob's) is stopped.
    let carol = call("carol").await.unwrap();
    assert_eq!(carol["service_token"], "carol-key", "{carol}");
    assert_eq!(
        kit::metric(&base, Some("operator-token"), processes).await,
        2.0
    );
    let bob_again = call("bob").await.unwrap();
    assert_eq!(bob_again["service_token"], "bob-key", "{bob_again}");
    assert_ne!(bob_again["pid"], bob["pid"], "bob's process was stopped");

    // No end user: refused, never the listing process.
    let nobody = kit::call_tool_as(&gw.url, &platform, "local__headers", None).await;
    let nobody = nobody.unwrap_err();
    assert!(nobody.contains("auth_unavailable"), "{nobody}");
    // A revoked grant stops that user's process at once (bob's and carol's run now, alice's
    // was stopped for bob's); her next call is refused.
    let route = format!("{api}/end-users/carol/grants/local");
    let (status, body) = kit::rest("DELETE", &route, &platform, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        kit::metric(&base, Some("operator-token"), processes).await,
        1.0
    );
    let refused = call("carol").await.unwrap_err();
    assert!(refused.contains("auth_unavailable"), "{refused}");
}

#[test]
fn config_check_names_what_a_per_end_user_stdio_server_needs() {
    let servers = json!({
        "shared_process": {"command": "true", "credentials": "per_end_user",
            "end_user_env": "TOKEN"},
        "no_variable": {"command": "true", "credentials": "per_end_user", "per_session": true},
        "hijack": {"command": "true", "credentials": "per_end_user", "per_session": true,
            "end_user_env": "LD_PRELOAD"},
        "exchange": {"command": "true", "credentials": "token_exchange", "per_session": true},
        "stray": {"command": "true", "end_user_env": "TOKEN"},
    });
    kit::config_check_refuses(
        Path::new(BIN),
        servers,
        &[
            "never one shared process",
            "which environment variable",
            "\"LD_PRELOAD\" is not an environment variable a secret may go in",
            "a stdio server has no request header",
            "end_user_env: applies only to a server with credentials",
        ],
    );
}
