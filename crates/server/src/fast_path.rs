//! `tools/call` and `tools/list` on a live Streamable HTTP session, answered here instead of
//! through rmcp's per-request stream, session worker and service loop.
//!
//! The gateway's own handler still answers: the request runs through rmcp's
//! `Service::handle_request` with the session's peer, as rmcp would run it. What is skipped is
//! the transport around it. The answer is plain `application/json` when the result is the
//! first thing the call has for its caller; when a log line, progress or a request to the
//! client comes first, the answer becomes an SSE stream that carries them, in order, and then
//! the result (the choice the Streamable HTTP transport leaves to the server).
//!
//! Only plain requests take this path: a POST from a non-browser client (no `Origin`) to an
//! allowed host, on a session that negotiated a revision before 2026-07-28, without the
//! headers and `_meta` keys rmcp validates for later revisions. Everything else, and anything
//! this code cannot parse, goes to rmcp unchanged, which answers or refuses it as before.

use crate::live_sessions::LiveSession;
use crate::ordered_sessions::OrderedSessions;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header, request::Parts};
use axum::response::Response;
use futures::FutureExt;
use rmcp::model::{
    CancelledNotificationParam, ClientRequest, ErrorData, GetMeta, ProtocolVersion, RequestId,
    RequestMetaObject, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::SessionId;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;
use std::task::Poll;
use tokio::sync::oneshot;

/// The largest body rmcp accepts (its default); a larger one is left to rmcp to refuse.
const MAX_BODY: u64 = 4 * 1024 * 1024;

/// What one endpoint's fast path needs: its sessions and the hosts it serves.
pub struct FastPath {
    sessions: Arc<OrderedSessions>,
    /// Allowed `Host` names without a port, lower-case; `None` when every host is allowed.
    hosts: Option<Vec<String>>,
}

/// The JSON-RPC envelope, with its params left unparsed until the method is known.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: Option<RequestId>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

type Answer = Result<ServerResult, ErrorData>;

/// What the fast path did with a request.
pub enum Answered {
    /// It answered.
    Here(Response),
    /// It is not for the fast path: the endpoint's rmcp service answers it.
    Elsewhere(Request),
}

impl FastPath {
    pub fn new(sessions: Arc<OrderedSessions>, config: &StreamableHttpServerConfig) -> Self {
        // Entries with a port are matched by rmcp alone.
        let hosts = (!config.allowed_hosts.is_empty()).then(|| {
            config
                .allowed_hosts
                .iter()
                .filter(|h| !h.contains(':') || h.parse::<std::net::Ipv6Addr>().is_ok())
                .map(|h| h.trim_matches(['[', ']']).to_ascii_lowercase())
                .collect()
        });
        Self { sessions, hosts }
    }

    /// Answers `request` when it is a plain call on a live session; else hands it back.
    pub async fn answer(&self, request: Request) -> Answered {
        let Some(session) = self.plain_post(request.headers(), request.method()) else {
            return Answered::Elsewhere(request);
        };
        let Some(live) = self.sessions.live().get(&session) else {
            return Answered::Elsewhere(request);
        };
        let modern = live
            .peer
            .peer_info()
            .is_none_or(|info| info.protocol_version >= ProtocolVersion::V_2026_07_28);
        if modern {
            return Answered::Elsewhere(request);
        }
        let (parts, body) = request.into_parts();
        let bytes = match axum::body::to_bytes(body, MAX_BODY as usize).await {
            Ok(bytes) => bytes,
            Err(e) => {
                let text = format!("Bad Request: {e}");
                return Answered::Here(plain(StatusCode::BAD_REQUEST, text));
            }
        };
        let back =
            |parts, bytes| Answered::Elsewhere(Request::from_parts(parts, Body::from(bytes)));
        let Ok(envelope) = serde_json::from_slice::<Envelope>(&bytes) else {
            return back(parts, bytes);
        };
        if envelope.jsonrpc != "2.0" {
            return back(parts, bytes);
        }
        let (Some(id), Some(request)) = (envelope.id.clone(), parse_request(&envelope, &bytes))
        else {
            if envelope.method == "notifications/cancelled" {
                self.cancel(&session, envelope.params);
            }
            return back(parts, bytes);
        };
        if live.keep_alive_due() {
            self.sessions.keep_alive(&session).await;
        }
        if let ClientRequest::ListToolsRequest(_) = request {
            return Answered::Here(list_tools(&live, &id, request, parts).await);
        }
        Answered::Here(self.run(session, &live, id, request, parts).await)
    }

    /// The session id of a POST whose headers need no check beyond what is done here.
    fn plain_post(&self, headers: &HeaderMap, method: &Method) -> Option<SessionId> {
        if method != Method::POST || headers.contains_key(header::ORIGIN) {
            return None;
        }
        if let Some(hosts) = &self.hosts {
            let host = headers.get(header::HOST)?.to_str().ok()?;
            let host = axum::http::uri::Authority::try_from(host).ok()?;
            let name = host.host().trim_matches(['[', ']']).to_ascii_lowercase();
            if !hosts.contains(&name) {
                return None;
            }
        }
        let (mut json, mut sse) = (false, false);
        for accepted in headers.get(header::ACCEPT)?.to_str().ok()?.split(',') {
            let (essence, params) = accepted.split_once(';').unwrap_or((accepted, ""));
            if params.contains("q=") {
                return None; // weights: rmcp's parser decides
            }
            json |= essence.trim().eq_ignore_ascii_case("application/json");
            sse |= essence.trim().eq_ignore_ascii_case("text/event-stream");
        }
        let content_type = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
        let essence = content_type.split(';').next().unwrap_or_default().trim();
        let length: u64 = headers
            .get(header::CONTENT_LENGTH)?
            .to_str()
            .ok()?
            .parse()
            .ok()?;
        if !json || !sse || !essence.eq_ignore_ascii_case("application/json") || length > MAX_BODY {
            return None;
        }
        if let Some(version) = headers.get("mcp-protocol-version") {
            let version = version.to_str().ok()?;
            let known = ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .any(|v| v.as_str() == version);
            if !known || version >= ProtocolVersion::STANDARD_HEADERS.as_str() {
                return None;
            }
        }
        let session = headers.get("mcp-session-id")?.to_str().ok()?;
        Some(SessionId::from(session))
    }

    /// Cancels a fast-path call the client gave up on (rmcp, which never saw the call, is
    /// told too and ignores it).
    fn cancel(&self, session: &SessionId, params: Option<&RawValue>) {
        let Some(params) = params else { return };
        let Ok(cancelled) = serde_json::from_str::<CancelledNotificationParam>(params.get()) else {
            return;
        };
        if let Some(id) = cancelled.request_id {
            self.sessions.cancel_call(session, &id);
        }
    }

    /// Runs the request in its own task (it finishes and is audited even if the client hangs
    /// up) and answers with JSON, or with a stream when something comes before the result.
    async fn run(
        &self,
        session: SessionId,
        live: &LiveSession,
        id: RequestId,
        mut request: ClientRequest,
        parts: Parts,
    ) -> Response {
        let mut ctx = RequestContext::new(id.clone(), live.peer.clone());
        ctx.ct = live.closed.child_token();
        let mut meta = RequestMetaObject::new();
        std::mem::swap(&mut meta, request.get_meta_mut());
        ctx.meta = meta;
        ctx.extensions.insert(parts);
        let (mut queued, registered) =
            self.sessions
                .open_call_queue(session, id.clone(), ctx.ct.clone());
        let (answered, mut answer) = oneshot::channel::<Answer>();
        let gateway = live.gateway.clone();
        tokio::spawn(async move {
            let answer = rmcp::Service::<RoleServer>::handle_request(&gateway, request, ctx).await;
            let _ = answered.send(answer);
        });
        // The gateway delivers what comes before the result before it answers, so a queued
        // message is always seen before the result.
        let first = tokio::select! {
            biased;
            Some(first) = queued.recv() => first,
            answer = &mut answer => return json(&message(answer, id)),
        };
        let mut first = Some(first);
        let mut answer = Some(answer);
        let events = futures::stream::poll_fn(move |cx| {
            let _open = &registered;
            if let Some(first) = first.take() {
                return Poll::Ready(Some(event(&first)));
            }
            if let Poll::Ready(Some(next)) = queued.poll_recv(cx) {
                return Poll::Ready(Some(event(&next)));
            }
            let Some(pending) = answer.as_mut() else {
                return Poll::Ready(None);
            };
            let result = std::task::ready!(pending.poll_unpin(cx));
            answer = None;
            Poll::Ready(Some(event(&message(result, id.clone()))))
        });
        Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .header(header::CACHE_CONTROL, "no-cache")
            .body(Body::from_stream(events))
            .unwrap_or_else(|e| plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
    }
}

/// `tools/list` from each tool's ready-made JSON: what the gateway's `list_tools` answers,
/// without building and serialising every definition again.
async fn list_tools(
    live: &LiveSession,
    id: &RequestId,
    mut request: ClientRequest,
    parts: Parts,
) -> Response {
    let meta = std::mem::take(request.get_meta_mut());
    let mut extensions = rmcp::model::Extensions::new();
    extensions.insert(parts);
    let tools = live.gateway.visible_tools_json(&extensions, &meta).await;
    let size: usize = tools.iter().map(|t| t.get().len() + 1).sum();
    let mut body = Vec::with_capacity(size + 64);
    body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    if let Err(e) = serde_json::to_writer(&mut body, id) {
        return plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string());
    }
    body.extend_from_slice(br#","result":{"tools":["#);
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(tool.get().as_bytes());
    }
    body.extend_from_slice(b"]}}");
    Response::builder()
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .unwrap_or_else(|e| plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// The typed request for a method the fast path answers, read as rmcp reads it (`_meta`
/// goes to the request's extensions); `None` for any other method, or a body this parser
/// cannot read, which rmcp then refuses properly.
fn parse_request(envelope: &Envelope, body: &[u8]) -> Option<ClientRequest> {
    envelope.id.as_ref()?;
    let request = match envelope.method.as_ref() {
        "tools/call" => ClientRequest::CallToolRequest(serde_json::from_slice(body).ok()?),
        "tools/list" => ClientRequest::ListToolsRequest(serde_json::from_slice(body).ok()?),
        _ => return None,
    };
    // A per-request protocol version belongs to the 2026-07-28 revision: rmcp checks it.
    request
        .get_meta()
        .protocol_version()
        .is_none()
        .then_some(request)
}

/// The JSON-RPC message that answers request `id`.
fn message(
    answer: Result<Answer, oneshot::error::RecvError>,
    id: RequestId,
) -> ServerJsonRpcMessage {
    match answer {
        Ok(Ok(result)) => ServerJsonRpcMessage::response(result, id),
        Ok(Err(error)) => ServerJsonRpcMessage::error(error, Some(id)),
        Err(_) => ServerJsonRpcMessage::error(
            ErrorData::internal_error("the call ended without an answer", None),
            Some(id),
        ),
    }
}

/// One message as an `application/json` response.
fn json(message: &ServerJsonRpcMessage) -> Response {
    match serde_json::to_vec(message) {
        Ok(body) => Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .unwrap_or_else(|e| plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())),
        Err(e) => plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// One message as an SSE event.
fn event(message: &ServerJsonRpcMessage) -> Result<Bytes, std::convert::Infallible> {
    let mut frame = b"data: ".to_vec();
    if serde_json::to_writer(&mut frame, message).is_err() {
        frame.truncate(6);
        frame.extend_from_slice(
            br#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"unserialisable message"}}"#,
        );
    }
    frame.extend_from_slice(b"\n\n");
    Ok(Bytes::from(frame))
}

/// A plain-text response.
fn plain(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
}

/// Middleware: the fast path first, then the rest of the endpoint.
pub async fn first(
    axum::extract::State(fast): axum::extract::State<Arc<FastPath>>,
    request: Request,
    next: axum::middleware::Next,
) -> Response {
    match fast.answer(request).await {
        Answered::Here(response) => response,
        Answered::Elsewhere(request) => next.run(request).await,
    }
}
