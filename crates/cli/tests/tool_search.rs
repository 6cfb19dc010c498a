//! Search mode through `/mcp` with the official MCP Python SDK client against real servers:
//! the meta-tools listed instead of the catalogue; search, describe and call (by exposed
//! name and by action id); resources found by search_resources; a tool the policy hides
//! never found, described or called; the index following an upstream's `tools/list_changed`;
//! `auto` switching to search when a server added to the config takes the catalogue over its
//! threshold; found tools joining the session's own list when the endpoint says so; a tool
//! found by meaning alone, and not when the meaning ranking is off; and `switchboard stdio` in
//! search mode.

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const META: [&str; 4] = [
    "search_tools",
    "describe_tool",
    "call_tool",
    "search_resources",
];

fn shifty() -> Value {
    let fixture = kit::repo_root().join("tests/fixtures/policy_server.py");
    json!({"command": kit::python(), "args": [fixture],
           "tools": ["echo", "refund", "read_vault", "post_message", "weather"]})
}

/// Runs `steps` in one session; one answer per step.
async fn session(url: &str, steps: Value) -> Vec<Value> {
    let answers = kit::run_client("search_probe.py", &[url, "-", &steps.to_string()]).await;
    serde_json::from_value(answers).expect("a list of answers")
}

fn call(tool: &str, args: Value) -> Value {
    json!({"op": "call", "tool": tool, "args": args})
}

fn found(answer: &Value) -> Vec<&str> {
    answer["structured"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {answer}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

async fn start(dir: &Path, servers: Value, gateway: &str, ready: usize) -> kit::Gateway {
    let mcp = dir.join("mcp.json");
    std::fs::write(&mcp, json!({"mcpServers": servers}).to_string()).unwrap();
    let toml = dir.join("switchboard.toml");
    std::fs::write(&toml, format!("[gateway]\n{gateway}\n")).unwrap();
    let toml = toml.to_string_lossy().into_owned();
    let mut gateway = kit::Gateway::start(
        Path::new(BIN),
        &["--dev", "--watch", "-c", &toml],
        dir,
        &mcp,
        ready,
    )
    .await;
    gateway.ignore_log();
    gateway
}

#[tokio::test(flavor = "multi_thread")]
async fn search_mode_finds_describes_and_calls_only_what_the_caller_sees() {
    let dir = tempfile::tempdir().unwrap();
    let servers = json!({
        "shifty": shifty(),
        "time": kit::time_entry(),
        "misbehaving": kit::misbehaving_entry(30_000),
    });
    let gateway = start(dir.path(), servers, "tools_mode = \"search\"", 3).await;
    let answers = session(
        &gateway.url,
        json!([
            {"op": "list"},
            call("search_tools", json!({"query": "what time is it in Tokyo right now"})),
            call("describe_tool", json!({"name": "time__get_current_time"})),
            call("call_tool", json!({"name": "time__get_current_time", "arguments": {"timezone": "Asia/Tokyo"}})),
            call("call_tool", json!({"name": "mcp.shifty.refund", "arguments": {"amount": 5}})),
            call("search_tools", json!({"query": "delete every record", "limit": 50})),
            call("describe_tool", json!({"name": "shifty__delete_all"})),
            call("call_tool", json!({"name": "shifty__delete_all"})),
            call("search_tools", json!({"query": "give money back", "server": "time"})),
            call("search_tools", json!({"query": "anything", "limit": 0})),
            call("call_tool", json!({"name": "search_tools"})),
            call("search_tools", json!({"query": "appears after"})),
            call("call_tool", json!({"name": "misbehaving__add_tool"})),
            {"op": "search_until", "query": "appears after", "name": "misbehaving__added"},
            call("search_resources", json!({"query": "the shared text file"})),
            call("search_tools", json!({"query": "is it going to rain in Oslo"})),
        ]),
    )
    .await;
    assert_eq!(answers[0]["tools"], json!(META), "{}", answers[0]);
    assert_eq!(
        found(&answers[1])[0],
        "time__get_current_time",
        "{}",
        answers[1]
    );
    let described = &answers[2]["structured"];
    assert_eq!(described["name"], "time__get_current_time", "{described}");
    assert!(
        described["inputSchema"]["properties"]["timezone"].is_object(),
        "{described}"
    );
    assert!(
        answers[3]["text"].as_str().unwrap().contains("Asia/Tokyo"),
        "{}",
        answers[3]
    );
    assert_eq!(answers[4]["text"], "refunded 5", "{}", answers[4]);
    // The allowlist hides delete_all: not found, not described, not called.
    assert!(
        !found(&answers[5]).contains(&"shifty__delete_all"),
        "{}",
        answers[5]
    );
    assert_eq!(answers[6]["kind"], "tool_not_found", "{}", answers[6]);
    assert_eq!(answers[7]["kind"], "tool_not_found", "{}", answers[7]);
    assert!(
        found(&answers[8]).iter().all(|n| n.starts_with("time__")),
        "{}",
        answers[8]
    );
    assert_eq!(answers[9]["kind"], "invalid_request", "{}", answers[9]);
    assert_eq!(answers[10]["kind"], "invalid_request", "{}", answers[10]);
    assert!(
        !found(&answers[11]).contains(&"misbehaving__added"),
        "{}",
        answers[11]
    );
    assert_eq!(answers[12]["is_error"], false, "{}", answers[12]);
    let after = &answers[13];
    assert!(
        after["found"]
            .as_array()
            .unwrap()
            .contains(&json!("misbehaving__added")),
        "{after}"
    );
    let items = &answers[14]["structured"]["items"];
    assert_eq!(items[0]["kind"], "resource", "{items}");
    assert_eq!(items[0]["id"], "file:///shared.txt", "{items}");
    assert_eq!(items[0]["server"], "misbehaving", "{items}");
    // No word of it is in any tool; the meaning ranking finds the weather tool.
    assert_eq!(found(&answers[15])[0], "shifty__weather", "{}", answers[15]);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_meaning_ranking_search_matches_words_only() {
    let dir = tempfile::tempdir().unwrap();
    let settings = "tools_mode = \"search\"\ntools_search_meaning = false";
    let gateway = start(dir.path(), json!({"shifty": shifty()}), settings, 1).await;
    let answers = session(
        &gateway.url,
        json!([
            call(
                "search_tools",
                json!({"query": "is it going to rain in Oslo"})
            ),
            call("search_tools", json!({"query": "current weather in Oslo"})),
        ]),
    )
    .await;
    assert!(found(&answers[0]).is_empty(), "{}", answers[0]);
    assert_eq!(found(&answers[1])[0], "shifty__weather", "{}", answers[1]);
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_mode_switches_to_search_when_a_new_server_passes_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let gateway = start(
        dir.path(),
        json!({"shifty": shifty()}),
        "tools_mode = \"auto\"\ntools_search_threshold = 8",
        1,
    )
    .await;
    let listed = &session(&gateway.url, json!([{"op": "list"}])).await[0];
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        names.len(),
        5,
        "five tools, under the threshold: all listed: {names:?}"
    );
    assert!(names.contains(&"shifty__refund"), "{names:?}");

    // The config gains a server with more tools: the catalogue passes 8, search takes over.
    let servers =
        json!({"mcpServers": {"shifty": shifty(), "misbehaving": kit::misbehaving_entry(30_000)}});
    std::fs::write(dir.path().join("mcp.json"), servers.to_string()).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut now;
    loop {
        now = session(&gateway.url, json!([{"op": "list"}]))
            .await
            .remove(0);
        if now["tools"] == json!(META) || tokio::time::Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert_eq!(now["tools"], json!(META), "{now}");
    let answers = session(
        &gateway.url,
        json!([call(
            "search_tools",
            json!({"query": "refund the customer"})
        )]),
    )
    .await;
    assert_eq!(found(&answers[0])[0], "shifty__refund", "{}", answers[0]);
}

#[tokio::test(flavor = "multi_thread")]
async fn found_tools_join_the_sessions_list_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let settings = "tools_mode = \"search\"\ntools_search_lists_found = true";
    let gateway = start(dir.path(), json!({"shifty": shifty()}), settings, 1).await;
    let answers = session(
        &gateway.url,
        json!([
            {"op": "list"},
            call("search_tools", json!({"query": "give the customer money back", "limit": 1})),
            {"op": "list_after_change"},
            call("shifty__refund", json!({"amount": 7})),
        ]),
    )
    .await;
    assert_eq!(answers[0]["tools"], json!(META), "{}", answers[0]);
    assert_eq!(found(&answers[1]), ["shifty__refund"], "{}", answers[1]);
    let mut listed = META.to_vec();
    listed.push("shifty__refund");
    assert_eq!(answers[2]["tools"], json!(listed), "{}", answers[2]);
    assert_eq!(answers[3]["text"], "refunded 7", "{}", answers[3]);
    // Another session starts from the meta-tools alone.
    let other = &session(&gateway.url, json!([{"op": "list"}])).await[0];
    assert_eq!(other["tools"], json!(META), "{other}");
}

#[tokio::test(flavor = "multi_thread")]
async fn switchboard_stdio_serves_search_mode_too() {
    let dir = tempfile::tempdir().unwrap();
    let mcp = dir.path().join("mcp.json");
    std::fs::write(
        &mcp,
        json!({"mcpServers": {"shifty": shifty()}}).to_string(),
    )
    .unwrap();
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, "[gateway]\ntools_mode = \"search\"\n").unwrap();
    let data = dir.path().join("data");
    let command = json!([BIN, "--data", data, "stdio", "-c", mcp, "-c", toml]);
    let answers = session(
        &format!("stdio:{command}"),
        json!([
            {"op": "list"},
            call("search_tools", json!({"query": "give the customer money back"})),
            call("call_tool", json!({"name": "shifty__refund", "arguments": {"amount": 3}})),
        ]),
    )
    .await;
    assert_eq!(answers[0]["tools"], json!(META), "{}", answers[0]);
    assert_eq!(found(&answers[1])[0], "shifty__refund", "{}", answers[1]);
    assert_eq!(answers[2]["text"], "refunded 3", "{}", answers[2]);
}
