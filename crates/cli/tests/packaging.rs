//! What a production user expects of the binary (issue 38): `--version` and `/version` name the
//! commit, shell completions load in the shells, SIGHUP reads the config again, and the audit
//! log is listed, followed and exported as JSON lines whose hashes chain.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// The commit this checkout is at, as the build names it (`unknown` without git).
fn head_commit() -> String {
    let out = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(kit::repo_root())
        .output();
    match out {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        _ => "unknown".into(),
    }
}

fn run(data: &Path, args: &[&str]) -> (bool, String, String) {
    let (code, out, err) = kit::run_cli(Path::new(BIN), data, args);
    (code == 0, out, err)
}

#[tokio::test(flavor = "multi_thread")]
async fn version_names_the_commit_and_completions_load_in_each_shell() {
    let dir = tempfile::tempdir().unwrap();
    let commit = head_commit();
    let (ok, version, _) = run(dir.path(), &["--version"]);
    assert!(ok);
    let expected = format!(
        "switchboard {} (commit {commit})",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(version.trim(), expected);

    for shell in ["bash", "zsh", "fish"] {
        let (ok, script, err) = run(dir.path(), &["completions", shell]);
        assert!(ok, "{shell}: {err}");
        for word in ["serve", "audit", "completions"] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
        let file = dir.path().join(format!("switchboard.{shell}"));
        std::fs::write(&file, &script).unwrap();
        // Read by the shell itself: bash registers the completion, zsh and fish parse it.
        let check = match shell {
            "bash" => format!("source {} && complete -p switchboard", file.display()),
            "zsh" => format!("zsh -n {}", file.display()),
            _ => format!("fish --no-execute {}", file.display()),
        };
        // scripts/fixtures.sh installs zsh and fish.
        let program = if shell == "bash" { "bash" } else { "sh" };
        let out = Command::new(program).args(["-c", &check]).output().unwrap();
        assert!(
            out.status.success(),
            "{shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // The running gateway says the same on /version.
    let (dir, config) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(10_000)}));
    let gateway = kit::Gateway::start(Path::new(BIN), &[], dir.path(), &config, 1).await;
    let answer: Value = reqwest::get(format!("{}/version", gateway.base()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        answer,
        json!({"name": "switchboard", "version": version, "commit": commit})
    );
    gateway.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sighup_reads_the_config_again_and_the_audit_log_leaves_as_json_lines() {
    let (dir, config) = kit::write_mcp_json(json!({"fx": kit::misbehaving_entry(10_000)}));
    let gateway = kit::Gateway::start(Path::new(BIN), &[], dir.path(), &config, 1).await;
    let url = gateway.url.clone();
    assert!(
        !kit::tool_names(&url, None)
            .await
            .iter()
            .any(|n| n.starts_with("fy__"))
    );
    // A second server in the file, then SIGHUP (what `systemctl reload` sends).
    let both = json!({"mcpServers": {
        "fx": kit::misbehaving_entry(10_000),
        "fy": kit::misbehaving_entry(10_000),
    }});
    std::fs::write(&config, both.to_string()).unwrap();
    let pid = gateway.child.id().expect("a running gateway").to_string();
    let sent = Command::new("kill").args(["-HUP", &pid]).status().unwrap();
    assert!(sent.success());
    kit::eventually("the new server's tools after SIGHUP", async || {
        kit::tool_names(&url, None)
            .await
            .iter()
            .any(|n| n.starts_with("fy__"))
    })
    .await;
    gateway.stop().await;

    // Three audited calls, then the log read back three ways.
    let data = dir.path().join("data");
    let config_arg = config.to_string_lossy().into_owned();
    for text in ["one", "two", "three"] {
        let args = json!({"text": text}).to_string();
        let (ok, _, err) = run(
            &data,
            &["call", "fx__echo", "--args", &args, "-c", &config_arg],
        );
        assert!(ok, "{err}");
    }
    let lines = |text: &str| -> Vec<Value> {
        (text.lines())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}")))
            .collect()
    };
    let (ok, listed, err) = run(
        &data,
        &["audit", "list", "--json", "--action", "mcp.fx.echo"],
    );
    assert!(ok, "{err}");
    let listed = lines(&listed);
    assert_eq!(listed.len(), 3, "{listed:?}");
    let (ok, table, _) = run(&data, &["audit", "list", "--limit", "2"]);
    assert!(ok && table.starts_with("SEQ"), "{table}");
    assert_eq!(table.lines().count(), 1 + 2, "{table}");

    // The export chains: each row names the hash of the one before; `--after` resumes.
    let file = dir.path().join("audit.jsonl");
    let file_arg = file.to_string_lossy().into_owned();
    let (ok, _, said) = run(&data, &["audit", "export", "-o", &file_arg]);
    assert!(ok, "{said}");
    let exported = lines(&std::fs::read_to_string(&file).unwrap());
    assert!(exported.len() >= 3, "{exported:?}");
    for pair in exported.windows(2) {
        assert_eq!(pair[1]["prev_hash"], pair[0]["hash"], "{pair:?}");
        assert_eq!(
            pair[1]["seq"].as_i64(),
            pair[0]["seq"].as_i64().map(|s| s + 1)
        );
    }
    let last = exported.last().unwrap()["seq"].as_i64().unwrap();
    assert!(said.contains(&format!("--after {last}")), "{said}");
    let after = (last - 1).to_string();
    let (ok, rest, _) = run(&data, &["audit", "export", "--after", &after]);
    assert!(ok);
    assert_eq!(lines(&rest), exported[exported.len() - 1..].to_vec());

    // `tail` prints the newest rows, then each row as it is written.
    let mut tail = Command::new(BIN)
        .args(["audit", "tail", "--json", "--lines", "1"])
        .env("SWITCHBOARD_DATA", &data)
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(tail.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&out.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["seq"].as_i64(), Some(last));
    let args = json!({"text": "four"}).to_string();
    let (ok, _, err) = run(
        &data,
        &["call", "fx__echo", "--args", &args, "-c", &config_arg],
    );
    assert!(ok, "{err}");
    // The call's row comes next (after any other row the call wrote first).
    let mut seen = Vec::new();
    for line in out.by_ref().take(5) {
        let row: Value = serde_json::from_str(&line.unwrap()).unwrap();
        let echo = row["action_id"] == "mcp.fx.echo";
        seen.push(row);
        if echo {
            break;
        }
    }
    let echo = seen.last().unwrap();
    assert_eq!(echo["action_id"], "mcp.fx.echo", "{seen:?}");
    assert!(echo["seq"].as_i64() > Some(last), "{seen:?}");
    let _ = tail.kill();
    let _ = tail.wait();
}
