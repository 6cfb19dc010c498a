//! A server on a revision before 2026-07-28 is told what its client can answer once, at
//! `initialize`: callers who can answer other things than the gateway's shared session declares
//! get an upstream session of their own set (tests/fixtures/relay_server.py reports what its
//! session declared and its process id), over HTTP and, where the operator allows it, as a stdio
//! process of their own; bounded per server, counted in /metrics and closed when unused.

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitationCapability,
    FormElicitationCapability, Implementation, UrlElicitationCapability,
};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// An MCP client that declares `capabilities` (and answers nothing: no tool here asks).
#[derive(Clone)]
struct Declares(ClientCapabilities);

impl ClientHandler for Declares {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(self.0.clone(), Implementation::new("probe", "1"))
    }
}

#[allow(deprecated)] // sampling and roots: deprecated by 2026-07-28, what these servers use
fn everything() -> ClientCapabilities {
    let mut caps = ClientCapabilities::default();
    caps.sampling = Some(Default::default());
    caps.roots = Some(Default::default());
    caps.elicitation = Some(
        ElicitationCapability::new()
            .with_form(FormElicitationCapability::new())
            .with_url(UrlElicitationCapability::new()),
    );
    caps
}

#[allow(deprecated)]
fn sampling_only() -> ClientCapabilities {
    let mut caps = ClientCapabilities::default();
    caps.sampling = Some(Default::default());
    caps
}

async fn client(url: &str, caps: ClientCapabilities) -> RunningService<RoleClient, Declares> {
    Declares(caps)
        .serve(StreamableHttpClientTransport::from_uri(url.to_string()))
        .await
        .expect("an MCP session")
}

/// What `server`'s session declared, and its process id, as this client's calls see.
async fn seen_on(client: &RunningService<RoleClient, Declares>, server: &str) -> (Value, String) {
    let call =
        |tool: &str| client.call_tool(CallToolRequestParams::new(format!("{server}__{tool}")));
    let caps = kit::text(&call("client_caps").await.unwrap());
    let pid = kit::text(&call("pid").await.unwrap());
    (serde_json::from_str(&caps).unwrap(), pid)
}

/// The same on the stdio server.
async fn seen(client: &RunningService<RoleClient, Declares>) -> (Value, String) {
    seen_on(client, "relay").await
}

async fn open_sessions(gateway: &kit::Gateway) -> f64 {
    open_sessions_of(gateway, "relay").await
}

async fn open_sessions_of(gateway: &kit::Gateway, server: &str) -> f64 {
    let text = reqwest::get(format!("{}/metrics", gateway.base()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let line = format!("switchboard_upstream_capability_sessions{{server=\"{server}\",org=\"\"}} ");
    (text.lines())
        .find_map(|l| l.strip_prefix(line.as_str()))
        .map_or(0.0, |v| v.parse().unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn callers_who_can_answer_other_things_get_a_session_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let http = kit::Served::start(
        &kit::python(),
        &[kit::relay_server().to_str().unwrap(), "http"],
    )
    .await;
    let settings = "[limits]\ncapability_sessions_per_server = 1\n\
        capability_sessions_per_stdio_server = 1\ncapability_session_idle_secs = 3\n";
    let config = kit::relay_toml(dir.path(), settings);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!("[servers.relayh]\nurl = \"{}\"\n", http.url));
    std::fs::write(&config, text).unwrap();
    let mut gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &config, 2).await;
    gateway.ignore_log();

    // A caller that can answer everything the gateway relays shares the gateway's session.
    let full = client(&gateway.url, everything()).await;
    let (caps, shared_pid) = seen(&full).await;
    for declared in ["elicitation", "sampling", "roots"] {
        assert!(caps.get(declared).is_some(), "{declared} in {caps}");
    }
    assert_eq!(open_sessions(&gateway).await, 0.0);

    // A caller that can answer nothing gets a session that declares nothing: the server
    // knows not to ask it.
    let bare = client(&gateway.url, ClientCapabilities::default()).await;
    let (caps, bare_pid) = seen(&bare).await;
    assert_eq!(caps, serde_json::json!({}), "{caps}");
    assert_ne!(bare_pid, shared_pid, "one process per capability set");
    assert_eq!(open_sessions(&gateway).await, 1.0);
    // The shared session is still the shared one.
    assert_eq!(seen(&full).await.1, shared_pid);
    // A remote server gets a session of the set too, in its one process.
    let (caps, http_pid) = seen_on(&full, "relayh").await;
    assert!(caps.get("elicitation").is_some(), "{caps}");
    assert_eq!(
        seen_on(&bare, "relayh").await,
        (serde_json::json!({}), http_pid)
    );
    assert_eq!(open_sessions_of(&gateway, "relayh").await, 1.0);

    // Past the bound (one set per server here), a caller gets the open session that asks it
    // nothing it cannot answer: sampling-only is served by the one that declares nothing.
    let sampling = client(&gateway.url, sampling_only()).await;
    assert_eq!(
        seen(&sampling).await,
        (serde_json::json!({}), bare_pid.clone())
    );
    assert_eq!(open_sessions(&gateway).await, 1.0);

    // Unused for three seconds, the session is closed and its process stopped; the next call
    // starts another.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while open_sessions(&gateway).await != 0.0 {
        assert!(tokio::time::Instant::now() < deadline, "never closed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pid: i32 = bare_pid.parse().unwrap();
    assert!(kit::wait_for_exit(pid, 10_000), "process {pid} still runs");
    let (caps, again) = seen(&bare).await;
    assert_eq!(caps, serde_json::json!({}));
    assert_ne!(again, bare_pid);
    for c in [full, bare, sampling] {
        c.cancel().await.ok();
    }
}
