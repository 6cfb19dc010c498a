//! The extensions fixture (tests/fixtures/extensions_server.ts: tasks and skills) run with
//! Node 22, and raw 2026-07-28 requests as any client of that revision sends them.

use serde_json::{Value, json};
use std::path::PathBuf;

/// Node 22 (npm's `node` package), which runs TypeScript fixtures with
/// `--experimental-strip-types`.
pub fn node22() -> PathBuf {
    super::fixture("node22/node_modules/.bin/node")
}

/// The arguments that run the extensions fixture, `--stdio` for stdio.
pub fn extensions_args(stdio: bool) -> Vec<String> {
    let script = super::repo_root().join("tests/fixtures/extensions_server.ts");
    let mut args = vec![
        "--experimental-strip-types".to_string(),
        "--no-warnings".to_string(),
        script.display().to_string(),
    ];
    if stdio {
        args.push("--stdio".into());
    }
    args
}

/// The extensions fixture as a stdio server entry.
pub fn extensions_entry() -> Value {
    json!({ "command": node22(), "args": extensions_args(true) })
}

/// The extensions fixture over Streamable HTTP, with `env` (e.g. `TASK_TTL_MS`).
pub async fn extensions_http(env: &[(&str, &str)]) -> super::Served {
    let args = extensions_args(false);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    super::Served::start_with_env(&node22(), &args, env).await
}

/// What one 2026-07-28 request declares and asserts besides its params.
#[derive(Debug, Clone, Default)]
pub struct Request2026<'a> {
    /// `_meta.io.modelcontextprotocol/clientCapabilities`.
    pub capabilities: Value,
    /// `_meta.bound_end_user_id`: the end user the request asserts.
    pub end_user: Option<&'a str>,
}

impl Request2026<'_> {
    /// A caller that declared the tasks extension and form elicitation.
    pub fn with_tasks() -> Self {
        Self {
            capabilities: json!({
                "elicitation": {"form": {}},
                "extensions": {"io.modelcontextprotocol/tasks": {}},
            }),
            end_user: None,
        }
    }
}

/// POSTs one 2026-07-28 request (`method`, `params` plus the revision's `_meta` and headers)
/// to `url`; its JSON-RPC answer (plain JSON or the last SSE event).
pub async fn rpc_2026(url: &str, method: &str, params: Value, how: &Request2026<'_>) -> Value {
    let mut params = params;
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": how.capabilities,
    });
    if let Some(user) = how.end_user {
        meta["bound_end_user_id"] = user.into();
    }
    params["_meta"] = meta;
    let name = ["name", "uri", "taskId"]
        .iter()
        .find_map(|k| params.get(*k).and_then(Value::as_str))
        .map(String::from);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .json(&body);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    let text = request.send().await.expect("POST").text().await.unwrap();
    super::rpc_answer(&text)
}
