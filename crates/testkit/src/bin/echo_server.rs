//! A fast rmcp echo server for tests and benchmarks, over stdio or Streamable HTTP.
//!
//! `echo-server [--http ADDR] [--versions V1,V2,...] [--extra-tools N] [--interrupting]`: with `--http` it prints
//! `listening on http://ADDR/mcp` once it accepts connections; `--versions` narrows the protocol
//! versions it will agree to (default: every version rmcp knows); `--extra-tools N` adds tools
//! `t_0..t_N` and pages `tools/list` 10 at a time; `--tools-file FILE --tools-server NAME` offers
//! instead the tools of server NAME from a JSON list of definitions (each with a `server`
//! field, as crates/search/evalset/tools.json), whose calls answer their arguments as JSON; `--close-connections` closes every HTTP
//! connection after its response. Tools: `echo` (returns `text`), `headers`
//! (over HTTP: the Authorization, X-Test and traceparent request headers it received, and the request's
//! JSON-RPC id), `huge` (`size` bytes of text), with `--interrupting` `interrupted` (over HTTP: ends the call's
//! response stream before answering, so the answer is only had by resuming it with
//! `Last-Event-ID`), and the extras.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::store::{
    EventStore, EventStoreError, EventStream,
};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::borrow::Cow;
use std::sync::Arc;

#[derive(Clone)]
struct Echo {
    versions: Arc<Vec<ProtocolVersion>>,
    extra_tools: usize,
    /// Over HTTP: the sessions, so a tool can end its own response stream.
    sessions: Option<Arc<LocalSessionManager>>,
    /// `--interrupting`: offer the `interrupted` tool.
    interrupting: bool,
    /// `--tools-file` with `--tools-server`: the only tools offered.
    file_tools: Option<Arc<Vec<Tool>>>,
}

/// The tools of `server` in the JSON list at `path`.
fn tools_from_file(path: &str, server: &str) -> Result<Vec<Tool>, Box<dyn std::error::Error>> {
    let all: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let mut tools = Vec::new();
    for mut definition in all {
        if definition["server"] == server {
            definition.as_object_mut().map(|d| d.remove("server"));
            tools.push(serde_json::from_value(definition)?);
        }
    }
    Ok(tools)
}

const PAGE_SIZE: usize = 10;

fn object_schema() -> Arc<rmcp::model::JsonObject> {
    let schema = serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}});
    match schema {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}

impl rmcp::ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        if let Some(latest) = self.versions.last() {
            info.protocol_version = latest.clone();
        }
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(self.versions.as_ref().clone())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if let Some(tools) = &self.file_tools {
            return Ok(ListToolsResult::with_all_items(tools.as_ref().clone()));
        }
        let mut tools = vec![
            Tool::new("echo", "Echoes `text` back", object_schema()),
            Tool::new("huge", "Returns `size` bytes of text", object_schema()),
            Tool::new(
                "headers",
                "Returns the Authorization, X-Test and traceparent headers it received, its SERVICE_TOKEN and pid",
                object_schema(),
            ),
        ];
        if self.interrupting {
            tools.push(Tool::new(
                "interrupted",
                "Ends its response stream, then answers `resumed`",
                object_schema(),
            ));
        }
        tools.extend(
            (0..self.extra_tools).map(|i| Tool::new(format!("t_{i}"), "extra", object_schema())),
        );
        if self.extra_tools == 0 {
            return Ok(ListToolsResult::with_all_items(tools));
        }
        let start: usize = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let end = (start + PAGE_SIZE).min(tools.len());
        let mut page = ListToolsResult::with_all_items(tools[start.min(end)..end].to_vec());
        page.next_cursor = (end < tools.len()).then(|| end.to_string());
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(tools) = &self.file_tools
            && tools.iter().any(|t| t.name == request.name)
        {
            let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
            let text = ContentBlock::text(arguments.to_string());
            return Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                text,
            ])));
        }
        if request.name == "headers" {
            let parts = context.extensions.get::<http::request::Parts>();
            let header = |name: &str| {
                parts
                    .and_then(|p| p.headers.get(name))
                    .and_then(|v| v.to_str().ok())
                    .map(String::from)
            };
            let seen = serde_json::json!({
                "authorization": header("authorization"),
                "x_test": header("x-test"),
                "traceparent": header("traceparent"),
                "request_id": context.id,
                // Over stdio: the token the process was started with, and which process.
                "service_token": std::env::var("SERVICE_TOKEN").ok(),
                // As the gateway knows it: in a sandbox, its helper's (the server is PID 2 of
                // its own namespace).
                "pid": std::env::var("SWITCHBOARD_SANDBOX_PID")
                    .ok()
                    .and_then(|p| p.parse::<u32>().ok())
                    .unwrap_or_else(std::process::id),
                // In a sandbox, the process's own folder.
                "home": std::env::var("HOME").ok(),
            });
            return Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text(seen.to_string()),
            ])));
        }
        if request.name == "huge" {
            let size = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("size"))
                .and_then(|s| s.as_u64())
                .unwrap_or(1_000_000) as usize;
            return Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text("x".repeat(size)),
            ])));
        }
        if request.name == "interrupted" {
            let parts = context.extensions.get::<http::request::Parts>();
            let session = parts
                .and_then(|p| p.headers.get("mcp-session-id"))
                .and_then(|v| v.to_str().ok());
            let (Some(sessions), Some(session)) = (&self.sessions, session) else {
                return Err(ErrorData::invalid_params("interrupted needs HTTP", None));
            };
            let handle = sessions.sessions.read().await.get(session).cloned();
            let Some(handle) = handle else {
                return Err(ErrorData::invalid_params("no such session", None));
            };
            // rmcp does not tell a handler which of the session's streams is its own: only
            // this call's stream is open in the tests that use this tool, so all are ended.
            // The priming event each gets asks the client to come back after 100 ms; the
            // answer is kept for it (`KeptEvents`).
            for stream in 0..64 {
                let retry = Some(std::time::Duration::from_millis(100));
                let _ = handle.close_sse_stream(stream, retry).await;
            }
            return Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text("resumed"),
            ])));
        }
        if request.name != "echo" {
            return Err(ErrorData::invalid_params(
                format!("no tool {}", request.name),
                None,
            ));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(|t| t.as_str())
            .unwrap_or("")
            .to_string();
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        if let Some(version) = context.protocol_version() {
            let mut meta = rmcp::model::JsonObject::new();
            meta.insert("protocolVersion".into(), version.to_string().into());
            result.meta = Some(rmcp::model::MetaObject(meta));
        }
        Ok(CallToolResponse::Complete(result))
    }
}

/// Every event each stream sent, kept so a stream can be resumed after it ended (rmcp's own
/// cache forgets a request's stream once it has answered).
#[derive(Default)]
struct KeptEvents(switchboard_sync::Mutex<Vec<(String, ServerSseMessage)>>);

#[async_trait::async_trait]
impl EventStore for KeptEvents {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<String, EventStoreError> {
        let mut kept = self.0.lock();
        let id = kept.len().to_string();
        let mut event = event.clone();
        event.event_id = Some(id.clone());
        kept.push((stream_id.to_string(), event));
        Ok(id)
    }

    async fn replay_events_after(&self, last: &str) -> Result<EventStream, EventStoreError> {
        let kept = self.0.lock();
        let after: usize = last.parse()?;
        let stream = kept.get(after).map(|(stream, _)| stream.clone());
        let later: Vec<ServerSseMessage> = kept
            .iter()
            .skip(after + 1)
            .filter(|(s, _)| Some(s) == stream.as_ref())
            .map(|(_, event)| event.clone())
            .collect();
        Ok(Box::pin(futures::stream::iter(later)))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let versions = match flag("--versions") {
        Some(list) => list
            .split(',')
            .map(|v| serde_json::from_value(v.trim().into()))
            .collect::<Result<Vec<ProtocolVersion>, _>>()?,
        None => ProtocolVersion::KNOWN_VERSIONS.to_vec(),
    };
    let interrupting = args.iter().any(|a| a == "--interrupting");
    let mut sessions = LocalSessionManager::default();
    if interrupting {
        sessions = sessions.with_event_store(Arc::new(KeptEvents::default()));
    }
    let sessions = Arc::new(sessions);
    let echo = Echo {
        versions: Arc::new(versions),
        extra_tools: flag("--extra-tools")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
        sessions: Some(sessions.clone()),
        interrupting,
        file_tools: match (flag("--tools-file"), flag("--tools-server")) {
            (Some(path), Some(server)) => Some(Arc::new(tools_from_file(&path, &server)?)),
            _ => None,
        },
    };
    match flag("--http") {
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            let local = listener.local_addr()?;
            let service = StreamableHttpService::new(
                move || Ok(echo.clone()),
                sessions,
                // A test upstream: any Host (tests reach it under made-up names).
                StreamableHttpServerConfig::default().disable_allowed_hosts(),
            );
            let mut app = axum::Router::new().nest_service("/mcp", service);
            if args.iter().any(|a| a == "--close-connections") {
                // Every response ends its TCP connection, so each request needs a new one.
                app = app.layer(axum::middleware::map_response(
                    |mut response: axum::response::Response| async move {
                        response.headers_mut().insert(
                            http::header::CONNECTION,
                            http::HeaderValue::from_static("close"),
                        );
                        response
                    },
                ));
            }
            println!("listening on http://{local}/mcp");
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            axum::serve(listener, app).await?;
        }
        None => {
            use rmcp::ServiceExt;
            echo.serve(rmcp::transport::stdio())
                .await?
                .waiting()
                .await?;
        }
    }
    Ok(())
}
