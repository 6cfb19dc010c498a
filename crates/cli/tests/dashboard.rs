//! The console in a real browser (Debian's chromium driven by playwright-core), each section
//! as a new operator uses it: live server states and operations (a config-file server's need
//! the operator's role), connecting, tools tried on the first try, agents, resources and
//! prompts, approvals, the live audit, server-side figures and charts, tokens and orgs, with
//! the keyboard and in a narrow window.

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

    // A loopback port nobody listens on: a server URL that refuses.
    let refusing = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/mcp", listener.local_addr().unwrap())
    };
    // Screenshots of each section, for people (the folder is ignored by git).
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
            refusing.as_str(),
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
    console_sections_work(&seen, &shots, &base);
    // The answers with an error status are the refused sign-in checks only: the revoked
    // token's 401 (nothing else the operator did failed).
    let http_errors = seen["http_errors"].to_string();
    assert!(http_errors.contains("status of 401"), "{seen}");
    assert!(!http_errors.contains("status of 5"), "{seen}");

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

/// What the browser saw in each section (`tests/clients/dashboard.mjs`).
fn console_sections_work(seen: &Value, shots: &Path, base: &str) {
    let text = |key: &str| seen[key].as_str().unwrap_or_default().to_string();
    // Signed in by the link, which leaves the address bar; every section offered.
    assert_eq!(text("url_after_sign_in"), format!("{base}/"), "{seen}");
    assert_eq!(seen["connection"], "live");
    assert_eq!(
        seen["nav"],
        serde_json::json!([
            "overview", "servers", "tools", "catalog", "agents", "policy", "audit", "tokens"
        ])
    );
    // Servers: the live row, its operations, its page.
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
    assert_eq!(
        seen["statuses"],
        serde_json::json!(["ready", "disabled", "ready"])
    );
    assert!(
        text("history").starts_with("connecting,ready,disabled"),
        "{seen}"
    );
    let page = &seen["server_page"];
    assert!(
        page["url"].as_str().unwrap().ends_with("#server/time"),
        "{page}"
    );
    assert_eq!(page["title"], "time (config, stdio)", "{page}");
    assert!(
        page["facts"].as_str().unwrap().contains("protocol 20"),
        "{page}"
    );
    assert!(page["changes"].as_u64().unwrap() >= 5, "{page}");
    assert_eq!(
        page["tools"],
        serde_json::json!(["time__get_current_time", "time__convert_time"])
    );
    // A server that refuses: the form keeps it, says why in place, and saves the fix.
    let refused = &seen["refused"];
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("everything did not connect"),
        "{refused}"
    );
    assert!(
        refused["url_kept"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );
    assert_eq!(refused["button"], "Save everything", "{refused}");
    assert_eq!(refused["slug_locked"], true);
    assert_eq!(refused["top_message_hidden"], true);
    let status = text("connect_status");
    assert!(status.starts_with("everything is ready: "), "{seen}");
    assert!(!status.contains(": 0 tool"), "{seen}");
    // Tools: the first try works, enabling the tool for the playground's agent as it says.
    assert!(text("input_schema").contains("timezone"), "{seen}");
    assert!(text("annotations").contains("mcp.time.get_current_time"));
    assert_eq!(seen["first_button"], "Enable for dashboard and call");
    assert_eq!(seen["first_outcome"], "ok", "{seen}");
    assert!(text("first_text").contains("UTC"), "{seen}");
    assert_eq!(seen["enabled_after"], true);
    // Agents: on; a whole server off then on in one request each.
    assert_eq!(seen["agent_action_on"], true);
    assert_eq!(seen["after_disable_all"], 0, "{seen}");
    assert_eq!(seen["after_enable_all"], 2, "{seen}");
    assert!(
        seen["agent_list"]
            .to_string()
            .contains(r#"["dashboard","2"]"#),
        "{seen}"
    );
    // Resources and prompts of the connected server.
    assert!(seen["resources"].as_u64().unwrap() > 0, "{seen}");
    assert_eq!(seen["resource_outcome"], "ok", "{seen}");
    assert_eq!(seen["prompt_outcome"], "ok", "{seen}");
    assert!(seen["prompt_messages"].as_u64().unwrap() > 0, "{seen}");
    // Policy: the change waits folded, is counted on the nav, then approved.
    assert_eq!(seen["badge"], "1");
    assert_eq!(seen["diff_folded"], true);
    assert!(
        seen["held_back"].to_string().contains("mcp.shifty.weather"),
        "{seen}"
    );
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
    assert_eq!(seen["badge_after"], true);
    // Audit: reached by keyboard, rows without asking, the next call live, a record opened.
    assert_eq!(seen["focus_after_nav"], "audit");
    assert!(seen["audit_first"].as_u64().unwrap() > 0);
    assert!(seen["audit_live"].as_u64().unwrap() >= 2, "{seen}");
    assert!(text("record").contains("hash"), "{seen}");
    assert!(text("chain").starts_with("intact: "), "{seen}");
    // Overview: the server's figures (both calls through the playground and the REST call).
    let figures: Vec<&str> = seen["figures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(figures[0], "time", "{figures:?}");
    assert!(figures[1].parse::<u32>().unwrap() >= 2, "{figures:?}");
    assert_eq!(figures[5], "0", "no errors: {figures:?}");
    assert!(text("chart_points") != "0", "{seen}");
    // Both config-file servers and the one connected from the form.
    assert_eq!(seen["cards"]["servers"], "3 of 3", "{seen}");
    // Tokens and orgs.
    assert_eq!(seen["new_token_status"], 200, "{seen}");
    assert_eq!(seen["secret_in_table"], false);
    assert_eq!(seen["revoked_token_status"], 401, "{seen}");
    assert_eq!(seen["orgs"], serde_json::json!(["acme"]), "{seen}");
    assert_eq!(seen["after_skip"], "servers", "{seen}");
    assert_eq!(seen["notices"], serde_json::json!([]), "{seen}");
    // A narrow window.
    assert_eq!(seen["narrow_nav_hidden"], true);
    assert_eq!(seen["narrow_nav_closed"], true);
    assert_eq!(seen["narrow_overflow"], 0, "the page fits 420 px: {seen}");
    // A viewer.
    let viewer = &seen["viewer"];
    assert_eq!(viewer["buttons"], 0, "{viewer}");
    assert_eq!(viewer["connect_hidden"], true);
    assert_eq!(viewer["call_hidden"], true);
    assert!(
        viewer["note"]
            .as_str()
            .unwrap()
            .contains("integrations:manage")
    );
    for shot in [
        "overview-empty",
        "servers",
        "server",
        "connect-refused",
        "connected",
        "tool",
        "call",
        "agents",
        "resource",
        "prompt",
        "approval",
        "audit",
        "overview",
        "tokens",
        "narrow-menu",
        "narrow",
        "viewer",
    ] {
        assert!(shots.join(format!("{shot}.png")).is_file(), "{shot}");
    }
    assert_eq!(seen["problems"], serde_json::json!([]));
}
