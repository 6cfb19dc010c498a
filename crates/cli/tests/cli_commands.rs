//! The CLI as a user runs it: exit codes, tables, --json, error kinds and config problems.

use serde_json::{Value, json};
use std::process::{Command, Output};
use switchboard_testkit as kit;

fn switchboard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(args)
        .output()
        .expect("run switchboard")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn test_prints_a_table_and_exits_1_when_a_server_fails() {
    let (_dir, path) = kit::write_mcp_json(json!({
        "time": kit::time_entry(),
        "broken": {"command": "/nonexistent/server"},
    }));
    let out = switchboard(&["test", "-c", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(table.starts_with("NAME"), "{table}");
    let time = table.lines().find(|l| l.starts_with("time")).unwrap();
    assert!(
        time.contains("stdio") && time.contains("ready") && time.contains(" 2 "),
        "{time}"
    );
    let broken = table.lines().find(|l| l.starts_with("broken")).unwrap();
    assert!(
        broken.contains("error") && broken.contains("/nonexistent/server"),
        "{broken}"
    );

    let one = switchboard(&["test", "time", "-c", path.to_str().unwrap(), "--json"]);
    assert!(one.status.success(), "{}", stderr(&one));
    let reports: Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(reports[0]["name"], "time");
    assert_eq!(reports[0]["status"], "ready");
    assert_eq!(reports.as_array().unwrap().len(), 1);

    let missing = switchboard(&["test", "nope", "-c", path.to_str().unwrap()]);
    assert!(!missing.status.success());
    assert!(stderr(&missing).contains("no server named \"nope\""));
}

#[test]
fn tools_lists_exposed_names_with_server_and_description() {
    let (_dir, path) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(5000)}));
    let out = switchboard(&["tools", "-c", path.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    let echo = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "fx__echo")
        .unwrap();
    assert_eq!(echo["server"], "fx");
    assert_eq!(echo["action_id"], "mcp.fx.echo");
    assert_eq!(echo["description"], "Echoes text back");

    let naming = switchboard(&[
        "tools",
        "-c",
        path.to_str().unwrap(),
        "--naming",
        "mcp__{server}__{tool}",
    ]);
    assert!(
        stdout(&naming).contains("mcp__fx__echo"),
        "{}",
        stdout(&naming)
    );
}

#[test]
fn call_prints_the_result_or_exits_non_zero_with_the_kind() {
    let (_dir, path) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(1000)}));
    let cfg = path.to_str().unwrap();
    let ok = switchboard(&[
        "call",
        "fx__echo",
        "--args",
        r#"{"text":"hello"}"#,
        "-c",
        cfg,
    ]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert_eq!(stdout(&ok).trim(), "hello");

    let user = switchboard(&["call", "fx__meta", "--end-user", "u-1", "-c", cfg]);
    let meta: Value = serde_json::from_str(stdout(&user).trim()).unwrap();
    assert_eq!(meta["bound_end_user_id"], "u-1");

    let timeout = switchboard(&["call", "fx__hang", "-c", cfg]);
    assert_eq!(timeout.status.code(), Some(1));
    assert!(
        stderr(&timeout).contains("error: timeout:"),
        "{}",
        stderr(&timeout)
    );

    let missing = switchboard(&["call", "fx__nope", "-c", cfg, "--json"]);
    assert_eq!(missing.status.code(), Some(1));
    let line = stderr(&missing).lines().last().unwrap().to_string();
    let err: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(err["error"]["kind"], "tool_not_found");

    let bad_args = switchboard(&["call", "fx__echo", "--args", "{not json", "-c", cfg]);
    assert_eq!(bad_args.status.code(), Some(1));
    assert!(
        stderr(&bad_args).contains("invalid_request"),
        "{}",
        stderr(&bad_args)
    );
}

#[test]
fn config_check_points_at_file_line_and_fix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        "{\n  \"mcpServers\": {\n    \"ctx\": {\n      \"url\": \"https://c.test/mcp\",\n      \"headers\": {\"X-Key\": \"{env:ctx7sk-abc}\"}\n    }\n  }\n}\n",
    )
    .unwrap();
    let out = switchboard(&["config", "check", "-c", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "{}:5: error: mcpServers.ctx.headers.X-Key",
            path.display()
        )),
        "{text}"
    );
    assert!(text.contains("fix:"), "{text}");

    let json_out = switchboard(&["config", "check", "-c", path.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["problems"][0]["line"], 5);

    let (_d, good) = kit::write_mcp_json(json!({"time": kit::time_entry()}));
    let ok = switchboard(&["config", "check", "-c", good.to_str().unwrap()]);
    assert!(ok.status.success());
    assert!(stdout(&ok).contains("ok: 1 server(s)"), "{}", stdout(&ok));
}

#[test]
fn later_config_files_win() {
    let (_a, global) = kit::write_mcp_json(json!({"fx": {"command": "/nonexistent/old"}}));
    let (_b, workspace) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(5000)}));
    let out = switchboard(&[
        "test",
        "-c",
        global.to_str().unwrap(),
        "-c",
        workspace.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
}

#[test]
fn serving_off_loopback_without_a_token_is_refused() {
    let (_dir, path) = kit::write_mcp_json(json!({"time": kit::time_entry()}));
    let out = switchboard(&[
        "serve",
        "--listen",
        "0.0.0.0:0",
        "-c",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("[gateway] token"), "{}", stderr(&out));
}
