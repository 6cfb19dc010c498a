//! The deployment in deploy/ (compose.yaml) started natively, as this machine allows (no
//! container runtime pulls images here): two replicas on one Postgres with the shared master key
//! and deploy/replicas.toml, behind haproxy with the shipped deploy/haproxy.cfg, and Debian's
//! Prometheus scraping both with the shipped deploy/prometheus.yml (only the addresses made
//! local). A client's session through the balancer calls a tool; Prometheus sees both replicas up
//! and the call in their metrics.

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "1f3e5d7c9b0a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e";
const TOKEN: &str = "deploy-topology-test-token";

fn shipped(file: &str) -> String {
    std::fs::read_to_string(kit::repo_root().join("deploy").join(file)).unwrap()
}

fn host_port(url: &str) -> String {
    (url.trim_start_matches("http://").trim_end_matches("/mcp")).to_string()
}

/// POSTs `message` through the balancer with the token, in `session` when given.
async fn post(url: &str, session: Option<&str>, message: &Value) -> (Option<String>, Value) {
    let (session, body) = kit::post_mcp(url, Some(TOKEN), session, message).await;
    let answer = match message.get("id") {
        Some(_) => kit::rpc_answer(&body),
        None => Value::Null,
    };
    (session, answer)
}

/// Asks Prometheus at `base` the `/api/v1/…` path until `done` says its answer is the one,
/// for at most a minute (its first scrapes come within its 5 s interval).
async fn prometheus_until(base: &str, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    for _ in 0..240 {
        if let Ok(response) = reqwest::get(format!("{base}/api/v1/{path}")).await
            && let Ok(answer) = response.json::<Value>().await
        {
            if done(&answer) {
                return answer;
            }
            last = answer;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("Prometheus never answered {path} as expected; last: {last}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_compose_topology_runs_natively() {
    let schema = kit::TestSchema::create("deploy").await;
    let (dir, config) = kit::write_mcp_json(json!({ "everything": kit::everything_stdio_entry() }));
    let replicas = dir.path().join("replicas.toml");
    std::fs::write(&replicas, shipped("replicas.toml")).unwrap();
    let replicas = replicas.to_string_lossy().into_owned();
    let args = ["--database-url", &schema.url, "-c", &replicas];
    let env = [
        ("SWITCHBOARD_MASTER_KEY", MASTER_KEY),
        ("SWITCHBOARD_TOKEN", TOKEN),
    ];
    let (dir_a, dir_b) = (dir.path().join("a"), dir.path().join("b"));
    let mut a = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_a, &config, &env).await;
    let mut b = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_b, &config, &env).await;
    a.ignore_log();
    b.ignore_log();

    // The shipped balancer, its addresses made local.
    let port = kit::free_port();
    let haproxy_cfg = shipped("haproxy.cfg")
        .replace("bind :8750", &format!("bind 127.0.0.1:{port}"))
        .replace("switchboard-a:8750", &host_port(&a.url))
        .replace("switchboard-b:8750", &host_port(&b.url));
    let haproxy_path = dir.path().join("haproxy.cfg");
    std::fs::write(&haproxy_path, haproxy_cfg).unwrap();
    let _haproxy = kit::balancer::haproxy(&haproxy_path, port, false).await;
    let url = format!("http://127.0.0.1:{port}/mcp");

    // A client's session through the balancer: initialize, list, call.
    let (session, init) = post(&url, None, &kit::initialize_request()).await;
    let session = session.expect("a session through the balancer");
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&url, Some(&session), &done).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (_, tools) = post(&url, Some(&session), &list).await;
    let names: Vec<&str> = (tools["result"]["tools"].as_array().unwrap().iter())
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"everything__echo"), "{tools}");
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "everything__echo", "arguments": {"message": "through the balancer"}}});
    let (_, called) = post(&url, Some(&session), &call).await;
    assert!(
        called.to_string().contains("through the balancer"),
        "{called}"
    );

    // The shipped Prometheus config, its targets made local, its token file written.
    let token_file = dir.path().join("metrics.token");
    std::fs::write(&token_file, TOKEN).unwrap();
    let targets = format!("\"{}\", \"{}\"", host_port(&a.url), host_port(&b.url));
    let prometheus_cfg = shipped("prometheus.yml")
        .replace("\"switchboard-a:8750\", \"switchboard-b:8750\"", &targets)
        .replace(
            "/etc/prometheus/metrics.token",
            &token_file.to_string_lossy(),
        );
    let prometheus_path = dir.path().join("prometheus.yml");
    std::fs::write(&prometheus_path, prometheus_cfg).unwrap();
    let prometheus_port = kit::free_port();
    let _prometheus = tokio::process::Command::new("prometheus")
        .arg(format!("--config.file={}", prometheus_path.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.path().join("tsdb").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{prometheus_port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("Debian's prometheus (scripts/fixtures.sh installs it)");
    let base = format!("http://127.0.0.1:{prometheus_port}");
    prometheus_until(&base, "targets", |answer| {
        let active = answer["data"]["activeTargets"].as_array();
        active.is_some_and(|t| t.len() == 2 && t.iter().all(|t| t["health"] == "up"))
    })
    .await;
    // The call shows in the replicas' metrics, summed over both.
    let query = "query?query=sum(switchboard_tool_calls_total)";
    let answer = prometheus_until(&base, query, |answer| {
        let value = &answer["data"]["result"][0]["value"][1];
        value.as_str().and_then(|v| v.parse::<f64>().ok()) >= Some(1.0)
    })
    .await;
    assert_eq!(answer["status"], "success", "{answer}");
    drop((a, b));
    schema.remove().await;
}
