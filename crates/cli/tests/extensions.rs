//! The extensions callers and upstreams share, through the gateway, with
//! tests/fixtures/extensions_server.ts (tasks, SEP-2663; skills, SEP-2640) as the upstream:
//! tasks made through one replica are read, answered and cancelled through the other behind
//! haproxy, shown to nobody else, audited once, and a stdio server's task names the replica
//! that runs it; tasks expire with their upstream's TTL; skills of two servers are listed
//! under distinct URIs and read back through their server. Raw 2026-07-28 requests, as any
//! client of that revision sends them (the conformance suite's scenarios run in
//! scripts/conformance.sh).

use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit::{self as kit, Request2026, rpc_2026};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const MASTER_KEY: &str = "1f3e5d7c9b0a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b5a7f9e2d4c6b8a0f1e";

/// haproxy in front of replicas `a` and `b`: calls go to `a`, everything else (the tasks'
/// requests) to `b`.
async fn balancer(dir: &Path, a: &str, b: &str) -> (String, tokio::process::Child) {
    let port = kit::free_port();
    let config = dir.join("haproxy.cfg");
    let host = |url: &str| (url.trim_start_matches("http://").trim_end_matches("/mcp")).to_string();
    let (a, b) = (host(a), host(b));
    std::fs::write(
        &config,
        format!(
            r#"defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server 60s
frontend mcp
  bind 127.0.0.1:{port}
  acl call req.hdr(mcp-method) -m str tools/call
  use_backend only_a if call
  default_backend only_b
backend only_a
  server a {a}
backend only_b
  server b {b}
"#
        ),
    )
    .unwrap();
    let child = kit::balancer::haproxy(&config, port, false).await;
    (format!("http://127.0.0.1:{port}/mcp"), child)
}

/// Calls `tool` with `arguments` as a caller that opted in to tasks; the task's id.
async fn make_task(url: &str, tool: &str, arguments: Value, how: &Request2026<'_>) -> String {
    let params = json!({"name": tool, "arguments": arguments});
    let answer = rpc_2026(url, "tools/call", params, how).await;
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    answer["result"]["taskId"].as_str().unwrap().to_string()
}

/// `tasks/get` (or another method about the task) of `id`.
async fn about(url: &str, method: &str, id: &str, how: &Request2026<'_>) -> Value {
    rpc_2026(url, method, json!({"taskId": id}), how).await
}

/// Polls `tasks/get` until the task's status is `status` (each answer is a new request).
async fn until_status(url: &str, id: &str, status: &str, how: &Request2026<'_>) -> Value {
    for _ in 0..200 {
        let answer = about(url, "tasks/get", id, how).await;
        if answer["result"]["status"] == status {
            return answer["result"].clone();
        }
        assert!(answer.get("error").is_none(), "{answer}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("task {id} never reached {status}");
}

#[tokio::test(flavor = "multi_thread")]
async fn tasks_made_through_one_replica_are_answered_by_the_other_and_only_to_their_maker() {
    let schema = kit::TestSchema::create("tasks").await;
    let upstream = kit::extensions_http(&[]).await;
    let (dir, config) = kit::write_mcp_json(json!({
        "ext": { "type": "http", "url": upstream.url },
        "local": kit::extensions_entry(),
    }));
    let args = ["--dev", "--database-url", &schema.url];
    let env = [("SWITCHBOARD_MASTER_KEY", MASTER_KEY)];
    let (dir_a, dir_b) = (dir.path().join("a"), dir.path().join("b"));
    let mut a = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_a, &config, &env).await;
    let mut b = kit::Gateway::start_with_env(Path::new(BIN), &args, &dir_b, &config, &env).await;
    a.ignore_log();
    b.ignore_log();
    let (url, _haproxy) = balancer(dir.path(), &a.url, &b.url).await;
    let me = Request2026::with_tasks();

    // The gateway says it carries tasks, since a server behind it does.
    let discover = rpc_2026(&url, "server/discover", json!({}), &me).await;
    let extensions = &discover["result"]["capabilities"]["extensions"];
    assert!(
        extensions.get("io.modelcontextprotocol/tasks").is_some(),
        "{discover}"
    );

    // Made through a, read through b: the gateway's id, never the server's.
    let id = make_task(&url, "ext__slow_compute", json!({"seconds": 60}), &me).await;
    assert!(id.starts_with("task_"), "{id}");
    let got = about(&url, "tasks/get", &id, &me).await;
    assert_eq!(got["result"]["taskId"], id.as_str(), "{got}");
    assert_eq!(got["result"]["status"], "working", "{got}");

    // Another end user, an id never given out: the same answer, nothing learnt.
    let mallory = Request2026 {
        end_user: Some("mallory"),
        ..Request2026::with_tasks()
    };
    for (who, task) in [
        (&mallory, id.as_str()),
        (&me, "task_000000000000000000000000"),
    ] {
        for method in ["tasks/get", "tasks/cancel"] {
            let refused = about(&url, method, task, who).await;
            assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
            let message = refused["error"]["message"].as_str().unwrap();
            assert!(message.starts_with("unknown task"), "{refused}");
        }
    }
    // A caller that did not opt in is told what it lacks.
    let plain = Request2026 {
        capabilities: json!({}),
        end_user: None,
    };
    let refused = about(&url, "tasks/get", &id, &plain).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    // Cancelled through b: the end is seen, and audited once, however often it is read.
    let ack = about(&url, "tasks/cancel", &id, &me).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    until_status(&url, &id, "cancelled", &me).await;
    until_status(&url, &id, "cancelled", &me).await;

    // A task that asks its caller: answered through b, done through b.
    let args = json!({"filename": "notes.txt"});
    let asks = make_task(&url, "ext__confirm_delete", args, &me).await;
    let waiting = until_status(&url, &asks, "input_required", &me).await;
    let key = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let answer = json!({ key: {"action": "accept", "content": {"confirm": true}} });
    let params = json!({"taskId": asks, "inputResponses": answer});
    let ack = rpc_2026(&url, "tasks/update", params, &me).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = until_status(&url, &asks, "completed", &me).await;
    assert_eq!(done["taskId"], asks.as_str(), "{done}");
    assert!(done["result"]["content"][0]["text"].is_string(), "{done}");

    // A stdio server's task lives in the process of the replica that made it (a).
    let local = make_task(&url, "local__slow_compute", json!({"seconds": 60}), &me).await;
    let elsewhere = about(&url, "tasks/get", &local, &me).await;
    assert_eq!(elsewhere["error"]["code"], -32603, "{elsewhere}");
    let owning = elsewhere["error"]["data"]["replica"].as_str().unwrap();
    let message = elsewhere["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("on replica {owning}")),
        "{message}"
    );
    let there = about(&a.url, "tasks/get", &local, &me).await;
    assert_eq!(there["result"]["status"], "working", "{there}");
    let ack = about(&a.url, "tasks/cancel", &local, &me).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");

    // The audit: each task made (the call's row says `task`), each end once. Task rows are
    // buffered (committed a few ms after the answer), so the counts are read once they settle.
    let made = "SELECT COUNT(*) FROM audit WHERE outcome = 'task'";
    let cancelled = "SELECT COUNT(*) FROM audit WHERE outcome = 'task_cancelled'";
    let completed = "SELECT COUNT(*) FROM audit WHERE outcome = 'task_completed' AND action_id = 'mcp.ext.confirm_delete'";
    let counts = async || {
        let count = |query| kit::count(&schema.url, query);
        (
            count(made).await,
            count(cancelled).await,
            count(completed).await,
        )
    };
    kit::eventually("the task rows' commit", async || {
        counts().await == (3, 2, 1)
    })
    .await;
    let (made, cancelled, completed) = counts().await;
    assert_eq!(made, 3);
    assert_eq!(cancelled, 2);
    assert_eq!(completed, 1);
    drop((a, b));
    schema.remove().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn tasks_expire_with_their_upstream_ttl_and_skills_of_two_servers_stay_apart() {
    // Tasks of this server live 1.5 s; both servers serve the same skills.
    let upstream = kit::extensions_http(&[("TASK_TTL_MS", "1500")]).await;
    let (dir, config) = kit::write_mcp_json(json!({
        "ext": { "type": "http", "url": upstream.url },
        "local": kit::extensions_entry(),
    }));
    let mut gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &config, 2).await;
    gateway.ignore_log();
    let url = gateway.url.clone();
    let me = Request2026::with_tasks();

    let made = rpc_2026(
        &url,
        "tools/call",
        json!({"name": "ext__slow_compute", "arguments": {"seconds": 60}}),
        &me,
    )
    .await;
    assert_eq!(made["result"]["ttlMs"], 1500, "{made}");
    let id = made["result"]["taskId"].as_str().unwrap().to_string();
    assert_eq!(until_status(&url, &id, "working", &me).await["taskId"], id);
    // Past its TTL it is unknown, as one never made.
    let mut gone = Value::Null;
    for _ in 0..100 {
        gone = about(&url, "tasks/get", &id, &me).await;
        if gone.get("error").is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(gone["error"]["code"], -32602, "{gone}");

    // Skills: the same skill of two servers under two URIs, each read from its own server.
    let listed = rpc_2026(&url, "skills/list", json!({}), &me).await;
    let skills = listed["result"]["skills"].as_array().unwrap();
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(skills.len(), 4, "{listed}");
    for server in ["ext", "local"] {
        let greeting = format!("skill://switchboard/{server}/greeting/SKILL.md");
        assert!(uris.contains(&greeting.as_str()), "{uris:?}");
    }
    let skill = skills
        .iter()
        .find(|s| s["uri"] == "skill://switchboard/local/greeting/SKILL.md");
    let skill = skill.unwrap();
    for file in skill["resources"].as_array().unwrap() {
        let file_uri = file["uri"].as_str().unwrap();
        assert!(
            file_uri.starts_with("skill://switchboard/local/greeting/"),
            "{file}"
        );
    }
    let got = rpc_2026(&url, "skills/get", json!({"uri": skill["uri"]}), &me).await;
    assert_eq!(&got["result"]["skill"], skill, "{got}");
    let unknown = json!({"uri": "skill://switchboard/nobody/x/SKILL.md"});
    let refused = rpc_2026(&url, "skills/get", unknown, &me).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // SKILL.md read back is the file the manifest's digest names.
    let read = rpc_2026(&url, "resources/read", json!({"uri": skill["uri"]}), &me).await;
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    let digest = format!("sha256:{}", sha256_hex(text.as_bytes()));
    let own = &skill["resources"].as_array().unwrap()[0];
    assert_eq!(own["uri"], skill["uri"]);
    assert_eq!(own["digest"], digest.as_str(), "{read}");
    // The skill's folder lists its children under the gateway's names.
    let folder = json!({"uri": "skill://switchboard/local/greeting"});
    let children = rpc_2026(&url, "resources/directory/read", folder, &me).await;
    let names: Vec<&str> = (children["result"]["resources"].as_array().unwrap().iter())
        .map(|c| c["uri"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"skill://switchboard/local/greeting/SKILL.md"),
        "{children}"
    );
    assert!(
        names.contains(&"skill://switchboard/local/greeting/templates"),
        "{children}"
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}
