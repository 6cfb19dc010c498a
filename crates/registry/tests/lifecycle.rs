//! Server lifecycles with real processes: lazy start from a saved snapshot, idle stop and
//! restart, kill -9 mid-call, a server that exits at start-up, one that keeps crashing,
//! tools added at run time, disable/enable.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_config::load;
use switchboard_core::{ErrorKind, ServerStatus};
use switchboard_registry::{CallOptions, Registry, RegistryOptions, ServerInfo, SnapshotCache};
use switchboard_sync::Mutex;
use switchboard_testkit as kit;
use switchboard_upstream::Snapshot;
use tokio::sync::broadcast;

/// Snapshots kept in memory, as the store keeps them between runs.
#[derive(Default)]
struct MemorySnapshots(Mutex<HashMap<String, Snapshot>>);

#[async_trait::async_trait]
impl SnapshotCache for MemorySnapshots {
    async fn load(&self, fingerprint: &str) -> Option<Snapshot> {
        self.0.lock().get(fingerprint).cloned()
    }
    async fn save(&self, fingerprint: &str, snapshot: &Snapshot) {
        self.0.lock().insert(fingerprint.into(), snapshot.clone());
    }
}

fn fixture(dir: &Path, extra: Value) -> std::path::PathBuf {
    let mut entry = kit::misbehaving_entry(20_000);
    for (k, v) in extra.as_object().unwrap() {
        entry[k] = v.clone();
    }
    let path = dir.join("mcp.json");
    std::fs::write(&path, json!({"mcpServers": {"fx": entry}}).to_string()).unwrap();
    path
}

fn pids(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

/// Whether `pid` still runs; a process being stopped gets up to 10 s to finish exiting.
fn alive(pid: i32) -> bool {
    !kit::wait_for_exit(pid, 0)
}

fn exits(pid: i32) -> bool {
    kit::wait_for_exit(pid, 10_000)
}

/// Waits for `server` to report `status` (event-driven, bounded).
async fn status_event(
    events: &mut broadcast::Receiver<ServerInfo>,
    status: ServerStatus,
) -> ServerInfo {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match events.recv().await {
                Ok(info) if info.status == status => return info,
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("status events ended: {e}"),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {status} event"))
}

async fn echo(registry: &Registry, text: &str) -> Result<String, switchboard_core::CallError> {
    registry
        .call_tool(
            "fx__echo",
            Some(json!({"text": text})),
            CallOptions::default(),
        )
        .await
        .map(|r| kit::text(&r))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lazy_server_runs_only_while_it_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pids");
    let path = fixture(
        dir.path(),
        json!({"lazy": true, "idle_timeout": 1, "env": {"FIXTURE_PIDFILE": pidfile}}),
    );
    let config = load(&[path]).unwrap();
    let cache = Arc::new(MemorySnapshots::default());

    // First run, no snapshot yet: discovered once, then stopped.
    let first = Registry::new(RegistryOptions::default().with_snapshots(cache.clone()));
    let servers = first.apply_config(&config).await;
    assert_eq!(servers[0].status, ServerStatus::Idle, "{servers:?}");
    assert_eq!(servers[0].pid, None);
    assert!(first.route("fx__echo").is_some(), "its tools stay listed");
    first.shutdown().await;
    assert_eq!(pids(&pidfile).len(), 1);

    // Next run: tools listed from the snapshot, no process until the first call.
    let registry = Registry::new(RegistryOptions::default().with_snapshots(cache));
    let mut events = registry.subscribe_status();
    let servers = registry.apply_config(&config).await;
    assert_eq!(servers[0].status, ServerStatus::Idle);
    assert!(registry.route("fx__echo").is_some());
    assert_eq!(pids(&pidfile).len(), 1, "no child before the first call");

    assert_eq!(echo(&registry, "wake up").await.unwrap(), "wake up");
    let started = pids(&pidfile);
    assert_eq!(started.len(), 2);
    let pid = *started.last().unwrap();
    assert!(alive(pid));
    assert_eq!(registry.servers()[0].pid, Some(pid as u32));

    // Idle for its idle_timeout (1 s): stopped, tools still listed.
    let idle = status_event(&mut events, ServerStatus::Idle).await;
    assert_eq!(idle.pid, None);
    assert!(exits(pid), "child {pid} still runs while idle");
    assert!(registry.route("fx__echo").is_some());

    // The next call starts it again without the caller noticing.
    assert_eq!(echo(&registry, "again").await.unwrap(), "again");
    assert_eq!(pids(&pidfile).len(), 3);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_9_mid_call_fails_that_call_only() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new(RegistryOptions::default());
    registry
        .apply_config(&load(&[fixture(dir.path(), json!({}))]).unwrap())
        .await;
    let pid = registry.servers()[0].pid.expect("running") as i32;
    let hanging = {
        let registry = registry.clone();
        tokio::spawn(async move {
            registry
                .call_tool("fx__hang", None, CallOptions::default())
                .await
        })
    };
    while registry.servers()[0].calls_in_flight == 0 {
        tokio::task::yield_now().await;
    }
    // SAFETY: killing our own child process.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(pid, libc::SIGKILL)
    };
    let err = tokio::time::timeout(Duration::from_secs(10), hanging)
        .await
        .expect("the call ends when its server dies")
        .unwrap()
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::TransportError, "{err}");
    assert_eq!(echo(&registry, "after").await.unwrap(), "after");
    let info = &registry.servers()[0];
    assert_eq!(info.status, ServerStatus::Ready);
    assert_ne!(info.pid, Some(pid as u32), "a new process");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_exits_at_start_up_is_an_error_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path(), json!({"env": {"FIXTURE_EXIT_AT_START": "1"}}));
    let registry = Registry::new(RegistryOptions::default());
    let servers = registry.apply_config(&load(&[path]).unwrap()).await;
    assert_eq!(servers[0].status, ServerStatus::Error);
    let error = servers[0].last_error.clone().unwrap();
    assert!(error.contains("FIXTURE_DB_URL is not set"), "{error}");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_keeps_crashing_stays_in_error_until_refreshed() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new(RegistryOptions::default());
    registry
        .apply_config(&load(&[fixture(dir.path(), json!({}))]).unwrap())
        .await;
    // Each crash is a failure; restarts back off 0.5 s, 1 s, 2 s, 4 s (±20%), then give up.
    let started = Instant::now();
    for _ in 0..switchboard_registry::MAX_FAILURES {
        let err = registry
            .call_tool("fx__crash", None, CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::TransportError, "{err}");
    }
    let refused = echo(&registry, "x").await.unwrap_err();
    assert_eq!(refused.kind, ErrorKind::TransportError);
    let info = &registry.servers()[0];
    assert_eq!(info.status, ServerStatus::Error);
    let error = info.last_error.clone().unwrap();
    assert!(
        error.contains("crashing on purpose") && error.contains("5 failures in a row"),
        "{error}"
    );
    assert!(refused.message.contains("5 failures in a row"), "{refused}");
    eprintln!("five crashes with backoff took {:?}", started.elapsed());

    registry.refresh("fx").await;
    assert_eq!(echo(&registry, "fixed").await.unwrap(), "fixed");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_added_at_run_time_appears_after_list_changed() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new(RegistryOptions::default());
    registry
        .apply_config(&load(&[fixture(dir.path(), json!({}))]).unwrap())
        .await;
    assert!(registry.route("fx__added").is_none());
    let mut changes = registry.subscribe();
    let asked = Instant::now();
    registry
        .call_tool("fx__add_tool", None, CallOptions::default())
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), changes.recv())
        .await
        .expect("the catalogue changes")
        .unwrap();
    eprintln!("add_tool call to catalogue change: {:?}", asked.elapsed());
    let added = registry
        .call_tool("fx__added", None, CallOptions::default())
        .await
        .unwrap();
    assert_eq!(kit::text(&added), "I was added at run time");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn disable_stops_a_server_and_enable_brings_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new(RegistryOptions::default());
    registry
        .apply_config(&load(&[fixture(dir.path(), json!({}))]).unwrap())
        .await;
    let pid = registry.servers()[0].pid.unwrap() as i32;
    let info = registry.disable("fx").await.unwrap();
    assert_eq!(info.status, ServerStatus::Disabled);
    assert!(registry.route("fx__echo").is_none(), "its tools leave");
    assert!(exits(pid));
    let info = registry.enable("fx").await.unwrap();
    assert_eq!(info.status, ServerStatus::Ready);
    assert_eq!(echo(&registry, "on").await.unwrap(), "on");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_added_without_an_announcement_appears_at_the_next_scheduled_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let registry =
        Registry::new(RegistryOptions::default().with_refresh_every(Duration::from_secs(1)));
    registry
        .apply_config(&load(&[fixture(dir.path(), json!({}))]).unwrap())
        .await;
    let mut changes = registry.subscribe();
    registry
        .call_tool("fx__add_tool_quietly", None, CallOptions::default())
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(30), async {
        while registry.route("fx__added").is_none() {
            changes.recv().await.unwrap();
        }
    })
    .await
    .expect("the scheduled refresh finds it");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_beyond_the_slots_and_the_queue_are_rate_limited_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let limits = switchboard_core::Limits {
        max_queued_calls: 0,
        ..Default::default()
    };
    let registry = Registry::new(RegistryOptions::default().with_limits(limits));
    registry
        .apply_config(&load(&[fixture(dir.path(), json!({"max_concurrent_calls": 1}))]).unwrap())
        .await;
    let running = {
        let registry = registry.clone();
        tokio::spawn(async move {
            registry
                .call_tool("fx__hang", None, CallOptions::default())
                .await
        })
    };
    while registry.servers()[0].calls_in_flight == 0 {
        tokio::task::yield_now().await;
    }
    // The one slot is taken and no call may wait: refused as such (a call that waited for
    // its timeout would say "none finished within").
    let refused = echo(&registry, "x").await.unwrap_err();
    assert_eq!(refused.kind, ErrorKind::RateLimited, "{refused}");
    assert!(refused.message.contains("0 waiting"), "{refused}");
    running.abort();
    registry.shutdown_within(Duration::ZERO).await;
}

/// A 2026-07-28 server has no session to announce list changes on: the connection listens for
/// them (`subscriptions/listen`), so a tool the server adds at run time reaches the catalogue
/// as on a session. The Python SDK 2.x server, a plain entry.
#[tokio::test(flavor = "multi_thread")]
async fn a_2026_servers_list_changes_arrive_through_subscriptions_listen() {
    let (_dir, path) = kit::write_mcp_json(json!({
        "modern": {
            "command": kit::python2(),
            "args": [kit::repo_root().join("tests/fixtures/modern_server.py")],
        },
    }));
    let registry = Registry::new(RegistryOptions::default());
    let servers = registry.apply_config(&load(&[path]).unwrap()).await;
    assert_eq!(
        servers[0].protocol_version.as_deref(),
        Some("2026-07-28"),
        "{servers:?}"
    );
    assert!(registry.route("modern__added").is_none());
    let mut changes = registry.subscribe();
    let added = registry
        .call_tool("modern__add_tool", None, CallOptions::default())
        .await
        .unwrap();
    assert_eq!(kit::text(&added), "added");
    tokio::time::timeout(Duration::from_secs(10), async {
        while registry.route("modern__added").is_none() {
            changes.recv().await.unwrap();
        }
    })
    .await
    .expect("the catalogue learns of the new tool");
    let called = registry
        .call_tool("modern__added", None, CallOptions::default())
        .await
        .unwrap();
    assert_eq!(kit::text(&called), "I was added at run time");
    registry.shutdown().await;
}
