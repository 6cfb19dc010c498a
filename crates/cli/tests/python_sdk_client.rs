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

async fn run_client(args: &[&str]) {
    let output = Command::new(kit::python())
        .arg(kit::client_script("check_gateway.py"))
        .args(args)
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
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_through_the_http_endpoint() {
    let (_dir, path) = config();
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--listen", "127.0.0.1:0", "-c"])
        .arg(&path)
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

    run_client(&["http", &url]).await;

    // Graceful shutdown on SIGTERM: the process exits by itself, successfully.
    let pid = gateway.id().unwrap() as i32;
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = tokio::time::timeout(std::time::Duration::from_secs(20), gateway.wait())
        .await
        .expect("switchboard stops after SIGTERM")
        .unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_through_switchboard_stdio() {
    let (_dir, path) = config();
    run_client(&[
        "stdio",
        env!("CARGO_BIN_EXE_switchboard"),
        path.to_str().unwrap(),
    ])
    .await;
}
