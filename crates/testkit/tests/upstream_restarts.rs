//! Remote upstreams that restart, go away, or cut a call's stream (issue 30), with real SDK
//! servers over HTTP: an upstream that forgot the session (the Python SDK's 404, the
//! TypeScript SDK examples' 400) is re-initialized and the call sent once more; one that is
//! down puts its server in `error`, a call tries it again at once and a background reconnect
//! brings it back by itself; a call whose stream breaks after the upstream took it is never
//! sent again (counted on the upstream's side).

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use switchboard_config::load_with_env;
use switchboard_core::{ErrorKind, ServerStatus};
use switchboard_registry::{CallOptions, Registry, RegistryOptions, ServerInfo};
use switchboard_testkit as kit;
use switchboard_testkit::proxy::TcpProxy;

/// The counting fixture (Python SDK) on `port`, counting into `counts`.
async fn counting(port: u16, counts: &Path) -> kit::Served {
    let script = kit::counting_http_server();
    let args = [
        script.to_str().expect("a UTF-8 path"),
        &port.to_string(),
        counts.to_str().expect("a UTF-8 path"),
    ];
    kit::Served::start(&kit::python(), &args).await
}

/// A scratch folder and the counting fixture's file in it.
fn counts_file() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let counts = dir.path().join("runs.json");
    (dir, counts)
}

/// How often each of the counting fixture's tools ran, read from its file.
fn runs(counts: &Path) -> Value {
    std::fs::read_to_string(counts)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| json!({}))
}

async fn registry_with(servers: Value) -> (Registry, tempfile::TempDir) {
    let (dir, path) = kit::write_mcp_json(servers);
    let registry = Registry::new(RegistryOptions::default().with_dev(true));
    registry
        .apply_config(&load_with_env(&[path], &|_| None).unwrap())
        .await;
    (registry, dir)
}

async fn call(
    registry: &Registry,
    tool: &str,
    args: Value,
) -> Result<String, switchboard_core::CallError> {
    registry
        .call_tool(tool, Some(args), CallOptions::default())
        .await
        .map(|r| kit::text(&r))
}

fn info(registry: &Registry, server: &str) -> ServerInfo {
    registry.server(server).expect("configured")
}

/// Waits (at most a minute) until `server` is announced in `status`.
async fn announced(
    updates: &mut tokio::sync::broadcast::Receiver<ServerInfo>,
    server: &str,
    status: ServerStatus,
) -> ServerInfo {
    let wait = async {
        loop {
            match updates.recv().await {
                Ok(info) if info.name == server && info.status == status => return info,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("status updates ended: {e}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .unwrap_or_else(|_| panic!("{server} was not {status:?} within a minute"))
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_that_restarts_is_reinitialized_and_the_first_call_after_succeeds() {
    let (_dir, counts) = counts_file();
    let (py_port, ev_port) = (kit::free_port(), kit::free_port());
    let python = counting(py_port, &counts).await;
    let everything = kit::EverythingHttp::start_on(ev_port).await;
    let (registry, _config) = registry_with(json!({
        "py": {"type": "http", "url": python.url},
        "ev": {"type": "http", "url": everything.url},
    }))
    .await;
    assert_eq!(
        call(&registry, "py__echo", json!({"text": "a"}))
            .await
            .unwrap(),
        "a"
    );
    let before = call(&registry, "ev__echo", json!({"message": "a"})).await;
    assert_eq!(before.unwrap(), "Echo: a");

    // Both restart and forget every session: the Python SDK answers the old session 404,
    // server-everything (the TypeScript SDK's example code) 400 without a request id.
    python.stop().await;
    everything.stop().await;
    let _python = counting(py_port, &counts).await;
    let _everything = kit::EverythingHttp::start_on(ev_port).await;

    let after = call(&registry, "py__echo", json!({"text": "b"})).await;
    assert_eq!(after.expect("re-initialized and sent once more"), "b");
    let after = call(&registry, "ev__echo", json!({"message": "b"})).await;
    assert_eq!(after.expect("re-initialized and sent once more"), "Echo: b");
    assert_eq!(info(&registry, "py").status, ServerStatus::Ready);
    assert_eq!(info(&registry, "ev").status, ServerStatus::Ready);
    // Refused for an unknown session, the call did not run: each ran exactly once.
    assert_eq!(runs(&counts), json!({"echo": 2}));
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_that_is_down_is_in_error_and_the_first_call_after_it_is_back_succeeds() {
    let (_dir, counts) = counts_file();
    let port = kit::free_port();
    let python = counting(port, &counts).await;
    let (registry, _config) =
        registry_with(json!({"py": {"type": "http", "url": python.url}})).await;
    assert_eq!(
        call(&registry, "py__echo", json!({"text": "a"}))
            .await
            .unwrap(),
        "a"
    );
    python.stop().await;

    // Each call while it is down tries it once, at once, and says why it failed.
    for _ in 0..6 {
        let down = call(&registry, "py__echo", json!({"text": "down"})).await;
        let e = down.expect_err("the upstream is down");
        assert_eq!(e.kind, ErrorKind::TransportError, "{e:?}");
        assert!(e.message.contains("Connection refused"), "{e:?}");
    }
    let server = info(&registry, "py");
    assert_eq!(server.status, ServerStatus::Error);
    let reason = server.last_error.expect("a reason");
    assert!(reason.contains("Connection refused"), "{reason}");

    // Six failures have earned a backoff of 13 s or more; a call does not wait it out.
    let _python = counting(port, &counts).await;
    let first = registry
        .call_tool(
            "py__echo",
            Some(json!({"text": "back"})),
            CallOptions::default().with_timeout(Duration::from_secs(5)),
        )
        .await;
    assert_eq!(kit::text(&first.expect("the first call after")), "back");
    assert_eq!(info(&registry, "py").status, ServerStatus::Ready);
    assert_eq!(runs(&counts), json!({"echo": 2}));
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_in_error_comes_back_by_itself_once_its_upstream_answers() {
    let (_dir, counts) = counts_file();
    // Nothing listens there yet: the server starts in `error`, with no tools known.
    let port = kit::free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (registry, _config) = registry_with(json!({"py": {"type": "http", "url": url}})).await;
    let mut updates = registry.subscribe_status();
    assert_eq!(info(&registry, "py").status, ServerStatus::Error);
    assert_eq!(info(&registry, "py").tool_count, 0);

    let python = counting(port, &counts).await;
    let back = announced(&mut updates, "py", ServerStatus::Ready).await;
    assert_eq!(back.tool_count, 3, "discovered when it came back: {back:?}");
    assert_eq!(
        call(&registry, "py__echo", json!({"text": "a"}))
            .await
            .unwrap(),
        "a"
    );

    // It goes away: the next call finds it gone; it comes back without another call.
    python.stop().await;
    let gone = call(&registry, "py__echo", json!({"text": "gone"})).await;
    assert_eq!(gone.unwrap_err().kind, ErrorKind::TransportError);
    assert_eq!(info(&registry, "py").status, ServerStatus::Error);
    let _python = counting(port, &counts).await;
    announced(&mut updates, "py", ServerStatus::Ready).await;
    assert_eq!(runs(&counts), json!({"echo": 1}), "no call ran meanwhile");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_whose_stream_is_cut_after_the_upstream_took_it_is_not_sent_again() {
    let (_dir, counts) = counts_file();
    let python = counting(kit::free_port(), &counts).await;
    let proxy = TcpProxy::start(([127, 0, 0, 1], python.port()).into()).await;
    let url = format!("http://{}/mcp", proxy.addr);
    let (registry, _config) = registry_with(json!({"py": {"type": "http", "url": url}})).await;

    let slow = {
        let registry = registry.clone();
        tokio::spawn(async move {
            call(&registry, "py__slow", json!({"text": "late", "ms": 1500})).await
        })
    };
    // The upstream has taken the call: it counted it as it started.
    tokio::time::timeout(Duration::from_secs(30), async {
        while runs(&counts)["slow"] != 1 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the upstream took the call");
    // Every connection is cut, and new ones go through again at once: a call sent again
    // would reach the upstream and run a second time.
    proxy.cut();
    proxy.restore();
    let cut = slow.await.unwrap().expect_err("its stream was cut");
    assert_eq!(cut.kind, ErrorKind::TransportError, "{cut:?}");

    // The upstream finishes the call it took, and ran it once: the gateway did not send it
    // again (a second run would have been counted as it started, before the one it took ended).
    tokio::time::timeout(Duration::from_secs(30), async {
        while runs(&counts)["slow_done"] != 1 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the upstream finished the call it took");
    assert_eq!(runs(&counts), json!({"slow": 1, "slow_done": 1}));

    // The gateway still reaches the upstream. A keep-alive connection the cut closed while it
    // sat idle in the pool may fail the first call (the client cannot know the request never
    // left: `connection closed before message completed`); it never reached the upstream,
    // so echo runs exactly once.
    let echoed = match call(&registry, "py__echo", json!({"text": "after"})).await {
        Err(stale)
            if stale
                .message
                .contains("connection closed before message completed") =>
        {
            call(&registry, "py__echo", json!({"text": "after"})).await
        }
        other => other,
    };
    assert_eq!(echoed.unwrap(), "after");
    assert_eq!(runs(&counts)["echo"], 1);
    assert_eq!(info(&registry, "py").status, ServerStatus::Ready);
    registry.shutdown().await;
}
