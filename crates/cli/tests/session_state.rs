//! Upstream state that belongs to downstream sessions (rmcp clients on /mcp): resource
//! subscriptions multiplexed across sessions (one upstream subscription per resource however
//! many sessions watch it, kept while any does, ended when the last one unsubscribes or goes
//! away; updates under the URI each session subscribed with), over a stdio and a Streamable
//! HTTP upstream; and stdio servers run once per session (`per_session`).
#![allow(deprecated)] // resources/subscribe: legacy-only from 2026-07-28, what these sessions speak

use rmcp::model::{
    CallToolRequestParams, ResourceUpdatedNotificationParam, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::json;
use std::path::Path;
use std::time::Duration;
use switchboard_testkit as kit;
use tokio::sync::mpsc;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const WAIT: Duration = Duration::from_secs(10);

/// Reports every resource update this session receives.
struct Watcher(mpsc::Sender<String>);

impl ClientHandler for Watcher {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.try_send(params.uri);
    }
}

type Session = RunningService<RoleClient, Watcher>;

async fn session(url: &str) -> (Session, mpsc::Receiver<String>) {
    let (tx, rx) = mpsc::channel(16);
    let session = Watcher(tx)
        .serve(StreamableHttpClientTransport::with_client(
            reqwest::Client::new(),
            StreamableHttpClientTransportConfig::with_uri(url.to_string()),
        ))
        .await
        .expect("an MCP session on /mcp");
    (session, rx)
}

async fn call(session: &Session, tool: &str) -> String {
    let result = session
        .call_tool(CallToolRequestParams::new(tool.to_string()))
        .await
        .expect("tools/call");
    kit::text(&result)
}

/// What the fixture is subscribed to, asked (through `session`) until it reads `want`.
async fn upstream_reads(session: &Session, server: &str, want: &str) -> String {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now = call(session, &format!("{server}__subscriptions")).await;
        if now == want || tokio::time::Instant::now() > deadline {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_share_one_upstream_subscription_per_resource() {
    let (dir, path, _http) = kit::relay_config(json!({})).await;
    let gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &path, 2).await;
    for server in ["relay", "relayh"] {
        // Both servers offer relay://counter: each is exposed under its server's prefix.
        let uri = format!("switchboard://{server}/relay://counter");
        let (a, mut a_updates) = session(&gateway.url).await;
        let (b, mut b_updates) = session(&gateway.url).await;
        let (observer, _) = session(&gateway.url).await;
        for s in [&a, &b] {
            s.subscribe(SubscribeRequestParams::new(uri.clone()))
                .await
                .expect("resources/subscribe");
        }
        assert_eq!(
            call(&a, &format!("{server}__subscriptions")).await,
            "relay://counter"
        );

        call(&a, &format!("{server}__bump")).await;
        for updates in [&mut a_updates, &mut b_updates] {
            let got = tokio::time::timeout(WAIT, updates.recv()).await;
            assert_eq!(got, Ok(Some(uri.clone())), "{server}: each watcher is told");
        }

        // A stops watching; B still does, so the upstream subscription stays.
        a.unsubscribe(UnsubscribeRequestParams::new(uri.clone()))
            .await
            .expect("resources/unsubscribe");
        assert_eq!(
            call(&a, &format!("{server}__subscriptions")).await,
            "relay://counter"
        );
        call(&a, &format!("{server}__bump")).await;
        let got = tokio::time::timeout(WAIT, b_updates.recv()).await;
        assert_eq!(got, Ok(Some(uri.clone())), "{server}: B still watches");

        // B's session goes away without unsubscribing: the last watcher is gone.
        b.cancel().await.expect("close B");
        assert_eq!(upstream_reads(&observer, server, "").await, "", "{server}");
        assert!(
            a_updates.try_recv().is_err(),
            "{server}: A got an update after it unsubscribed"
        );

        // A resource nobody offers is refused with the reason.
        let refused = a
            .subscribe(SubscribeRequestParams::new("relay://nothing"))
            .await
            .expect_err("an unknown resource");
        assert!(
            refused.to_string().contains("no server offers"),
            "{refused}"
        );
        a.cancel().await.unwrap();
        observer.cancel().await.unwrap();
    }
}

/// A `per_session` stdio server: each session calls its own process, which stops when the
/// session ends; the other session's process runs on.
#[tokio::test(flavor = "multi_thread")]
async fn per_session_servers_run_one_process_per_session() {
    let (dir, path) = kit::write_mcp_json(json!({
        "solo": kit::relay_per_session_entry(),
    }));
    let gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &path, 1).await;
    let (a, _) = session(&gateway.url).await;
    let (b, _) = session(&gateway.url).await;
    let pid_a = call(&a, "solo__pid").await;
    let pid_b = call(&b, "solo__pid").await;
    assert_ne!(pid_a, pid_b, "each session has its own process");
    assert_eq!(call(&a, "solo__pid").await, pid_a, "and keeps it");

    a.cancel().await.unwrap();
    assert!(
        kit::wait_for_exit(pid_a.parse().unwrap(), 10_000),
        "session A's process stops with the session"
    );
    assert_eq!(call(&b, "solo__pid").await, pid_b, "B's runs on");
    b.cancel().await.unwrap();
}

/// Roots: a caller's `notifications/roots/list_changed` reaches its own `per_session`
/// process; an upstream asking `roots/list` outside any call gets the operator's
/// `[gateway] roots`.
#[tokio::test(flavor = "multi_thread")]
async fn roots_changes_reach_session_processes_and_operator_roots_answer_outside_calls() {
    let asked_dir = tempfile::tempdir().unwrap();
    let asked = asked_dir.path().join("asked");
    let mut solo = kit::relay_per_session_entry();
    solo["env"] = json!({"RELAY_ROOTS_ASKED": asked});
    let (dir, path) = kit::write_mcp_json(json!({"solo": solo}));
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, "[gateway]\nroots = [\"file:///srv/shared\"]\n").unwrap();
    let args = ["--dev", "-c", toml.to_str().unwrap()];
    let gateway = kit::Gateway::start(Path::new(BIN), &args, dir.path(), &path, 1).await;
    let (a, _) = session(&gateway.url).await;
    assert_eq!(call(&a, "solo__roots_later").await, "asked");
    a.notify_roots_list_changed()
        .await
        .expect("roots/list_changed");
    // No call may be in flight on the server when it asks (it would be that call's).
    let deadline = tokio::time::Instant::now() + WAIT;
    while !asked.exists() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut seen = call(&a, "solo__roots_seen").await;
    while seen != "file:///srv/shared;1" && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        seen = call(&a, "solo__roots_seen").await;
    }
    assert_eq!(seen, "file:///srv/shared;1");
    a.cancel().await.unwrap();
}
