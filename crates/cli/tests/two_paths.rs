//! Two paths for one call (issue 31), compared outcome by outcome: every `tools/call` outcome
//! (ok, tool error, unknown tool, bad arguments, rate limited, policy denied, timeout) gets the
//! same JSON-RPC answer, field by field with ids and timings aside, whether the fast path
//! answers it in front of rmcp's transport or rmcp does (a request the fast path declines), and
//! whether the gateway sends the call itself (posted to a Streamable HTTP upstream by
//! `direct.rs`, written onto a stdio server's stdin by `direct_stdio.rs`) or rmcp's client
//! sends it (the same fixture over HTTP+SSE). The official Python SDK client reads the fast
//! path's answers as the raw ones say.

use serde_json::{Value, json};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// Where a refused call's kind is (crates/server/src/mcp/gateway.rs `KIND_META_KEY`).
const KIND: &str = "switchboard/error";

/// A browser's request (it carries an allowed `Origin`): the fast path leaves it to rmcp.
const BROWSER: [(&str, &str); 1] = [("origin", "http://localhost:3000")];

/// The relay fixture three ways: over Streamable HTTP (its calls posted by `direct.rs`), over
/// stdio (written by `direct_stdio.rs`) and over HTTP+SSE (sent by rmcp's client).
const RELAYS: [&str; 3] = ["viahttp", "viastdio", "viasse"];

/// The upstreams whose calls the gateway sends itself; the others' go through rmcp's client.
const DIRECT: [&str; 4] = ["viahttp", "viastdio", "hangh", "hangs"];

/// Calls to `hangh` (Streamable HTTP) and `hangs` (stdio) give up after this: under the fast
/// path's one second before it streams, so a timeout is answered as JSON too.
const TIMEOUT_MS: u64 = 200;

const POLICY: &str = r#"[policy]

[[policy.rules]]
name = "no-roots"
actions = ["mcp.*.show_roots"]
effect = "deny"
reason = "roots stay private"

[[policy.rate_limits]]
name = "one-bump"
scope = "org_action"
actions = ["mcp.*.bump"]
rate = "1/h"
"#;

/// Each outcome on a relay server: its name, the tool, the arguments, the kind it must have
/// ("ok"; "upstream" for the upstream's own `isError`; else the gateway's kind) and what its
/// first text block says.
const OUTCOMES: [(&str, &str, &str, &str, &str); 6] = [
    ("ok", "rich", "{}", "ok", "text"),
    // The fixture asks for sampling; the caller declared none, so the ask is declined and
    // the tool fails.
    (
        "tool error",
        "summarize",
        r#"{"text": "hi"}"#,
        "upstream",
        "cannot be relayed",
    ),
    (
        "unknown tool",
        "nope",
        "{}",
        "tool_not_found",
        "no tool named",
    ),
    // `count` is required by its input schema; the upstream's SDK refuses the call.
    (
        "bad arguments",
        "chatty",
        "{}",
        "upstream",
        "validation error",
    ),
    ("rate limited", "bump", "{}", "rate_limited", "one-bump"),
    (
        "policy denied",
        "show_roots",
        "{}",
        "policy_denied",
        "roots stay private",
    ),
];

/// One call to make, and what its answer must be.
struct Case {
    outcome: &'static str,
    server: &'static str,
    tool: &'static str,
    arguments: &'static str,
    kind: &'static str,
    says: &'static str,
}

impl Case {
    fn name(&self) -> String {
        format!("{}__{}", self.server, self.tool)
    }

    /// Panics unless `answer` is this case's outcome (so two paths that agree on a wrong
    /// answer do not pass).
    fn check(&self, answer: &Value) {
        let result = &answer["result"];
        let kind = match result["isError"] == true {
            true => result["_meta"][KIND]["kind"].as_str().unwrap_or("upstream"),
            false => "ok",
        };
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            kind == self.kind && text.contains(self.says),
            "{} on {}: {answer}",
            self.outcome,
            self.name()
        );
    }
}

/// Every outcome on each relay server, then a timeout on each of the slow ones.
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for server in RELAYS {
        for (outcome, tool, arguments, kind, says) in OUTCOMES {
            cases.push(Case {
                outcome,
                server,
                tool,
                arguments,
                kind,
                says,
            });
        }
    }
    let slow = r#"{"text": "late", "ms": 5000}"#;
    for (server, tool, arguments) in [("hangh", "slow", slow), ("hangs", "hang", "{}")] {
        let (outcome, kind, says) = ("timeout", "timeout", "no answer within");
        cases.push(Case {
            outcome,
            server,
            tool,
            arguments,
            kind,
            says,
        });
    }
    cases
}

/// A gateway on the relay fixture three ways (RELAYS), the misbehaving fixture (`hangs`,
/// stdio) and the counting fixture (`hangh`, Streamable HTTP) with calls bounded by
/// TIMEOUT_MS, under POLICY, and a session on it that spent each relay's one `bump`.
struct Started {
    gateway: kit::Gateway,
    session: String,
    _dir: tempfile::TempDir,
    _fixtures: [kit::Served; 3],
}

async fn start() -> Started {
    let python = kit::python();
    let relay = kit::relay_server();
    let relay = relay.to_str().expect("a UTF-8 path");
    let http = kit::Served::start(&python, &[relay, "http"]).await;
    let sse = kit::Served::start(&python, &[relay, "sse"]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let counts = dir.path().join("counts.json");
    let counting = kit::counting_http_server();
    let port = kit::free_port().to_string();
    let args = [
        counting.to_str().expect("a UTF-8 path"),
        port.as_str(),
        counts.to_str().expect("a UTF-8 path"),
    ];
    let slow = kit::Served::start(&python, &args).await;
    let servers = json!({"mcpServers": {
        "viahttp": {"type": "http", "url": http.url},
        "viastdio": kit::relay_entry(),
        "viasse": {"type": "sse", "url": sse.url},
        "hangs": kit::misbehaving_entry(TIMEOUT_MS),
        "hangh": {"type": "http", "url": slow.url, "timeout_ms": TIMEOUT_MS},
    }});
    let mcp = dir.path().join("mcp.json");
    std::fs::write(&mcp, serde_json::to_vec_pretty(&servers).unwrap()).unwrap();
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(&toml, POLICY).unwrap();
    let toml = toml.to_string_lossy().into_owned();
    let args = ["--dev", "-c", toml.as_str()];
    let mut gateway = kit::Gateway::start(Path::new(BIN), &args, dir.path(), &mcp, 5).await;
    gateway.ignore_log();
    let session = kit::open_session(&gateway.url).await;
    for server in RELAYS {
        spend(&gateway.url, &session, server).await;
    }
    Started {
        gateway,
        session,
        _dir: dir,
        _fixtures: [http, sse, slow],
    }
}

/// POSTs `tools/call` of `tool` with `arguments` (JSON text) on `session`, with `extra`
/// headers; the answer's content type and body.
async fn call(
    url: &str,
    session: &str,
    tool: &str,
    arguments: &str,
    extra: &[(&str, &str)],
) -> (String, String) {
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let arguments: Value = serde_json::from_str(arguments).expect("arguments are JSON");
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    let (kind, response) = kit::post_in_session(url, session, &message, extra).await;
    (kind, response.text().await.expect("the answer"))
}

/// Spends `server`'s one `bump` of the hour: every later one there is rate limited.
async fn spend(url: &str, session: &str, server: &str) {
    let (_, body) = call(url, session, &format!("{server}__bump"), "{}", &[]).await;
    assert!(
        kit::tool_outcome(&body).is_ok(),
        "the first bump on {server} passes: {body}"
    );
}

/// The response in an answer (one JSON body, or SSE `data:` lines), with what differs from
/// call to call set aside: its `id`, and the timings a refusal carries. The gateway puts no
/// trace id or duration in a result's `_meta` (gateway/replies.rs `failed_result`): there,
/// only `retry_after_ms` is per call.
fn response(body: &str) -> Value {
    let messages: Vec<Value> = match serde_json::from_str::<Value>(body) {
        Ok(one) => vec![one],
        Err(_) => body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect(),
    };
    let mut answer = messages
        .into_iter()
        .find(|m| m.get("result").is_some() || m.get("error").is_some())
        .unwrap_or_else(|| panic!("no response in {body}"));
    if let Some(object) = answer.as_object_mut() {
        object.remove("id");
    }
    if let Some(refusal) = answer
        .pointer_mut("/result/_meta/switchboard~1error")
        .and_then(Value::as_object_mut)
    {
        refusal.remove("retry_after_ms");
    }
    untimed(&mut answer);
    answer
}

/// Every string in `value` with the durations a refusal names masked.
fn untimed(value: &mut Value) {
    match value {
        Value::String(text) => *text = untimed_text(text),
        Value::Array(items) => items.iter_mut().for_each(untimed),
        Value::Object(map) => map.values_mut().for_each(untimed),
        _ => {}
    }
}

/// `text` with "retry after N ms" as "retry after _ ms", and without the note on how long a
/// timed-out call waited for a slot (" (N ms of it waiting …)").
fn untimed_text(text: &str) -> String {
    let mut text = text.to_string();
    if let Some(note) = text.find(" ms of it waiting")
        && let Some(open) = text[..note].rfind(" (")
        && let Some(close) = text[note..].find(')')
    {
        text.replace_range(open..note + close + 1, "");
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("retry after ") {
        let (head, tail) = rest.split_at(at + "retry after ".len());
        out.push_str(head);
        let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push('_');
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// `answer` with `server`'s name as `SERVER` (in tool names, action ids and messages), so
/// answers from two servers compare.
fn masked(answer: &Value, server: &str) -> Value {
    serde_json::from_str(&answer.to_string().replace(server, "SERVER")).expect("still JSON")
}

/// What tests/clients/mcp_probe.py prints for a tool result (its `outcome`).
fn digest(answer: &Value) -> Value {
    let result = &answer["result"];
    let blocks = result["content"].as_array().map(Vec::as_slice);
    let blocks = blocks.unwrap_or_default();
    let text: String = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
    let error = match &result["_meta"][KIND] {
        Value::Null => json!({}),
        error => error.clone(),
    };
    let is_error = result["isError"] == true;
    let kind = error["kind"].clone();
    json!({"is_error": is_error, "text": text, "kind": kind, "error": error})
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fast_path_and_rmcp_answer_every_outcome_alike() {
    let started = start().await;
    let (url, session) = (started.gateway.url.as_str(), started.session.as_str());
    let mut answered = Vec::new();
    for case in cases() {
        let (outcome, name) = (case.outcome, case.name());
        // Plain: the fast path takes it and answers JSON.
        let (kind, body) = call(url, session, &name, case.arguments, &[]).await;
        assert_eq!(kind, "application/json", "{outcome} on {name}: {body}");
        let fast = response(&body);
        case.check(&fast);
        // With an Origin: rmcp's transport answers, as a stream.
        let (kind, body) = call(url, session, &name, case.arguments, &BROWSER).await;
        assert_eq!(kind, "text/event-stream", "{outcome} on {name}: {body}");
        assert_eq!(
            response(&body),
            fast,
            "{outcome} on {name}: rmcp's answer (left) and the fast path's differ"
        );
        answered.push((case, fast));
    }
    // The official Python SDK client sends no Origin (the fast path's): what it reads of each
    // answer is what the raw answer says.
    for (case, fast) in answered.iter().filter(|(c, _)| DIRECT.contains(&c.server)) {
        let name = case.name();
        let args = ["call", url, name.as_str(), case.arguments];
        let mut seen = kit::run_client("mcp_probe.py", &args).await;
        if let Some(refusal) = seen["error"].as_object_mut() {
            refusal.remove("retry_after_ms");
        }
        untimed(&mut seen);
        assert_eq!(
            seen,
            digest(fast),
            "{} on {name}: what the Python SDK client read (left)",
            case.outcome
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn direct_posts_and_rmcps_client_bring_back_the_same_outcomes() {
    let started = start().await;
    let (url, session) = (started.gateway.url.as_str(), started.session.as_str());
    let mut answers = Vec::new();
    for case in cases() {
        let (_, body) = call(url, session, &case.name(), case.arguments, &[]).await;
        let answer = response(&body);
        case.check(&answer);
        answers.push((case.outcome, case.server, masked(&answer, case.server)));
    }
    // The Streamable HTTP and stdio upstreams' calls were the gateway's own (ids `sb-N`), the
    // HTTP+SSE one's rmcp's client's (numbers): the comparisons below are across the paths.
    for (server, own_post) in [("viahttp", true), ("viastdio", true), ("viasse", false)] {
        let (_, body) = call(url, session, &format!("{server}__request_id"), "{}", &[]).await;
        let id = response(&body)["result"]["content"][0]["text"].clone();
        let id = id.as_str().unwrap_or_default();
        assert_eq!(
            id.starts_with("sb-"),
            own_post,
            "{server}'s upstream saw id {id}"
        );
    }
    let mut compared = 0;
    for (outcome, direct, posted) in answers.iter().filter(|a| DIRECT.contains(&a.1)) {
        let others = answers
            .iter()
            .filter(|a| a.0 == *outcome && !DIRECT.contains(&a.1));
        for (_, other, sent) in others {
            assert_eq!(
                sent, posted,
                "{outcome}: {other} (rmcp's client, left) and {direct} (the gateway's own) differ"
            );
            compared += 1;
        }
    }
    // Each relay outcome, over Streamable HTTP and over stdio, against HTTP+SSE.
    assert_eq!(compared, OUTCOMES.len() * 2, "every outcome was compared");
    // No fixture hangs over HTTP+SSE: the two direct paths' timeouts are compared instead.
    let timeouts: Vec<_> = answers.iter().filter(|a| a.1.starts_with("hang")).collect();
    assert_eq!(timeouts.len(), 2, "{timeouts:?}");
    assert_eq!(
        timeouts[0].2, timeouts[1].2,
        "the two direct paths time out alike"
    );
}
