//! The `oauth-server` fixture (an authorization server and a protected MCP server) driven from a test.

use crate::Served;
use serde_json::Value;
use std::path::Path;

/// A running `oauth-server`; `binary` is its path (`env!("CARGO_BIN_EXE_oauth-server")` in
/// this crate's tests).
pub struct AuthServer {
    pub served: Served,
    /// The server's root, e.g. `http://127.0.0.1:PORT` (`/token` and `/admin/…` live here).
    pub base: String,
}

impl AuthServer {
    pub async fn start(binary: &Path, args: &[&str]) -> Self {
        let served = Served::start(binary, args).await;
        let base = served.url.trim_end_matches("/mcp").to_string();
        Self { served, base }
    }

    /// `POST /admin/{what}`: `revoke-access`, `revoke-refresh` or `issue` (a token pair).
    pub async fn admin(&self, what: &str) -> Value {
        let response = reqwest::Client::new()
            .post(format!("{}/admin/{what}", self.base))
            .send()
            .await
            .unwrap();
        response.json().await.unwrap_or(Value::Null)
    }

    /// Token requests answered so far with `grant` (`client_credentials`, `refresh_token`…).
    pub async fn stats(&self, grant: &str) -> u64 {
        let stats: Value = reqwest::get(format!("{}/admin/stats", self.base))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        stats[grant].as_u64().unwrap_or(0)
    }
}
