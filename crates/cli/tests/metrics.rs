//! `/metrics` (issue 14) after real calls through `serve`, read with a Prometheus text parser:
//! counters and histogram buckets move, labels stay bounded, and off the open case the
//! endpoint needs the `[gateway] token` or an API token with `gateway:operate`.

use prometheus_parse::{Sample, Scrape, Value as Sampled};
use serde_json::json;
use std::path::Path;
use switchboard_testkit as kit;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const TOKEN: &str = "metrics-test-gateway-token";

async fn cli(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(BIN)
        .args(args)
        .env("SWITCHBOARD_DATA", dir.join("data"))
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn api_token(output: &str) -> String {
    output
        .split_whitespace()
        .find(|w| w.starts_with("sb_"))
        .unwrap_or_else(|| panic!("no token in {output}"))
        .to_string()
}

/// GET /metrics with `token`: (status, body).
async fn get(base: &str, token: Option<&str>) -> (u16, String) {
    let mut request = reqwest::Client::new().get(format!("{base}/metrics"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    if status == 200 {
        let kind = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(kind.starts_with("application/openmetrics-text"), "{kind}");
    }
    (status, response.text().await.unwrap())
}

async fn scrape(base: &str) -> Scrape {
    let (status, text) = get(base, Some(TOKEN)).await;
    assert_eq!(status, 200, "{text}");
    Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).expect("Prometheus text")
}

fn sample<'a>(scrape: &'a Scrape, name: &str, labels: &[(&str, &str)]) -> Option<&'a Sample> {
    scrape
        .samples
        .iter()
        .find(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(v)))
}

fn number(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    match sample(scrape, name, labels).map(|s| &s.value) {
        Some(Sampled::Counter(v) | Sampled::Gauge(v) | Sampled::Untyped(v)) => *v,
        Some(other) => panic!("{name}: {other:?}"),
        None => 0.0,
    }
}

/// The histogram's observation count (its +Inf bucket).
fn observed(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    match sample(scrape, name, labels).map(|s| &s.value) {
        Some(Sampled::Histogram(buckets)) => buckets.iter().map(|b| b.count).fold(0.0, f64::max),
        Some(other) => panic!("{name}: {other:?}"),
        None => 0.0,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_follow_real_calls_and_need_a_token_off_the_open_case() {
    let (dir, mcp_json) = kit::write_mcp_json(json!({"everything": kit::everything_stdio_entry()}));
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, format!("[gateway]\ntoken = \"{TOKEN}\"\n")).unwrap();
    let toml = toml.to_str().unwrap().to_string();
    let gateway =
        kit::Gateway::start(Path::new(BIN), &["-c", &toml], dir.path(), &mcp_json, 1).await;
    let base = gateway.base().to_string();

    // Who may read it.
    assert_eq!(get(&base, None).await.0, 401);
    assert_eq!(get(&base, Some("wrong")).await.0, 401);
    cli(dir.path(), &["org", "create", "acme"]).await;
    let viewer = api_token(
        &cli(
            dir.path(),
            &[
                "token",
                "create",
                "--org",
                "acme",
                "--role",
                "integrations:view",
            ],
        )
        .await,
    );
    let operator = api_token(
        &cli(
            dir.path(),
            &[
                "token",
                "create",
                "--org",
                "acme",
                "--role",
                "gateway:operate",
            ],
        )
        .await,
    );
    let (status, body) = get(&base, Some(&viewer)).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("gateway:operate"), "{body}");
    assert_eq!(get(&base, Some(&operator)).await.0, 200);

    let before = scrape(&base).await;
    let ready = [("server", "everything"), ("status", "ready")];
    assert_eq!(number(&before, "switchboard_server_status", &ready), 1.0);
    let connects = [("server", "everything"), ("outcome", "ok")];
    assert_eq!(
        observed(
            &before,
            "switchboard_server_connect_duration_seconds",
            &connects
        ),
        1.0
    );

    // Two calls that reach the upstream, one to a name nobody has.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}}});
    let (session, _) = kit::post_mcp(&gateway.url, Some(TOKEN), None, &init).await;
    let session = session.expect("session");
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    kit::post_mcp(&gateway.url, Some(TOKEN), Some(&session), &done).await;
    for (id, name) in [
        (1, "everything__echo"),
        (2, "everything__echo"),
        (3, "nobody__made_this_up"),
    ] {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": {"message": "hi"}}});
        kit::post_mcp(&gateway.url, Some(TOKEN), Some(&session), &call).await;
    }

    let after = scrape(&base).await;
    let echo_ok = [
        ("server", "everything"),
        ("action", "mcp.everything.echo"),
        ("outcome", "ok"),
    ];
    assert_eq!(
        number(&after, "switchboard_tool_calls_total", &echo_ok),
        2.0
    );
    let unknown = [("action", "mcp.unknown"), ("outcome", "tool_not_found")];
    assert_eq!(
        number(&after, "switchboard_tool_calls_total", &unknown),
        1.0
    );
    let text = get(&base, Some(TOKEN)).await.1;
    assert!(
        !text.contains("made_this_up"),
        "a caller's tool name is never a label value"
    );
    let everything = [("server", "everything")];
    for histogram in [
        "switchboard_tool_call_duration_seconds",
        "switchboard_tool_call_upstream_duration_seconds",
        "switchboard_tool_call_gateway_duration_seconds",
    ] {
        assert_eq!(
            observed(&before, histogram, &everything),
            0.0,
            "{histogram}"
        );
        assert_eq!(observed(&after, histogram, &everything), 2.0, "{histogram}");
    }
    assert!(number(&after, "switchboard_downstream_sessions", &[]) >= 1.0);
    assert!(number(&after, "switchboard_store_connections", &[]) >= 1.0);
    // The allocator's figures: live bytes, within what it holds in RAM.
    let live = number(&after, "switchboard_heap_allocated_bytes", &[]);
    let held = number(&after, "switchboard_heap_resident_bytes", &[]);
    assert!(live > 1e6 && live < held, "live {live}, held {held}");
    assert_eq!(
        number(&after, "switchboard_calls_in_flight", &everything),
        0.0
    );
    // The audit writer commits off the call path; its counters catch up with the calls.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let now = scrape(&base).await;
        if number(&now, "switchboard_audit_rows_written_total", &[]) >= 3.0 {
            assert!(number(&now, "switchboard_audit_batches_total", &[]) >= 1.0);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "audit rows never counted"
        );
        tokio::task::yield_now().await;
    }
}

/// POSTs `upstream` as the org's server `echoes`; it answers ready.
async fn connect_echoes(base: &str, token: &str, upstream: &str) {
    let body = json!({"name": "Echoes", "slug": "echoes", "url": upstream});
    let url = format!("{base}/api/integrations/mcp/servers");
    let (status, answer) = kit::rest("POST", &url, token, Some(body)).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["status"], "ready", "{answer}");
}

/// `times` calls of `echoes__echo` in one MCP session of `token`.
async fn call_echoes(url: &str, token: &str, times: u32) {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}}});
    let (session, _) = kit::post_mcp(url, Some(token), None, &init).await;
    let session = session.expect("session");
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    kit::post_mcp(url, Some(token), Some(&session), &done).await;
    for id in 1..=times {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echoes__echo", "arguments": {"message": "hi"}}});
        let (_, answer) = kit::post_mcp(url, Some(token), Some(&session), &call).await;
        assert!(answer.contains("Echo: hi"), "{answer}");
    }
}

/// Two orgs that connect a server under the same slug get a series each (label `org`); the
/// operator's config servers have `org=""`.
#[tokio::test(flavor = "multi_thread")]
async fn two_orgs_servers_with_one_slug_are_two_series() {
    let (dir, mcp_json) = kit::write_mcp_json(json!({"everything": kit::everything_stdio_entry()}));
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, format!("[gateway]\ntoken = \"{TOKEN}\"\n")).unwrap();
    let toml = toml.to_str().unwrap().to_string();
    let data = dir.path().join("data");
    let (mut tokens, mut ids) = (Vec::new(), Vec::new());
    for org in ["acme", "globex"] {
        let create = [
            "org",
            "create",
            org,
            "--feature",
            "mcp_external_servers",
            "--json",
        ];
        let created: serde_json::Value =
            serde_json::from_str(&kit::admin(Path::new(BIN), &data, &create)).expect("JSON");
        ids.push(created["id"].as_str().expect("an org id").to_string());
        tokens.push(kit::api_token(
            Path::new(BIN),
            &data,
            org,
            &["integrations:manage"],
        ));
    }
    let upstream = kit::EverythingHttp::start().await;
    let args = ["-c", &toml, "--dev"];
    let gateway = kit::Gateway::start(Path::new(BIN), &args, dir.path(), &mcp_json, 1).await;
    let base = gateway.base().to_string();
    for token in &tokens {
        connect_echoes(&base, token, &upstream.url).await;
    }
    call_echoes(&gateway.url, &tokens[0], 1).await;
    call_echoes(&gateway.url, &tokens[1], 2).await;

    let now = scrape(&base).await;
    // The label is the org's id (as `org list` shows it): names may change, ids do not.
    for (org, calls) in [(&ids[0], 1.0), (&ids[1], 2.0)] {
        let org = org.as_str();
        let ok = [("org", org), ("server", "echoes"), ("outcome", "ok")];
        let total = number(&now, "switchboard_tool_calls_total", &ok);
        assert_eq!(total, calls, "{org}");
        let labels = [("org", org), ("server", "echoes")];
        let histogram = "switchboard_tool_call_duration_seconds";
        assert_eq!(observed(&now, histogram, &labels), calls, "{org}");
        let ready = [("org", org), ("server", "echoes"), ("status", "ready")];
        let status = number(&now, "switchboard_server_status", &ready);
        assert_eq!(status, 1.0, "{org}");
        let entered = [("org", org), ("server", "echoes"), ("to", "ready")];
        let transitions = number(&now, "switchboard_server_transitions_total", &entered);
        assert_eq!(transitions, 1.0, "{org}");
    }
    let operators = [("org", ""), ("server", "everything"), ("status", "ready")];
    assert_eq!(number(&now, "switchboard_server_status", &operators), 1.0);
}
