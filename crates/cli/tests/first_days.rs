//! Small things a new operator trips on (issue 35): commands that talk to a running gateway
//! name SWITCHBOARD_API_TOKEN, take a server's name, and end quietly when their reader goes
//! away; `call` starts only the server it needs and summarises images; REST errors have the
//! API's own kinds and bad query strings answer JSON.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use switchboard_testkit as kit;
use tokio::io::{AsyncBufReadExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// `switchboard ARGS…` with the data under `data` and no token from the environment.
async fn cli(data: &Path, args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(BIN)
        .args(args)
        .env("SWITCHBOARD_DATA", data)
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .env_remove("SWITCHBOARD_API_TOKEN")
        .output()
        .await
        .expect("run switchboard")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn remote_commands_name_the_token_variable_take_names_and_stop_quietly_on_a_closed_pipe() {
    let (dir, config) = kit::write_mcp_json(json!({"time": kit::time_entry()}));
    let data = dir.path().join("data");
    let gateway = kit::Gateway::start(Path::new(BIN), &[], dir.path(), &config, 1).await;
    let url = gateway.base().to_string();

    let refused = cli(&data, &["status", "--url", &url]).await;
    assert_eq!(refused.status.code(), Some(1));
    let said = text(&refused.stderr);
    assert!(
        said.contains("--token") && said.contains("SWITCHBOARD_API_TOKEN"),
        "{said}"
    );

    let org = ["org", "create", "ops", "--feature", "mcp_external_servers"];
    kit::admin(Path::new(BIN), &data, &org);
    let roles = ["gateway:operate", "integrations:view"];
    let token = kit::api_token(Path::new(BIN), &data, "ops", &roles);
    let by_name = cli(
        &data,
        &[
            "server", "refresh", "time", "--url", &url, "--token", &token,
        ],
    )
    .await;
    assert!(by_name.status.success(), "{}", text(&by_name.stderr));
    assert!(
        text(&by_name.stdout).starts_with("time refresh: ready"),
        "{}",
        text(&by_name.stdout)
    );
    let unknown = cli(
        &data,
        &[
            "server", "refresh", "nope", "--url", &url, "--token", &token,
        ],
    )
    .await;
    assert!(
        text(&unknown.stderr).contains("no server named \"nope\""),
        "{}",
        text(&unknown.stderr)
    );

    // `status --watch | head -1`: the reader goes away, the next event ends the watch quietly.
    let mut watch = tokio::process::Command::new(BIN)
        .args(["status", "--watch", "--url", &url, "--token", &token])
        .env("SWITCHBOARD_DATA", &data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(watch.stdout.take().unwrap()).lines();
    let args = [
        "server", "refresh", "time", "--url", &url, "--token", &token,
    ];
    let refresh = || cli(&data, &args);
    let (first, _) = tokio::join!(lines.next_line(), refresh());
    assert!(first.unwrap().unwrap().starts_with("time"));
    drop(lines);
    let mut stderr = watch.stderr.take().unwrap();
    let status = loop {
        refresh().await;
        if let Some(status) = watch.try_wait().unwrap() {
            break status;
        }
        tokio::task::yield_now().await;
    };
    let mut said = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut said)
        .await
        .unwrap();
    assert!(status.success(), "{status}: {said}");
    assert!(!said.contains("panicked"), "{said}");

    // REST errors: the API's own kinds, and JSON for a bad query string.
    let (status, body) = kit::rest(
        "POST",
        &format!("{url}/api/integrations/mcp/servers/config:time/explode"),
        &token,
        None,
    )
    .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["kind"], "not_found", "{body}");
    let (status, body) =
        kit::rest("GET", &format!("{url}/api/audit?limit=many"), &token, None).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("limit"),
        "{body}"
    );
    let (status, body) = kit::rest("GET", &format!("{url}/api/me"), "sb_unknown", None).await;
    assert_eq!(
        (status, body["error"]["kind"].clone()),
        (401, json!("unauthenticated")),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn call_starts_only_the_server_it_needs_and_summarises_images() {
    let broken = json!({"command": "switchboard-test-no-such-command"});
    let (dir, config) = kit::write_mcp_json(json!({
        "everything": kit::everything_stdio_entry(),
        "broken": broken,
    }));
    let data = dir.path().join("data");
    let config = config.to_str().unwrap();
    let out = cli(&data, &["call", "everything__get-tiny-image", "-c", config]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        !stderr.contains("broken"),
        "the other server was started: {stderr}"
    );
    assert!(
        stdout.contains("[image image/png, ") && stdout.contains("KiB; --json prints the data]"),
        "{stdout}"
    );
    assert!(
        stdout.lines().all(|l| l.len() < 400),
        "base64 printed: {stdout}"
    );
    // --json keeps the data.
    let raw = cli(
        &data,
        &["call", "everything__get-tiny-image", "-c", config, "--json"],
    )
    .await;
    let result: Value = serde_json::from_slice(&raw.stdout).unwrap();
    let image = (result["content"].as_array().unwrap().iter())
        .find(|c| c["type"] == "image")
        .unwrap();
    assert!(image["data"].as_str().unwrap().len() > 100);
    // A name no narrowed server has: every server starts, and the answer is tool_not_found.
    let missing = cli(&data, &["call", "nothing__here", "-c", config]).await;
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains("tool_not_found"),
        "{}",
        text(&missing.stderr)
    );
}

#[tokio::test]
async fn config_check_says_every_known_problem_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, "[policy.scan]\nhigh = \"explode\"\n").unwrap();
    let mcp = dir.path().join("mcp.json");
    let servers = r#"{"mcpServers": {"a": {"args": ["x"]}, "b": {"command": "b", "arg": ["y"]}}}"#;
    std::fs::write(&mcp, servers).unwrap();
    let (toml, mcp) = (toml.to_str().unwrap(), mcp.to_str().unwrap());
    let args = ["config", "check", "--json", "-c", toml, "-c", mcp];
    let out = cli(&dir.path().join("data"), &args).await;
    assert_eq!(out.status.code(), Some(1));
    let checked: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(checked["files"], json!([toml, mcp]));
    let keys: Vec<&str> = (checked["problems"].as_array().unwrap().iter())
        .map(|p| p["key"].as_str().unwrap())
        .collect();
    // The server file's error, the policy's, and the misspelt key, in one run.
    assert_eq!(
        keys,
        [
            "mcpServers.a.command",
            "policy.scan.high",
            "mcpServers.b.arg"
        ],
        "{checked}"
    );
}
