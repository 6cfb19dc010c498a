//! The dashboard in a real browser (Debian's chromium driven by playwright-core): live states
//! from the events stream, tools from the API, and operations on a config-file server, which
//! need the operator's role.

use serde_json::Value;
use std::path::Path;
use switchboard_testkit as kit;

const BINARY: &str = env!("CARGO_BIN_EXE_switchboard");

/// Runs `switchboard ARGS` with its data in `dir`; stdout on success.
fn admin(dir: &Path, args: &[&str]) -> String {
    kit::admin(Path::new(BINARY), &dir.join("data"), args)
}

fn token(dir: &Path, roles: &[&str]) -> String {
    kit::api_token(Path::new(BINARY), &dir.join("data"), "acme", roles)
}

#[tokio::test(flavor = "multi_thread")]
async fn dashboard_shows_live_states_and_runs_operations_in_a_browser() {
    // `shifty`'s weather tool reads its description from a file the browser test rewrites:
    // a changed definition that waits for approval.
    let desc_dir = tempfile::tempdir().unwrap();
    let desc = desc_dir.path().join("weather.txt");
    let (dir, config) = kit::write_mcp_json(serde_json::json!({
        "time": kit::time_entry(),
        "shifty": {
            "command": kit::python(),
            "args": [kit::repo_root().join("tests/fixtures/policy_server.py")],
            "env": {"POLICY_FIXTURE_DESC": desc},
            "tools": ["weather"],
        },
    }));
    admin(
        dir.path(),
        &["org", "create", "acme", "--feature", "mcp_external_servers"],
    );
    let viewer = token(dir.path(), &["integrations:view"]);
    let operator = token(dir.path(), &["integrations:manage", "gateway:operate"]);
    // --dev: the server connected through the form is on loopback.
    let gateway = kit::Gateway::start(Path::new(BINARY), &["--dev"], dir.path(), &config, 2).await;
    let upstream = kit::EverythingHttp::start().await;
    let base = gateway.base().to_string();

    // The page and its files come with a policy that allows nothing but this gateway.
    let page = reqwest::get(format!("{base}/")).await.unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("/dashboard/dashboard.js")
    );

    // Operations on the operator's servers need gateway:operate.
    let refused = reqwest::Client::new()
        .post(format!(
            "{base}/api/integrations/mcp/servers/config:time/disable"
        ))
        .bearer_auth(&viewer)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("gateway:operate"),
        "{body}"
    );

    // Screenshots of each state, for people (the folder is ignored by git).
    let shots = kit::repo_root().join("target/dashboard-shots");
    std::fs::create_dir_all(&shots).unwrap();
    let out = tokio::process::Command::new("node")
        .arg(kit::client_script("dashboard.mjs"))
        .args([
            base.as_str(),
            operator.as_str(),
            "time",
            "time__get_current_time",
            r#"{"timezone": "UTC"}"#,
            shots.to_str().unwrap(),
            upstream.url.as_str(),
            viewer.as_str(),
            desc.to_str().unwrap(),
        ])
        .env("SWITCHBOARD_NODE_MODULES", kit::node_modules())
        .output()
        .await
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap();
    // The token link signs in and leaves the address bar without the token.
    assert_eq!(seen["url_after_sign_in"], format!("{base}/"));
    assert_eq!(seen["connection"], "live");
    assert_eq!(seen["tokens_secret_shown"], false, "{seen}");
    assert_eq!(seen["revoked_token_status"], 401, "{seen}");
    assert_eq!(seen["summary"], "2 of 2 ready");
    let cells: Vec<&str> = seen["ready_row"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(
        &cells[..4],
        ["time", "config", "stdio", "ready"],
        "{cells:?}"
    );
    // The process id comes from the events stream only: the row is live, not just listed.
    assert!(cells[6].parse::<u32>().is_ok(), "pid cell: {cells:?}");
    assert!(cells[7].contains("convert_time"), "{cells:?}");
    assert_eq!(
        seen["statuses"],
        serde_json::json!(["ready", "disabled", "ready"])
    );
    assert_eq!(seen["message"], "");
    let history = seen["history"].as_str().unwrap();
    assert!(
        history.starts_with("connecting,ready,disabled"),
        "{history}"
    );
    assert!(history.ends_with(",ready"), "{history}");
    let history_text = seen["history_text"].as_str().unwrap();
    assert!(history_text.starts_with("protocol 20"), "{history_text}");
    let page = &seen["server_page"];
    assert_eq!(page["title"], "time (config, stdio)", "{page}");
    assert!(
        page["facts"].as_str().unwrap().contains("protocol 20"),
        "{page}"
    );
    assert!(page["changes"].as_u64().unwrap() >= 5, "{page}");
    assert_eq!(
        page["tools"],
        serde_json::json!(["time__get_current_time", "time__convert_time"]),
        "{page}"
    );

    // The console: the definition, the playground refused then allowed, the audit view.
    let schema = seen["input_schema"].as_str().unwrap();
    assert!(schema.contains("timezone"), "{schema}");
    assert!(
        seen["annotations"]
            .as_str()
            .unwrap()
            .contains("mcp.time.get_current_time")
    );
    assert_eq!(seen["first_outcome"], "policy_denied", "{seen}");
    assert!(
        seen["first_text"]
            .as_str()
            .unwrap()
            .contains("not enabled for agent dashboard"),
        "{seen}"
    );
    assert!(
        seen["integrations"].to_string().contains("mcp_time"),
        "{seen}"
    );
    assert_eq!(seen["second_outcome"], "ok", "{seen}");
    assert!(
        seen["second_text"].as_str().unwrap().contains("UTC"),
        "{seen}"
    );
    assert_eq!(
        seen["audit"],
        serde_json::json!(["policy_denied", "ok"]),
        "{}",
        seen["audit_rows"]
    );
    // By server: the tool's two calls among the server's other rows (its operations).
    let by_server: Vec<(String, String)> =
        serde_json::from_value(seen["audit_by_server"].clone()).unwrap();
    let calls: Vec<&str> = by_server
        .iter()
        .filter(|(action, _)| action == "mcp.time.get_current_time")
        .map(|(_, outcome)| outcome.as_str())
        .collect();
    assert_eq!(calls, ["policy_denied", "ok"], "{seen}");
    assert!(
        by_server
            .iter()
            .all(|(action, _)| !action.contains("everything")),
        "{seen}"
    );
    assert!(
        seen["chain"].as_str().unwrap().starts_with("intact: "),
        "{seen}"
    );
    for shot in [
        "servers", "server", "tool", "refused", "agent", "call", "audit", "chain", "edit",
        "approval", "narrow",
    ] {
        assert!(shots.join(format!("{shot}.png")).is_file(), "{shot}");
    }
    assert_eq!(seen["problems"], serde_json::json!([]));
    // Editing: the form says what it saves, keeps the slug, refuses a bad URL in place.
    assert_eq!(seen["edit_button"], "Save everything", "{seen}");
    assert_eq!(seen["edit_slug_locked"], true);
    assert_eq!(
        seen["edit_slug"], "everything",
        "a new name leaves the slug alone"
    );
    assert!(
        seen["edit_error"]
            .as_str()
            .unwrap()
            .contains("invalid_request"),
        "{seen}"
    );
    assert_eq!(seen["edited_name"], "Everything, renamed", "{seen}");
    // A changed definition: its diff, approved from the page, and gone from the list.
    assert_eq!(
        seen["diff_removed"],
        serde_json::json!(["-   \"description\": \"Current weather for a city.\",\n"]),
        "{seen}"
    );
    assert_eq!(
        seen["diff_added"],
        serde_json::json!([
            "+   \"description\": \"Current weather for a city, in degrees Celsius.\",\n"
        ]),
        "{seen}"
    );
    assert_eq!(seen["approvals_hidden"], true, "{seen}");
    // The answers with an error status are the refused call's 403, the bad URLs' 400s and
    // the revoked token's 401.
    let http_errors = seen["http_errors"].to_string();
    assert_eq!(seen["http_errors"].as_array().unwrap().len(), 4, "{seen}");
    assert!(
        http_errors.contains("status of 403")
            && http_errors.contains("status of 400")
            && http_errors.contains("status of 401"),
        "{seen}"
    );

    // The same operation from the terminal.
    let disabled = admin(
        dir.path(),
        &[
            "server",
            "disable",
            "config:time",
            "--url",
            &base,
            "--token",
            &operator,
            "--json",
        ],
    );
    let disabled: Value = serde_json::from_str(&disabled).unwrap();
    assert_eq!(disabled["status"], "disabled", "{disabled}");
    assert_eq!(disabled["source"], "config", "{disabled}");
}
