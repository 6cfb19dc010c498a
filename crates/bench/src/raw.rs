//! A lean MCP client for the benches: raw JSON-RPC over keep-alive HTTP, no SDK, so the
//! measured server's own cost shows instead of hiding behind a client's.

use anyhow::ensure;
use serde_json::json;

const ACCEPT: &str = "application/json, text/event-stream";
pub const VERSION: &str = "2025-06-18";

/// One MCP session (initialize, then initialized) on `http`'s connections.
pub struct RawSession {
    http: reqwest::Client,
    url: String,
    id: Option<String>,
    next: u64,
}

impl RawSession {
    pub async fn open(http: reqwest::Client, url: &str) -> anyhow::Result<Self> {
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
    pub async fn post(&self, body: &serde_json::Value) -> anyhow::Result<reqwest::Response> {
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
    pub async fn request(
        &mut self,
        method: &str,
        params: serde_json::Value,
    ) -> anyhow::Result<String> {
        self.next += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        Ok(self.post(&body).await?.text().await?)
    }
}
