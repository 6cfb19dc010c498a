//! Traces (issue 14): a call made with a W3C `traceparent` is traced through `serve` into a
//! loopback OTLP collector (the downstream request, the call, its policy stages and the
//! upstream request, each the child of the one before; store work inside a request), and the
//! HTTP upstream receives a `traceparent` naming the gateway's upstream span in the caller's
//! trace.

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use switchboard_testkit as kit;
use switchboard_testkit::otlp::{OtlpReceiver, ReceivedSpan};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";
const DENIED_TRACE: &str = "5bf92f3577b34da6a3ce929d0e0e4737";

/// POSTs `message` on `session` with `traceparent`; the JSON-RPC answer.
async fn post(url: &str, session: &str, message: &Value, traceparent: &str) -> Value {
    let response = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session)
        .header("traceparent", traceparent)
        .json(message)
        .send()
        .await
        .expect("POST");
    assert!(response.status().is_success(), "{}", response.status());
    let body = response.text().await.unwrap();
    let json = body
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or(&body);
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn named<'a>(spans: &'a [ReceivedSpan], trace: &str, name: &str) -> Option<&'a ReceivedSpan> {
    spans.iter().find(|s| s.trace_id == trace && s.name == name)
}

fn one<'a>(spans: &'a [ReceivedSpan], trace: &str, name: &str) -> &'a ReceivedSpan {
    named(spans, trace, name).unwrap_or_else(|| {
        let seen: Vec<_> = spans.iter().map(|s| (&s.name, &s.trace_id)).collect();
        panic!("no span {name:?} in trace {trace}; received {seen:?}")
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_is_traced_from_the_callers_traceparent_to_the_upstream() {
    let collector = OtlpReceiver::start().await;
    // The echo server is the testkit's binary, built beside this one by the workspace build.
    let echo_bin = Path::new(BIN).with_file_name("echo-server");
    assert!(
        echo_bin.exists(),
        "{} is missing: build it with `cargo build -p switchboard-testkit`",
        echo_bin.display()
    );
    let echo = kit::Served::start(&echo_bin, &["--http", "127.0.0.1:0"]).await;
    let (dir, mcp_json) = kit::write_mcp_json(json!({"echo": {"url": echo.url}}));
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(
        &toml,
        format!(
            r#"[telemetry]
endpoint = "{}"
service_name = "switchboard-under-test"

[policy]

[[policy.rules]]
name = "no-secrets"
actions = ["mcp.echo.echo"]
when = [{{ path = "/text", matches = "^secret" }}]
effect = "deny"
reason = "secrets stay here"
"#,
            collector.endpoint
        ),
    )
    .unwrap();
    let toml = toml.to_str().unwrap().to_string();
    let mut gateway = kit::Gateway::start(
        Path::new(BIN),
        &["--dev", "-c", &toml],
        dir.path(),
        &mcp_json,
        1,
    )
    .await;
    let session = kit::open_session(&gateway.url).await;

    let traceparent = format!("00-{TRACE}-{CALLER_SPAN}-01");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo__headers", "arguments": {}}});
    let answer = post(&gateway.url, &session, &call, &traceparent).await;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    let seen: Value = serde_json::from_str(text).unwrap();
    let upstream_parent = seen["traceparent"]
        .as_str()
        .expect("the upstream received a traceparent");
    let parts: Vec<&str> = upstream_parent.split('-').collect();
    assert_eq!(parts.len(), 4, "{upstream_parent}");
    assert_eq!(
        parts[1], TRACE,
        "the upstream's request is in the caller's trace"
    );
    assert_ne!(
        parts[2], CALLER_SPAN,
        "it names the gateway's span, not the caller's"
    );
    assert_eq!(parts[3], "01", "sampled, as the caller's was");

    let denied = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo__echo", "arguments": {"text": "secret plans"}}});
    let refused = post(
        &gateway.url,
        &session,
        &denied,
        &format!("00-{DENIED_TRACE}-{CALLER_SPAN}-01"),
    )
    .await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    // The log goes on beside the traces: the refusal's INFO line, in the caller's trace.
    let line = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(line) = gateway.log.recv().await {
            if line.contains("refused") {
                return line;
            }
        }
        panic!("the gateway's log ended");
    })
    .await
    .expect("a refused line in the log");
    assert!(line.contains("mcp.echo.echo"), "{line}");

    // Spans are exported in batches; stopping the gateway sends what is left.
    // SAFETY: signalling our own child process.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(gateway.child.id().unwrap() as i32, libc::SIGTERM)
    };
    let stopped = tokio::time::timeout(Duration::from_secs(30), gateway.child.wait()).await;
    assert!(stopped.expect("serve stops on SIGTERM").unwrap().success());
    let spans = collector
        .wait_for(Duration::from_secs(10), |spans| {
            named(spans, TRACE, "tools/call headers").is_some()
                && named(spans, DENIED_TRACE, "policy.rules").is_some()
        })
        .await;

    let request = one(&spans, TRACE, "POST /mcp");
    assert_eq!(
        request.parent_span_id, CALLER_SPAN,
        "a child of the caller's span"
    );
    assert_eq!(request.kind, 2, "a server span");
    assert_eq!(request.service, "switchboard-under-test");
    assert_eq!(request.attributes["http.response.status_code"], "200");
    let call = one(&spans, TRACE, "tools/call echo__headers");
    assert_eq!(call.parent_span_id, request.span_id);
    assert_eq!(call.attributes["gen_ai.tool.name"], "echo__headers");
    assert_eq!(call.attributes["switchboard.action"], "mcp.echo.headers");
    assert_eq!(call.attributes["switchboard.server"], "echo");
    assert!(!call.attributes.contains_key("error.type"), "{call:?}");
    let admit = one(&spans, TRACE, "policy.admit");
    assert_eq!(admit.parent_span_id, call.span_id);
    let rules = one(&spans, TRACE, "policy.rules");
    assert_eq!(rules.parent_span_id, admit.span_id);
    let upstream = one(&spans, TRACE, "tools/call headers");
    assert_eq!(upstream.parent_span_id, call.span_id);
    assert_eq!(upstream.kind, 3, "a client span");
    assert_eq!(
        upstream.span_id, parts[2],
        "the span the upstream was told of"
    );

    // A request without a traceparent starts a trace of its own; the store's work in it
    // (the new session saved) is a child of its request.
    let saved = spans
        .iter()
        .find(|s| s.name == "store.save_session")
        .expect("a store span");
    let parent = spans.iter().find(|s| s.span_id == saved.parent_span_id);
    assert_eq!(parent.map(|p| p.name.as_str()), Some("POST /mcp"));
    assert_eq!(parent.unwrap().parent_span_id, "", "a root span");

    let refused_call = one(&spans, DENIED_TRACE, "tools/call echo__echo");
    assert_eq!(refused_call.attributes["error.type"], "policy_denied");
    assert!(
        named(&spans, DENIED_TRACE, "tools/call echo").is_none(),
        "a refused call never reaches the upstream"
    );
    // The trace carries names and outcomes, never the arguments.
    assert!(
        spans
            .iter()
            .all(|s| s.attributes.values().all(|v| !v.contains("secret plans")))
    );
}
