//! A lean MCP client for the benches: raw JSON-RPC over keep-alive HTTP, no SDK, so the
//! measured server's own cost shows instead of hiding behind a client's.

use anyhow::ensure;
use serde_json::json;

const ACCEPT: &str = "application/json, text/event-stream";
pub(crate) const VERSION: &str = "2025-06-18";

/// One MCP session (initialize, then initialized) on `http`'s connections.
pub(crate) struct RawSession {
    http: reqwest::Client,
    url: String,
    id: Option<String>,
    next: u64,
}

impl RawSession {
    pub(crate) async fn open(http: reqwest::Client, url: &str) -> anyhow::Result<Self> {
        let mut session = Self {
            http,
            url: url.to_string(),
            id: None,
            next: 1,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {},
            "clientInfo": {"name": "switchboard-bench", "version": "1"}}});
        let response = session.post(&init).await?;
        session.id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        response.bytes().await?;
        let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        session.post(&done).await?.bytes().await?;
        Ok(session)
    }

    /// One JSON-RPC message in this session; fails on a non-2xx answer.
    pub(crate) async fn post(&self, body: &serde_json::Value) -> anyhow::Result<reqwest::Response> {
        let mut request = self
            .http
            .post(&self.url)
            .header("accept", ACCEPT)
            .header("mcp-protocol-version", VERSION)
            .json(body);
        if let Some(id) = &self.id {
            request = request.header("mcp-session-id", id);
        }
        let response = request.send().await?;
        ensure!(response.status().is_success(), "HTTP {}", response.status());
        Ok(response)
    }

    /// A request of `method` with `params`, under the next id; the whole answer as text.
    pub(crate) async fn request(
        &mut self,
        method: &str,
        params: serde_json::Value,
    ) -> anyhow::Result<String> {
        self.next += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        Ok(self.post(&body).await?.text().await?)
    }
}

/// Whether a second client, on 127.0.0.2, is served beside whatever load 127.0.0.1 puts on
/// the gateway at `url`: it opens a session and calls `echo__echo`. One line saying so, with
/// how long that took.
#[allow(dead_code)] // not every bench has a second client
pub(crate) async fn second_client_served(url: &str) -> String {
    let asked = std::time::Instant::now();
    let served = async {
        let other = reqwest::Client::builder()
            .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
            .build()?;
        let mut session = RawSession::open(other, url).await?;
        let call = json!({"name": "echo__echo", "arguments": {"text": "hi"}});
        session.request("tools/call", call).await
    }
    .await;
    let took_ms = asked.elapsed().as_secs_f64() * 1e3;
    match served {
        Ok(body) if body.contains("hi") => {
            format!(
                "a second client (127.0.0.2): session opened and a tool called in {took_ms:.1} ms"
            )
        }
        Ok(body) => format!("a second client (127.0.0.2): unexpected answer {body}"),
        Err(e) => format!("a second client (127.0.0.2): FAILED: {e:#}"),
    }
}

/// The lines of a `/metrics` scrape that start with `name`, joined with "; ".
#[allow(dead_code)]
pub(crate) fn metric_lines(scrape: &str, name: &str) -> String {
    (scrape.lines())
        .filter(|l| l.starts_with(name))
        .collect::<Vec<_>>()
        .join("; ")
}
