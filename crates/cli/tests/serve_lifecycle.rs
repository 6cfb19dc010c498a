//! `switchboard serve` keeping calls alive: `--watch` applies edits to mcp.json (servers added,
//! changed, removed) while long calls complete, and SIGTERM lets calls in flight finish.

use rmcp::model::{
    CallToolRequestParams, NumberOrString, ProgressNotificationParam, ProgressToken,
    RequestMetaObject,
};
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use std::time::Duration;
use switchboard_testkit as kit;
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(30);

/// Reports progress notifications and tools/list_changed.
struct Client {
    progress: mpsc::Sender<ProgressNotificationParam>,
    changed: mpsc::Sender<()>,
}

impl ClientHandler for Client {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.progress.try_send(params);
    }
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.try_send(());
    }
}

fn write_config(path: &std::path::Path, servers: Value) {
    // Write then rename, as editors do.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, json!({ "mcpServers": servers }).to_string()).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn fx(marker: &str) -> Value {
    let mut entry = kit::misbehaving_entry(20_000);
    entry["env"] = json!({ "MARKER": marker });
    entry
}

fn slow_call(server: &str, text: &str, token: i64) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(format!("{server}__slow")).with_arguments(
        json!({"count": 3000, "text": text})
            .as_object()
            .unwrap()
            .clone(),
    );
    params.meta = Some(RequestMetaObject::with_progress_token(ProgressToken(
        NumberOrString::Number(token),
    )));
    params
}

type Session = rmcp::service::RunningService<rmcp::RoleClient, Client>;

/// An MCP session on `url`, with its progress notifications and list_changed signals.
async fn connect(
    url: String,
) -> (
    Session,
    mpsc::Receiver<ProgressNotificationParam>,
    mpsc::Receiver<()>,
) {
    let (progress_tx, progress) = mpsc::channel(16);
    let (changed_tx, changed) = mpsc::channel(16);
    let client = Client {
        progress: progress_tx,
        changed: changed_tx,
    }
    .serve(StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        StreamableHttpClientTransportConfig::with_uri(url),
    ))
    .await
    .unwrap();
    (client, progress, changed)
}

/// Starts `switchboard serve ARGS -c CONFIG` and waits until it is ready with `servers`
/// servers; returns the child, the /mcp URL and its log lines.
async fn start_gateway(
    args: &[&str],
    dir: &std::path::Path,
    config: &std::path::Path,
    servers: usize,
) -> (tokio::process::Child, String, mpsc::Receiver<String>) {
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_switchboard"));
    let gateway = kit::Gateway::start(binary, args, dir, config, servers).await;
    (gateway.child, gateway.url, gateway.log)
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_lets_a_call_in_flight_finish() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    write_config(&config, json!({"fx": fx("1")}));
    let (mut gateway, url, _log) = start_gateway(&[], dir.path(), &config, 1).await;
    let (client, mut progress, _changed) = connect(url.clone()).await;
    let peer = client.peer().clone();
    let call = tokio::spawn(async move { peer.call_tool(slow_call("fx", "finished", 1)).await });
    tokio::time::timeout(WAIT, progress.recv())
        .await
        .expect("the slow call started");
    // SAFETY: signalling our own child process.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(gateway.id().unwrap() as i32, libc::SIGTERM)
    };
    // While the call finishes, /readyz tells load balancers to send nothing new.
    let readyz = url.replace("/mcp", "/readyz");
    let drained = tokio::time::timeout(WAIT, async {
        loop {
            let response = reqwest::get(&readyz).await.unwrap();
            if response.status() == 503 {
                return response.text().await.unwrap();
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("readyz says it is shutting down while the call runs");
    assert_eq!(drained, "shutting down");
    let result = call.await.unwrap().expect("the call completes");
    assert_eq!(kit::text(&result), "finished");
    let status = tokio::time::timeout(WAIT, gateway.wait())
        .await
        .expect("the gateway exits")
        .unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test(flavor = "multi_thread")]
async fn editing_a_watched_config_adds_changes_and_removes_servers_without_cutting_calls() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    write_config(
        &config,
        json!({"keep": fx("1"), "change": fx("1"), "gone": fx("1")}),
    );
    let (mut gateway, url, mut log) = start_gateway(&["--watch"], dir.path(), &config, 3).await;

    let (client, mut progress, mut changed) = connect(url).await;

    // Long calls on the server that stays and on the one about to change.
    let peer = client.peer().clone();
    let kept = tokio::spawn({
        let peer = peer.clone();
        async move { peer.call_tool(slow_call("keep", "kept", 1)).await }
    });
    let changing = tokio::spawn({
        let peer = peer.clone();
        async move {
            peer.call_tool(slow_call("change", "old connection", 2))
                .await
        }
    });
    for _ in 0..2 {
        tokio::time::timeout(WAIT, progress.recv())
            .await
            .expect("both slow calls started");
    }

    write_config(
        &config,
        json!({"keep": fx("1"), "change": fx("2"), "added": fx("1")}),
    );
    let tools = tokio::time::timeout(WAIT, async {
        loop {
            changed.recv().await.expect("notifications");
            let tools: Vec<String> = client
                .list_all_tools()
                .await
                .unwrap()
                .into_iter()
                .map(|t| t.name.to_string())
                .collect();
            if tools.iter().any(|t| t.starts_with("added__"))
                && !tools.iter().any(|t| t.starts_with("gone__"))
            {
                return tools;
            }
        }
    })
    .await
    .expect("the edit is applied");
    assert!(tools.iter().any(|t| t == "change__echo"), "{tools:?}");

    let kept = kept.await.unwrap().unwrap();
    assert_eq!(kit::text(&kept), "kept");
    let changing = changing.await.unwrap().unwrap();
    assert_eq!(
        kit::text(&changing),
        "old connection",
        "a changed server's call in flight finishes on the old connection"
    );
    for server in ["added", "change", "keep"] {
        let echoed = client
            .call_tool(
                CallToolRequestParams::new(format!("{server}__echo"))
                    .with_arguments(json!({"text": server}).as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        assert_eq!(kit::text(&echoed), server);
    }
    let gone = client
        .call_tool(CallToolRequestParams::new("gone__echo"))
        .await
        .unwrap();
    assert_eq!(gone.is_error, Some(true));

    // A broken edit is reported and the running configuration stays.
    std::fs::write(&config, "{ not json").unwrap();
    let reported = tokio::time::timeout(WAIT, async {
        loop {
            let line = log.recv().await.expect("switchboard runs");
            if line.contains("config not reloaded") {
                return line;
            }
        }
    })
    .await
    .expect("the broken edit is reported");
    let problem = log.recv().await.unwrap();
    assert!(problem.contains("mcp.json"), "{reported}\n{problem}");
    let still = client
        .call_tool(
            CallToolRequestParams::new("keep__echo")
                .with_arguments(json!({"text": "still"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(kit::text(&still), "still");
    client.cancel().await.unwrap();
    let _ = gateway.kill().await;
}
