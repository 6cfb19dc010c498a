//! The gateway without config files (issue 14): `serve` and `stdio` in an empty folder start
//! with no config-file servers and say so in one line; `serve --watch` loads an mcp.json created
//! there later; a switchboard.toml holding only settings layers with an mcp.json; an org
//! connects a server over REST to a `serve` started with no files and calls it over MCP.

use rmcp::service::{NotificationContext, RoleClient};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use switchboard_testkit as kit;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const WAIT: Duration = Duration::from_secs(60);

/// Reports `notifications/tools/list_changed`.
struct Client(mpsc::Sender<()>);

impl ClientHandler for Client {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.try_send(());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_in_an_empty_folder_starts_and_loads_an_mcp_json_created_later() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--watch"])
        .current_dir(dir.path())
        .env("SWITCHBOARD_DATA", dir.path().join("data"))
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let (mut url, mut said) = (None, false);
    while let Some(line) = lines.next_line().await.expect("read the log") {
        said |= line.contains("no config file given")
            && line.contains("starting with no config-file servers");
        if let Some(rest) = line.strip_prefix("switchboard listening on ") {
            url = Some(rest.trim().to_string());
        }
        if line.starts_with("switchboard ready: ") {
            assert!(line.contains("0/0"), "{line}");
            break;
        }
    }
    assert!(said, "serve did not say it started without config files");
    let url = url.expect("a listening line");
    let ready = reqwest::get(url.replace("/mcp", "/readyz"))
        .await
        .expect("readyz");
    assert_eq!(ready.status(), 200);
    let (log_tx, mut log) = mpsc::channel::<String>(1024);
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            let _ = log_tx.send(line).await;
        }
    });

    let (changed_tx, mut changed) = mpsc::channel(8);
    let client = Client(changed_tx)
        .serve(StreamableHttpClientTransport::from_uri(url.as_str()))
        .await
        .expect("connect to /mcp");
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.is_empty(), "{tools:?}");

    // An mcp.json created in the folder is picked up by the watch.
    let body = json!({"mcpServers": {"relay": kit::relay_entry()}});
    let tmp = dir.path().join("mcp.json.tmp");
    std::fs::write(&tmp, body.to_string()).expect("write mcp.json");
    std::fs::rename(&tmp, dir.path().join("mcp.json")).expect("rename");
    let names = loop {
        tokio::time::timeout(WAIT, changed.recv())
            .await
            .expect("tools/list_changed after mcp.json appeared")
            .expect("the client is connected");
        let tools = client.list_all_tools().await.expect("tools/list");
        if !tools.is_empty() {
            break tools
                .into_iter()
                .map(|t| t.name.to_string())
                .collect::<Vec<_>>();
        }
    };
    assert!(names.contains(&"relay__pid".to_string()), "{names:?}");
    // At INFO the connection is one line of the gateway's, with its counts, not rmcp's dump
    // of the server's whole `initialize` answer.
    loop {
        let line = log.recv().await.expect("the gateway's log");
        assert!(!line.contains("Service initialized"), "{line}");
        if line.contains("connected") && line.contains("server=relay") && line.contains("tools=") {
            break;
        }
    }
    client.cancel().await.expect("close the session");
}

#[tokio::test(flavor = "multi_thread")]
async fn stdio_in_an_empty_folder_serves_an_empty_catalogue() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut command = Command::new(BIN);
    command
        .arg("stdio")
        .current_dir(dir.path())
        .env("SWITCHBOARD_DATA", dir.path().join("data"))
        .env_remove("SWITCHBOARD_DATABASE_URL");
    let transport = TokioChildProcess::new(command).expect("start stdio");
    let client = ().serve(transport).await.expect("initialize over stdio");
    let info = client.peer_info().expect("server info");
    let name = info.server_info.as_ref().map(|i| i.name.as_str());
    assert_eq!(name, Some("switchboard"));
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.is_empty(), "{tools:?}");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_settings_only_toml_layers_with_an_mcp_json() {
    let (dir, mcp_json) = kit::write_mcp_json(json!({"relay": kit::relay_entry()}));
    let settings = dir.path().join("switchboard.toml");
    std::fs::write(&settings, "[gateway]\nnaming = \"mcp__{server}__{tool}\"\n").expect("write");
    let output = Command::new(BIN)
        .args(["tools", "--json", "-c"])
        .arg(&settings)
        .arg("-c")
        .arg(&mcp_json)
        .env("SWITCHBOARD_DATA", dir.path().join("data"))
        .output()
        .await
        .expect("run tools");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let tools: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let names: Vec<&str> = tools
        .as_array()
        .expect("a list of tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"mcp__relay__pid"), "{names:?}");
}

/// `serve` in an empty folder is a control plane of its own: an org connects a server over
/// REST and calls it over MCP with its API token.
#[tokio::test(flavor = "multi_thread")]
async fn serve_in_an_empty_folder_takes_servers_from_the_rest_api() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (bin, data) = (std::path::Path::new(BIN), dir.path().join("data"));
    let token = kit::acme_integrator(bin, &data);
    let upstream = kit::EverythingHttp::start().await;
    let gateway =
        kit::Gateway::start_without_config(std::path::Path::new(BIN), &["--dev"], dir.path()).await;
    let (url, base) = (gateway.url.clone(), gateway.base().to_string());

    let response = reqwest::Client::new()
        .post(format!("{base}/api/integrations/mcp/servers"))
        .bearer_auth(&token)
        .json(&json!({"name": "Everything", "slug": "everything", "url": upstream.url}))
        .send()
        .await
        .expect("POST a server");
    let status = response.status();
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["status"], "ready", "{body}");

    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (session, _) = kit::post_mcp(&url, Some(&token), None, &init).await;
    let session = session.expect("a session");
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    kit::post_mcp(&url, Some(&token), Some(&session), &done).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "everything__echo", "arguments": {"message": "from an empty folder"}}});
    let (_, answer) = kit::post_mcp(&url, Some(&token), Some(&session), &call).await;
    assert!(answer.contains("Echo: from an empty folder"), "{answer}");
}
