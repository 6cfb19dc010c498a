//! The official MCP Python SDK client calling every upstream through `/mcp` and through
//! `switchboard stdio` (tests/clients/check_gateway.py holds the checks).

use serde_json::json;
use std::process::Stdio;
use switchboard_testkit as kit;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

fn config() -> (tempfile::TempDir, std::path::PathBuf) {
    kit::write_mcp_json(json!({
        "everything": kit::everything_stdio_entry(),
        "time": kit::time_entry(),
        "fx": kit::misbehaving_entry(1500),
    }))
}

async fn run_client(data: &std::path::Path, args: &[&str]) {
    let output = Command::new(kit::python())
        .arg(kit::client_script("check_gateway.py"))
        .args(args)
        .env("SWITCHBOARD_DATA", data)
        .output()
        .await
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.trim_end().ends_with("ok"),
        "client failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    // The SDK ends its session with DELETE and expects 200 or 204 (rmcp's 202 made it say
    // "Session termination failed: 202" on every exit).
    assert!(!stderr.contains("Session termination failed"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_through_the_http_endpoint() {
    let (dir, path) = config();
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--listen", "127.0.0.1:0", "-c"])
        .arg(&path)
        .env("SWITCHBOARD_DATA", dir.path().join("data"))
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start switchboard serve");
    let mut lines = BufReader::new(gateway.stderr.take().unwrap()).lines();
    let mut url = None;
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(rest) = line.strip_prefix("switchboard listening on ") {
            url = Some(rest.trim().to_string());
        }
        if line.starts_with("switchboard ready: ") {
            assert!(line.contains("3/3"), "{line}");
            break;
        }
    }
    let url = url.expect("listening line");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });

    run_client(&dir.path().join("data"), &["http", &url]).await;

    // Graceful shutdown on SIGTERM: the process exits by itself, successfully.
    let pid = gateway.id().unwrap() as i32;
    // SAFETY: sending a signal to our own child process.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(pid, libc::SIGTERM)
    };
    let status = tokio::time::timeout(std::time::Duration::from_secs(20), gateway.wait())
        .await
        .expect("switchboard stops after SIGTERM")
        .unwrap();
    assert!(status.success(), "{status}");
    assert_audited(&dir.path().join("data"), CLIENT_TOOL_CALLS);
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_through_switchboard_stdio() {
    let (dir, path) = config();
    let data = dir.path().join("data");
    run_client(
        &data,
        &[
            "stdio",
            env!("CARGO_BIN_EXE_switchboard"),
            path.to_str().unwrap(),
        ],
    )
    .await;
    assert_audited(&data, CLIENT_TOOL_CALLS);
}

/// Tool calls check_gateway.py makes (resource reads and prompts are not audited).
const CLIENT_TOOL_CALLS: u64 = 8;

/// Every call left a row, the chain verifies, and nothing was lost on shutdown.
fn assert_audited(data: &std::path::Path, calls: u64) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["audit", "verify", "--json", "--data"])
        .arg(data)
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        (&report["ok"], &report["rows"]),
        (&json!(true), &json!(calls))
    );
    // The newest row is the one the checkpoint recorded: nothing was cut from the end.
    assert_eq!(report["head"]["seq"], calls, "{report}");
}
