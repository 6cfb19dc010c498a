//! Host files unchanged (issue 14): `config discover` finds each host's file under a HOME,
//! and a VS Code file's `${input:ID}` takes its value from `switchboard input set`, or from
//! `SWITCHBOARD_INPUT_<ID>`, all the way to the upstream process.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use switchboard_testkit as kit;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// Runs the binary in `cwd` with `home` as HOME; (success, stdout, stderr).
async fn run(
    cwd: &Path,
    home: &Path,
    args: &[&str],
    stdin: Option<&str>,
    env: &[(&str, &str)],
) -> (bool, String, String) {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("SWITCHBOARD_DATA", cwd.join("data"))
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CODEX_HOME")
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .env_remove("SWITCHBOARD_INPUT_GH_TOKEN")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("start switchboard");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).await.expect("write stdin");
    }
    drop(input);
    let out = child.wait_with_output().await.expect("wait");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn place(home: &Path, rel: &str, fixture: &str) {
    let to = home.join(rel);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../config/fixtures/hosts")
        .join(fixture);
    std::fs::copy(from, to).unwrap();
}

#[tokio::test]
async fn config_discover_lists_each_hosts_file_and_its_servers() {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir_all(&work).unwrap();
    place(&home, ".codex/config.toml", "codex-config.toml");
    place(&home, ".config/zed/settings.json", "zed-settings.json");
    place(&home, ".config/goose/config.yaml", "goose-config.yaml");
    place(&home, ".claude.json", "claude.json");
    place(
        &home,
        ".codeium/windsurf/mcp_config.json",
        "windsurf-mcp_config.json",
    );
    place(&work, ".vscode/mcp.json", "vscode-mcp.json");
    // An editor's settings without MCP servers is not listed.
    std::fs::create_dir_all(home.join(".config/Code/User")).unwrap();
    std::fs::write(
        home.join(".config/Code/User/settings.json"),
        "{\"editor.fontSize\": 13}",
    )
    .unwrap();

    let (ok, out, err) = run(&work, &home, &["config", "discover", "--json"], None, &[]).await;
    assert!(ok, "{err}");
    let found: Value = serde_json::from_str(&out).expect("JSON");
    let files = found["files"].as_array().unwrap();
    let by_host = |host: &str| -> Vec<String> {
        files
            .iter()
            .filter(|f| f["host"] == host)
            .flat_map(|f| f["servers"].as_array().unwrap().iter())
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(by_host("Codex"), ["docs", "figma", "off"]);
    assert_eq!(by_host("Zed"), ["postgres", "older_shape", "remote"]);
    assert_eq!(by_host("Goose"), ["github", "linear"]);
    assert_eq!(by_host("Claude Code"), ["sentry", "time", "db"]);
    assert_eq!(by_host("Windsurf"), ["remote", "local"]);
    assert_eq!(by_host("VS Code"), ["github", "api"]);
    assert_eq!(files.len(), 6, "{out}");
    let vscode = files.iter().find(|f| f["host"] == "VS Code").unwrap();
    assert_eq!(vscode["scope"], "project");
    // Its inputs have no value here: named as problems, with the fix.
    let problems = vscode["problems"].to_string();
    assert!(
        problems.contains("switchboard input set gh-token"),
        "{problems}"
    );

    let (ok, text, err) = run(&work, &home, &["config", "discover"], None, &[]).await;
    assert!(ok, "{err}");
    assert!(text.contains("Codex (user): "), "{text}");
    assert!(
        text.contains("serve them all: switchboard serve -c "),
        "{text}"
    );
}

#[tokio::test]
async fn a_vscode_input_comes_from_the_store_or_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let file = dir.path().join("mcp.json");
    let mut server = kit::everything_stdio_entry();
    server["type"] = json!("stdio");
    server["env"] = json!({"GH_TOKEN": "${input:gh-token}"});
    std::fs::write(
        &file,
        serde_json::to_vec_pretty(&json!({
            "inputs": [{"type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true}],
            "servers": {"everything": server},
        }))
        .unwrap(),
    )
    .unwrap();
    let c = file.to_str().unwrap();
    let cwd = dir.path();

    let (ok, out, _) = run(
        cwd,
        &home,
        &["config", "check", "-c", c, "--json"],
        None,
        &[],
    )
    .await;
    assert!(!ok, "an input without a value is an error: {out}");
    let check: Value = serde_json::from_str(&out).unwrap();
    let problem = &check["problems"][0];
    assert_eq!(
        problem["key"], "servers.everything.env.GH_TOKEN",
        "{problem}"
    );
    assert!(
        problem["fix"]
            .as_str()
            .unwrap()
            .contains("switchboard input set gh-token")
    );

    let secret = "s3cret-from-the-store";
    let (ok, out, err) = run(
        cwd,
        &home,
        &["input", "set", "gh-token"],
        Some(&format!("{secret}\n")),
        &[],
    )
    .await;
    assert!(ok, "{err}");
    assert!(
        !out.contains(secret) && !err.contains(secret),
        "the value is never echoed"
    );
    let (ok, out, _) = run(cwd, &home, &["input", "list", "--json"], None, &[]).await;
    assert!(ok && !out.contains(secret), "{out}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["inputs"][0]["id"],
        "gh-token"
    );
    let stored = std::fs::read(cwd.join("data/switchboard.db")).unwrap_or_default();
    assert!(
        !String::from_utf8_lossy(&stored).contains(secret),
        "the value is sealed in the store"
    );

    let (ok, out, err) = run(cwd, &home, &["config", "check", "-c", c], None, &[]).await;
    assert!(ok, "{out}{err}");
    // The upstream process gets the stored value; the environment overrides it.
    let get_env = ["call", "everything__get-env", "-c", c, "--json"];
    let (ok, out, err) = run(cwd, &home, &get_env, None, &[]).await;
    assert!(ok, "{err}");
    assert!(out.contains(secret), "{out}");
    let (ok, out, err) = run(
        cwd,
        &home,
        &get_env,
        None,
        &[("SWITCHBOARD_INPUT_GH_TOKEN", "from-env")],
    )
    .await;
    assert!(ok, "{err}");
    assert!(out.contains("from-env") && !out.contains(secret), "{out}");

    let (ok, _, _) = run(cwd, &home, &["input", "remove", "gh-token"], None, &[]).await;
    assert!(ok);
    let (ok, _, err) = run(cwd, &home, &["input", "remove", "gh-token"], None, &[]).await;
    assert!(!ok && err.contains("no stored input gh-token"), "{err}");
}
