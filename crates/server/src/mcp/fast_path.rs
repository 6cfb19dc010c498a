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

mod reply;

use crate::mcp::sessions::live::{InUse, LiveSession, STATEFUL_IDLE_LIMIT};
use crate::mcp::sessions::ordered::OrderedSessions;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header, request::Parts};
use axum::response::Response;
use rmcp::model::{ClientRequest, GetMeta, ProtocolVersion, RequestId};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::SessionId;
use serde::Deserialize;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;
use switchboard_sync::Finish;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// How long a call may run before its answer becomes a stream (headers first, keep-alive
/// comments while it runs), so no client or proxy times out waiting for a silent call.
const STREAM_AFTER: Duration = Duration::from_secs(1);

/// What one endpoint's fast path needs: its sessions and rmcp's settings for the endpoint.
pub(crate) struct FastPath {
    sessions: Arc<OrderedSessions>,
    /// Allowed `Host` names without a port, lower-case; `None` when every host is allowed.
    hosts: Option<Vec<String>>,
    /// The largest body rmcp accepts; a larger one is left to rmcp to refuse.
    max_body: u64,
    /// Between keep-alive comments on a streamed answer (rmcp's setting).
    keep_alive: Option<Duration>,
    /// Cancelled when the server shuts down: ends streamed answers.
    shutdown: CancellationToken,
}

/// The JSON-RPC envelope; params are read once the method is known.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: Option<RequestId>,
    #[serde(borrow)]
    method: Cow<'a, str>,
}

/// What the fast path did with a request.
pub(crate) enum Answered {
    /// It answered.
    Here(Response),
    /// It is not for the fast path: the endpoint's rmcp service answers it.
    Elsewhere(Request),
}

impl FastPath {
    /// The fast path of one endpoint; its idle sessions are parked after `park_after` (when
    /// there is a session store to restore them from; without one, not before
    /// [`STATEFUL_IDLE_LIMIT`], and the client then starts a new session).
    pub(crate) fn new(
        sessions: Arc<OrderedSessions>,
        config: &StreamableHttpServerConfig,
        park_after: Option<Duration>,
    ) -> Self {
        // Entries with a port are matched by rmcp alone.
        let hosts = (!config.allowed_hosts.is_empty()).then(|| {
            config
                .allowed_hosts
                .iter()
                .filter(|h| !h.contains(':') || h.parse::<std::net::Ipv6Addr>().is_ok())
                .map(|h| h.trim_matches(['[', ']']).to_ascii_lowercase())
                .collect()
        });
        sessions.live().end_with(config.cancellation_token.clone());
        // `None`: never parked for idleness; the sweep still ends unfinished handshakes.
        let after = park_after.unwrap_or(Duration::MAX);
        let after = match config.session_store {
            Some(_) => after,
            None => after.max(STATEFUL_IDLE_LIMIT),
        };
        let shutdown = config.cancellation_token.clone();
        crate::mcp::sessions::parking::spawn(sessions.clone(), after, shutdown);
        Self {
            sessions,
            hosts,
            max_body: config.max_request_body_bytes as u64,
            keep_alive: config.sse_keep_alive,
            shutdown: config.cancellation_token.clone(),
        }
    }

    /// Answers `request` when it is a plain call on a live session; else hands it back.
    pub(crate) async fn answer(&self, request: Request) -> Answered {
        let Some(session) = self.plain_post(request.headers(), request.method()) else {
            return Answered::Elsewhere(request);
        };
        let Some((live, in_use)) = self.sessions.live().checkout(&session) else {
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
        let bytes = match axum::body::to_bytes(body, self.max_body as usize).await {
            Ok(bytes) => bytes,
            Err(e) => {
                let text = format!("Bad Request: {e}");
                return Answered::Here(reply::plain(StatusCode::BAD_REQUEST, text));
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
        // A notifications/cancelled goes to rmcp, whose session passes it to
        // `OrderedSessions::accept_message`, which cancels a fast-path call by that id.
        let (Some(id), Some(request)) = (envelope.id.clone(), parse_request(&envelope, &bytes))
        else {
            return back(parts, bytes);
        };
        if let ClientRequest::ListToolsRequest(_) = request {
            return Answered::Here(list_tools(&live, &id, request, parts).await);
        }
        Answered::Here(self.run(session, (live, in_use), id, request, parts).await)
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
        if !json
            || !sse
            || !essence.eq_ignore_ascii_case("application/json")
            || length > self.max_body
        {
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

    /// Runs the request in place, and answers with JSON, or with a stream when something
    /// comes before the result or the call takes longer than [`STREAM_AFTER`]. The call runs
    /// in this task while its answer is awaited here (no task of its own to wake across
    /// workers); when the answer becomes a stream, or the client hangs up, the rest runs in
    /// its own task, so the call still finishes and is audited.
    async fn run(
        &self,
        session: SessionId,
        (live, in_use): (Arc<LiveSession>, InUse),
        id: RequestId,
        mut request: ClientRequest,
        parts: Parts,
    ) -> Response {
        let mut ctx = RequestContext::new(id.clone(), live.peer.clone());
        ctx.ct = live.closed.child_token();
        ctx.meta = std::mem::take(request.get_meta_mut());
        ctx.extensions.insert(parts);
        let call = ctx.ct.clone();
        let (mut queued, registered) =
            self.sessions
                .open_call_queue(session, id.clone(), call.clone());
        let (answered, mut answer) = oneshot::channel::<reply::Answer>();
        let mut work = Finish::new(async move {
            // Held until the call ends: the session is not parked under it.
            let _in_use = in_use;
            let gateway = live.gateway.clone();
            let result = rmcp::Service::<RoleServer>::handle_request(&gateway, request, ctx).await;
            // Cancelled by the client, not by the session's end: nothing is answered.
            let by_client = call.is_cancelled() && !live.closed.is_cancelled();
            let _ = answered.send((!by_client).then_some(result));
        });
        let first = tokio::select! {
            biased;
            Some(first) = queued.recv() => Some(first),
            () = &mut work => {
                return reply::json(reply::message(answer.try_recv(), id));
            }
            _ = tokio::time::sleep(STREAM_AFTER) => None,
        };
        work.detach();
        reply::stream(reply::Pending {
            id,
            first,
            queued,
            answer,
            registered,
            shutdown: self.shutdown.clone(),
            keep_alive: self.keep_alive,
        })
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
    reply::tool_list(id, &tools)
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

/// Middleware: the fast path first, then the rest of the endpoint.
pub(crate) async fn first(
    axum::extract::State(fast): axum::extract::State<Arc<FastPath>>,
    request: Request,
    next: axum::middleware::Next,
) -> Response {
    match fast.answer(request).await {
        Answered::Here(response) => response,
        Answered::Elsewhere(request) => next.run(request).await,
    }
}
