//! Two replicas on one Postgres behind haproxy: a 2026-07-28 caller's input round asked through
//! one replica is answered through the other (the round is handed back whole and kept in the
//! store, not parked in a process), and session callers (Python SDK 1.x, the TypeScript SDK)
//! are answered through the balancer when it keeps a session on one replica, as docs/replicas.md
//! says to configure it. The upstream is tests/fixtures/modern_server.py (Python SDK 2.x) over
//! Streamable HTTP, shared by both replicas.

use serde_json::json;
use std::path::Path;
use switchboard_testkit as kit;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;
use tokio::sync::mpsc;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "1f3e5d7c9b0a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e";

/// haproxy in front of replicas `a` and `b`: a tools/call that answers a round (its body has
/// `inputResponses`) goes to `b`, the one that starts it to `a`, and everything else round-robin,
/// a session kept on the replica that began it (by `Mcp-Session-Id`). Each request's backend
/// and method are logged, one line each.
struct Balancer {
    url: String,
    log: mpsc::Receiver<String>,
    _child: Child,
}

impl Balancer {
    async fn start(dir: &Path, a: &str, b: &str) -> Self {
        let port = kit::free_port();
        let config = dir.join("haproxy.cfg");
        std::fs::write(
            &config,
            format!(
                r#"global
  log stdout format raw local0
defaults
  mode http
  log global
  timeout connect 5s
  timeout client 60s
  timeout server 60s
frontend mcp
  bind 127.0.0.1:{port}
  option http-buffer-request
  http-request capture req.hdr(mcp-method) len 40
  log-format "%b %hr"
  acl session req.hdr(mcp-session-id) -m found
  acl answers req.body -m sub inputResponses
  acl call req.hdr(mcp-method) -m str tools/call
  use_backend only_b if call answers !session
  use_backend only_a if call !session
  default_backend both
backend both
  balance roundrobin
  stick-table type string len 64 size 10k expire 30m
  stick match req.hdr(mcp-session-id)
  stick store-response res.hdr(mcp-session-id)
  server a {a}
  server b {b}
backend only_a
  server a {a}
backend only_b
  server b {b}
"#
            ),
        )
        .unwrap();
        let mut child = kit::balancer::haproxy(&config, port, true).await;
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let (tx, log) = mpsc::channel(1024);
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let _ = tx.send(line).await;
            }
        });
        Self {
            url: format!("http://127.0.0.1:{port}/mcp"),
            log,
            _child: child,
        }
    }

    /// The log lines so far.
    fn lines(&mut self) -> Vec<String> {
        std::iter::from_fn(|| self.log.try_recv().ok()).collect()
    }
}

fn host_port(url: &str) -> &str {
    url.trim_start_matches("http://").trim_end_matches("/mcp")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_input_round_asked_through_one_replica_is_answered_through_the_other() {
    let schema = kit::TestSchema::create("rounds").await;
    let modern = kit::repo_root().join("tests/fixtures/modern_server.py");
    let upstream = kit::Served::start(&kit::python2(), &[modern.to_str().unwrap(), "http"]).await;
    // A plain entry: the upstream is reached on 2026-07-28.
    let (dir, config) =
        kit::write_mcp_json(json!({ "modern": { "type": "http", "url": upstream.url } }));
    let args = ["--dev", "--database-url", &schema.url];
    let env = [("SWITCHBOARD_MASTER_KEY", MASTER_KEY)];
    let (dir_a, dir_b) = (dir.path().join("a"), dir.path().join("b"));
    let mut a = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_a, &config, &env).await;
    let mut b = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_b, &config, &env).await;
    a.ignore_log();
    b.ignore_log();
    let mut balancer = Balancer::start(dir.path(), host_port(&a.url), host_port(&b.url)).await;

    // The Python SDK 2.x client on 2026-07-28: three questions in one round, asked once.
    let all = |who: &str| format!("hello {who}; summary by {who}; file:///probe/root");
    let args = ["call", &balancer.url, "modern__ask_all", "auto", "Ada"];
    let seen = kit::run_client_on(&kit::python2(), "relay_probe.py", &args).await;
    assert_eq!(seen["text"], all("Ada"), "{seen}");
    assert_eq!(seen["elicit"].as_array().map(Vec::len), Some(1), "{seen}");
    assert_eq!(seen["roots_asked"], 1, "{seen}");
    // The round began on one replica and was answered on the other.
    let lines = balancer.lines();
    for leg in ["only_a {tools/call}", "only_b {tools/call}"] {
        assert!(lines.iter().any(|l| l == leg), "{leg} in {lines:#?}");
    }

    // Session callers stay on the replica that began their session.
    let args = ["call", &balancer.url, "modern__ask_all", "session", "Grace"];
    let seen = kit::run_client_on(&kit::python(), "relay_probe.py", &args).await;
    assert_eq!(seen["text"], all("Grace"), "Python SDK 1.x: {seen}");
    let seen = kit::run_node_client(
        "relay_probe.mjs",
        &["call", &balancer.url, "modern__ask_all", "Lin"],
    )
    .await;
    assert_eq!(seen["text"], all("Lin"), "TypeScript SDK: {seen}");
    drop((a, b));
    schema.remove().await;
}
