//! Two `switchboard serve` processes on one Postgres act as one service: a server connected
//! through one is callable through the other (LISTEN/NOTIFY), an MCP session begun on one is
//! served by the other (no sticky sessions), scheduled jobs run on one replica only, and both
//! append to one audit chain.

use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::{Duration, Instant};
use switchboard_testkit as kit;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

const MASTER_KEY: &str = "6b1f0e8d2c4a59371e0f6d8c2b4a6e9f0d1c3b5a7e9f1d3c5b7a9e0f2d4c6b8a";
const WAIT: Duration = Duration::from_secs(30);

struct Env {
    schema: kit::TestSchema,
    data: tempfile::TempDir,
    config: std::path::PathBuf,
}

impl Env {
    async fn new() -> Self {
        let schema = kit::TestSchema::create("replicas").await;
        let data = tempfile::tempdir().unwrap();
        // Settings only: the servers come from the REST API.
        let config = data.path().join("switchboard.toml");
        std::fs::write(&config, "[gateway]\nnaming = \"{server}__{tool}\"\n").unwrap();
        Self {
            schema,
            data,
            config,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
        command
            .args(args)
            .arg("-c")
            .arg(&self.config)
            .env("SWITCHBOARD_DATABASE_URL", &self.schema.url)
            .env("SWITCHBOARD_MASTER_KEY", MASTER_KEY)
            .env("SWITCHBOARD_DATA", self.data.path())
            .env_remove("RUST_LOG");
        command
    }

    async fn run(&self, args: &[&str]) -> String {
        let out = self.command(args).output().await.unwrap();
        assert!(
            out.status.success(),
            "switchboard {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// One `switchboard serve`; its log lines arrive on `log`.
struct Replica {
    base: String,
    log: mpsc::Receiver<String>,
    child: Child,
}

impl Replica {
    async fn start(env: &Env) -> Self {
        let mut child = env
            .command(&[
                "serve",
                "--dev",
                "--listen",
                "127.0.0.1:0",
                "--log",
                "info,switchboard_server=debug",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start switchboard serve");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let (tx, mut log) = mpsc::channel(1024);
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                if tx.send(line).await.is_err() {
                    break;
                }
            }
        });
        let mut base = None;
        loop {
            let line = next_line(&mut log).await;
            if let Some(url) = line.strip_prefix("switchboard listening on ") {
                base = Some(url.trim().trim_end_matches("/mcp").to_string());
            }
            if line.starts_with("switchboard ready: ") {
                break;
            }
        }
        Self {
            base: base.expect("a listening line"),
            log,
            child,
        }
    }

    /// Stops it as an operator would (SIGTERM) and waits for a clean exit.
    async fn stop(mut self) {
        let pid = self.child.id().expect("running") as i32;
        // SAFETY: sending a signal to our own child process.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(pid, libc::SIGTERM)
        };
        let status = tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("switchboard stops after SIGTERM")
            .unwrap();
        assert!(status.success(), "{status}");
    }

    /// Waits for a log line containing `needle` and returns it.
    async fn wait_for(&mut self, needle: &str) -> String {
        loop {
            let line = next_line(&mut self.log).await;
            if line.contains(needle) {
                return line;
            }
        }
    }
}

async fn next_line(log: &mut mpsc::Receiver<String>) -> String {
    tokio::time::timeout(WAIT, log.recv())
        .await
        .expect("switchboard went quiet")
        .expect("switchboard exited")
}

/// An MCP client that reports `tools/list_changed` notifications.
struct Watcher(mpsc::Sender<Instant>);

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.try_send(Instant::now());
    }
}

/// One JSON-RPC message over raw HTTP, as a load balancer would forward it; returns the
/// session id the answer carries and the answer (from JSON or from an SSE `data:` line).
async fn raw_rpc(
    url: &str,
    token: &str,
    session: Option<&str>,
    message: Value,
) -> (Option<String>, Value) {
    let (session, text) = kit::post_mcp(url, Some(token), session, &message).await;
    let answer = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .chain(std::iter::once(text.as_str()))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("id").is_some())
        .unwrap_or(Value::Null);
    (session, answer)
}

#[tokio::test(flavor = "multi_thread")]
async fn two_replicas_on_one_postgres_act_as_one_service() {
    let upstream = kit::EverythingHttp::start().await;
    let env = Env::new().await;
    env.run(&["org", "create", "acme", "--feature", "mcp_external_servers"])
        .await;
    let token = env
        .run(&[
            "token",
            "create",
            "--org",
            "acme",
            "--role",
            "integrations:manage",
            "--role",
            "integrations:view",
        ])
        .await
        .trim()
        .to_string();
    let mut a = Replica::start(&env).await;
    let mut b = Replica::start(&env).await;

    // Scheduled jobs: both replicas tick at start-up; exactly one runs the refresh.
    let first = a.wait_for("refresh_servers").await;
    let second = b.wait_for("refresh_servers").await;
    let ran: Vec<&String> = [&first, &second]
        .into_iter()
        .filter(|l| l.contains("ran here"))
        .collect();
    assert_eq!(
        ran.len(),
        1,
        "exactly one replica runs it:\n{first}\n{second}"
    );

    // An agent watches B before the server exists anywhere.
    let (changed_tx, mut changed) = mpsc::channel(16);
    let mut config =
        StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp/agents/bot", b.base));
    config.auth_header = Some(token.clone());
    let agent_on_b = Watcher(changed_tx)
        .serve(StreamableHttpClientTransport::with_client(
            reqwest::Client::new(),
            config,
        ))
        .await
        .expect("an MCP session with B");
    assert!(agent_on_b.list_all_tools().await.unwrap().is_empty());

    // Connected through A ...
    let (status, created) = kit::rest(
        "POST",
        &format!("{}/api/integrations/mcp/servers", a.base),
        &token,
        Some(json!({"name": "Everything", "slug": "everything", "url": upstream.url})),
    )
    .await;
    let connected_at = Instant::now();
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["status"], "ready", "{created}");
    let id = created["id"].as_str().unwrap().to_string();

    // ... B hears of it and says so to its downstream session.
    let heard_at = tokio::time::timeout(WAIT, changed.recv())
        .await
        .expect("B announces the new server's tools")
        .unwrap();
    eprintln!(
        "propagation A → B (NOTIFY, B connects and discovers, list_changed): {:?}",
        heard_at.duration_since(connected_at)
    );
    let (status, _) = kit::rest(
        "PUT",
        &format!("{}/api/agents/bot/actions/mcp.everything.echo", b.base),
        &token,
        Some(json!({"enabled": true})),
    )
    .await;
    assert_eq!(status, 200, "B knows the action");
    let names: Vec<String> = agent_on_b
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["everything__echo"]);
    let echoed = agent_on_b
        .call_tool(
            CallToolRequestParams::new("everything__echo")
                .with_arguments(json!({"message": "via B"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert!(kit::text(&echoed).contains("via B"), "{echoed:?}");

    // No sticky sessions: a session begun on A carries on at B, request by request.
    let agent_url = |r: &Replica| format!("{}/mcp/agents/bot", r.base);
    let (session, init) = raw_rpc(
        &agent_url(&a),
        &token,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "lb-test", "version": "1"}}}),
    )
    .await;
    assert_eq!(
        init["result"]["serverInfo"]["name"], "switchboard",
        "{init}"
    );
    let session = session.expect("A opens a session");
    raw_rpc(
        &agent_url(&b),
        &token,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let (_, listed) = raw_rpc(
        &agent_url(&b),
        &token,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    assert_eq!(
        listed["result"]["tools"][0]["name"], "everything__echo",
        "{listed}"
    );
    let (_, called) = raw_rpc(
        &agent_url(&a),
        &token,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "everything__echo", "arguments": {"message": "back on A"}}}),
    )
    .await;
    assert!(called.to_string().contains("back on A"), "{called}");

    // The same holds for the aggregated endpoint.
    let init_params = json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "lb-test", "version": "1"}});
    let (session, _) = raw_rpc(
        &format!("{}/mcp", a.base),
        &token,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init_params}),
    )
    .await;
    let (_, listed) = raw_rpc(
        &format!("{}/mcp", b.base),
        &token,
        Some(&session.expect("A opens a session")),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");

    // Operated from the CLI through A: B follows.
    let disabled = env
        .run(&[
            "server", "disable", &id, "--url", &a.base, "--token", &token, "--json",
        ])
        .await;
    let disabled: Value = serde_json::from_str(&disabled).unwrap();
    assert_eq!(disabled["status"], "disabled", "{disabled}");
    b.wait_for("applied a change from another replica").await;
    let (status, body) = kit::rest(
        "POST",
        &format!(
            "{}/api/agents/bot/actions/mcp.everything.echo/invoke",
            b.base
        ),
        &token,
        Some(json!({"arguments": {"message": "off"}})),
    )
    .await;
    assert_eq!(status, 404, "disabled on B too: {body}");
    env.run(&["server", "enable", &id, "--url", &a.base, "--token", &token])
        .await;
    b.wait_for("applied a change from another replica").await;
    let listed = env
        .run(&["status", "--url", &b.base, "--token", &token, "--json"])
        .await;
    let listed: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["status"], "ready", "{listed}");
    let table = env
        .run(&["status", "--url", &b.base, "--token", &token])
        .await;
    assert!(
        table.starts_with("NAME") && table.contains("everything"),
        "{table}"
    );

    // Removed through B (from the terminal): gone from A too.
    let removed = env
        .run(&[
            "server", "remove", &id, "--url", &b.base, "--token", &token, "--json",
        ])
        .await;
    let removed: Value = serde_json::from_str(&removed).unwrap();
    assert_eq!(removed["status"], "deleted", "{removed}");
    a.wait_for("applied a change from another replica").await;
    let (status, body) = kit::rest(
        "POST",
        &format!(
            "{}/api/agents/bot/actions/mcp.everything.echo/invoke",
            a.base
        ),
        &token,
        Some(json!({"arguments": {"message": "gone"}})),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    agent_on_b.cancel().await.unwrap();

    // Both replicas appended to one chain, and it verifies.
    a.stop().await;
    b.stop().await;
    let verified = env.run(&["audit", "verify", "--json"]).await;
    let verified: Value = serde_json::from_str(&verified).unwrap();
    assert_eq!(verified["ok"], true, "{verified}");
    assert!(verified["rows"].as_u64().unwrap() >= 4, "{verified}");
    env.schema.remove().await;
}
