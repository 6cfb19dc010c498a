//! What the REST API tests share: a served API over a real store, tokens, and reading the
//! server-sent status events.
#![allow(dead_code)] // each test file uses its own part

use reqwest::StatusCode;
use serde_json::Value;
use switchboard_registry::Registry;
use switchboard_server::ControlPlane;
use switchboard_server::{HttpOptions, serve_http};
use switchboard_store::{SqlStore, Store, new_api_token};
use tokio_util::sync::CancellationToken;

pub(crate) const ECHO: &str = env!("CARGO_BIN_EXE_echo-server");
pub(crate) const SECRET: &str = "upstream-bearer-token-that-must-stay-sealed";

pub(crate) struct Api {
    pub base: String,
    pub http: reqwest::Client,
}

impl Api {
    pub(crate) async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = self
            .http
            .request(method.parse().unwrap(), format!("{}{path}", self.base));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status();
        let text = resp.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }
}

/// The gateway with the REST API on a free loopback port.
pub(crate) async fn serve_api(
    registry: Registry,
    state: ControlPlane,
) -> (
    Api,
    CancellationToken,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let options = HttpOptions::default()
        .with_shutdown(shutdown.clone())
        .with_control_plane(state);
    let server = tokio::spawn(serve_http(listener, registry, options));
    let api = Api {
        base,
        http: reqwest::Client::new(),
    };
    (api, shutdown, server)
}

pub(crate) async fn token(store: &SqlStore, org_id: &str, roles: &[&str]) -> String {
    let (token, hash) = new_api_token();
    let roles: Vec<String> = roles.iter().map(|r| r.to_string()).collect();
    store.create_token(org_id, &roles, &hash).await.unwrap();
    token
}

/// The JSON `data:` of each server-sent event in `response`.
pub(crate) fn sse_events(
    response: reqwest::Response,
) -> std::pin::Pin<Box<dyn futures::Stream<Item = Value> + Send>> {
    use futures::StreamExt;
    let lines = response
        .bytes_stream()
        .scan(String::new(), |pending, chunk| {
            pending.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
            let mut data = Vec::new();
            while let Some(end) = pending.find('\n') {
                let line: String = pending.drain(..=end).collect();
                if let Some(json) = line.trim_end().strip_prefix("data:") {
                    data.push(serde_json::from_str(json.trim()).unwrap());
                }
            }
            futures::future::ready(Some(futures::stream::iter(data)))
        });
    Box::pin(lines.flatten())
}

pub(crate) async fn next_event(
    events: &mut std::pin::Pin<Box<dyn futures::Stream<Item = Value> + Send>>,
) -> Value {
    use futures::StreamExt;
    tokio::time::timeout(std::time::Duration::from_secs(20), events.next())
        .await
        .expect("an event")
        .expect("the stream stays open")
}

/// Reads events until `server` reports `status`.
pub(crate) async fn until_status(
    events: &mut std::pin::Pin<Box<dyn futures::Stream<Item = Value> + Send>>,
    server: &str,
    status: &str,
) {
    loop {
        let event = next_event(events).await;
        if event["server"] == server && event["status"] == status {
            return;
        }
    }
}

pub(crate) fn kind(body: &Value) -> &str {
    body["error"]["kind"].as_str().unwrap_or_default()
}

/// An rmcp client on the Streamable HTTP endpoint `url`, sending `token` as its bearer.
pub(crate) async fn mcp_client(
    url: &str,
    token: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    config.auth_header = Some(token.to_string());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    ().serve(transport).await.expect("an MCP session")
}

/// How a test connects to an upstream itself: loopback allowed (dev egress), nothing else set.
pub(crate) fn dev_connect_options() -> switchboard_upstream::ConnectOptions {
    switchboard_upstream::ConnectOptions {
        http: switchboard_upstream::UpstreamHttp::new(switchboard_egress::EgressPolicy::dev()),
        events: None,
        limits: Default::default(),
        allow_env: Vec::new(),
        sandbox: None,
        roots: Vec::new(),
        log_level: Default::default(),
        oauth: None,
        clock: Default::default(),
        capabilities: None,
    }
}
