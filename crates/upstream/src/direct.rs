//! `tools/call` over Streamable HTTP sent by the calling task: one POST on the session rmcp's
//! transport set up (or, to a 2026-07-28 server, with no session and the revision's headers),
//! its answer read right there, without the hops through rmcp's service loop, transport worker
//! and per-stream task that every other request takes.

pub(crate) mod request;
mod stream;

use crate::call::CallOptions;
use crate::events::EventHandler;
use crate::tap::TapClient;
use crate::{UpstreamError, http::classify_http};
use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, GetExtensions, RequestId,
    RequestMetaObject, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::{Peer, RoleClient};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Error as SseError, Sse};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;
use stream::CallStream;
use switchboard_sync::Mutex;

type Headers = HashMap<HeaderName, HeaderValue>;
type HttpError = StreamableHttpError<reqwest::Error>;
type SseStream = BoxStream<'static, Result<Sse, SseError>>;

/// How often a call's stream that ends before its answer is picked up again
/// (`Last-Event-ID`), as rmcp's transport would.
const MAX_RESUMES: u32 = 3;

/// The longest wait before picking a stream up again, whatever `retry` the upstream asked for
/// (the call's timeout bounds it anyway).
const MAX_RETRY_WAIT: Duration = Duration::from_secs(5);

/// Where a session's requests go: what rmcp's transport sent its last request with.
pub(crate) struct Target {
    uri: Arc<str>,
    /// `None` for a 2026-07-28 server: no sessions on that revision.
    session: Option<Arc<str>>,
    auth: Option<String>,
    /// rmcp's headers for the server, without the per-request ones of the 2026-07-28 revision
    /// (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), which each call sets for itself.
    headers: Headers,
}

/// The session rmcp's transport holds, learnt from the posts it makes (see [`TapClient`]).
#[derive(Clone)]
pub(crate) struct SessionTarget(Arc<Mutex<Known>>, Arc<tokio::sync::watch::Sender<bool>>);

impl Default for SessionTarget {
    fn default() -> Self {
        Self(
            Arc::default(),
            Arc::new(tokio::sync::watch::channel(false).0),
        )
    }
}

#[derive(Default)]
struct Known {
    current: Option<Arc<Target>>,
    /// A session the upstream ended: posts rmcp still makes on it do not bring it back.
    expired: Option<Arc<str>>,
    /// The server speaks 2026-07-28: posts without a session are learnt from too.
    stateless: bool,
}

/// Whether a header is one the 2026-07-28 revision sets per request.
fn per_request(name: &HeaderName) -> bool {
    let name = name.as_str();
    name == "mcp-method" || name == "mcp-name" || name.starts_with("mcp-param-")
}

impl SessionTarget {
    /// rmcp's transport asked for the session's stream of server messages (the GET), and
    /// the server answered it, with the stream or with a refusal.
    pub(crate) fn listened(&self) {
        self.1.send_replace(true);
    }

    /// Waits, at most `limit`, until the server's answer to that GET: a message the server
    /// sends on that stream before then could be lost. A 2026-07-28 server has no such
    /// stream: nothing to wait for.
    pub(crate) async fn until_listened(&self, limit: Duration) {
        if self.0.lock().stateless {
            return;
        }
        let mut listened = self.1.subscribe();
        let _ = tokio::time::timeout(limit, listened.wait_for(|l| *l)).await;
    }

    /// Notes a post of rmcp's transport: one on a new session replaces what was known.
    pub(crate) fn saw(
        &self,
        uri: &Arc<str>,
        session: Option<&Arc<str>>,
        auth: &Option<String>,
        headers: &Headers,
    ) {
        let mut known = self.0.lock();
        let Some(session) = session else {
            // A 2026-07-28 server: learnt once, from a post after the handshake.
            if known.stateless && known.current.is_none() {
                let mut headers = headers.clone();
                headers.retain(|name, _| !per_request(name));
                known.current = Some(Arc::new(Target {
                    uri: uri.clone(),
                    session: None,
                    auth: auth.clone(),
                    headers,
                }));
            }
            return;
        };
        let same = |s: &Arc<str>| s == session;
        if known
            .current
            .as_ref()
            .is_some_and(|t| t.session.as_ref().is_some_and(same))
            || known.expired.as_ref().is_some_and(same)
        {
            return;
        }
        known.current = Some(Arc::new(Target {
            uri: uri.clone(),
            session: Some(session.clone()),
            auth: auth.clone(),
            headers: headers.clone(),
        }));
    }

    /// The server speaks the sessionless 2026-07-28 revision.
    pub(crate) fn set_stateless(&self) {
        self.0.lock().stateless = true;
    }

    fn get(&self) -> Option<Arc<Target>> {
        self.0.lock().current.clone()
    }

    /// The upstream ended `session`: calls go through rmcp until it starts another.
    fn expired(&self, session: &Option<Arc<str>>) {
        let Some(session) = session else { return };
        let mut known = self.0.lock();
        if known
            .current
            .as_ref()
            .is_some_and(|t| t.session.as_ref() == Some(session))
        {
            known.current = None;
        }
        known.expired = Some(session.clone());
    }
}

/// Sends messages the way rmcp's transport does (same client, auth and taps).
trait Poster: Send + Sync + 'static {
    fn post<'a>(
        &'a self,
        message: ClientJsonRpcMessage,
        to: &'a Target,
    ) -> BoxFuture<'a, Result<StreamableHttpPostResponse, HttpError>>;

    fn resume<'a>(
        &'a self,
        to: &'a Target,
        last_event: String,
    ) -> BoxFuture<'a, Result<SseStream, HttpError>>;
}

struct Posting<C> {
    client: TapClient<C>,
    max_event: usize,
}

impl<C> Poster for Posting<C>
where
    C: StreamableHttpClient<Error = reqwest::Error> + Sync,
{
    fn post<'a>(
        &'a self,
        message: ClientJsonRpcMessage,
        to: &'a Target,
    ) -> BoxFuture<'a, Result<StreamableHttpPostResponse, HttpError>> {
        let mut headers = to.headers.clone();
        if to.session.is_none() {
            // The 2026-07-28 revision names the method and tool in headers too.
            headers.insert(
                HeaderName::from_static("mcp-method"),
                HeaderValue::from_static("tools/call"),
            );
            if let Some(name) = called_tool(&message).and_then(|n| HeaderValue::from_str(n).ok()) {
                headers.insert(HeaderName::from_static("mcp-name"), name);
            }
        }
        Box::pin(self.client.post_message_with_max_sse_event_size(
            to.uri.clone(),
            message,
            to.session.clone(),
            to.auth.clone(),
            headers,
            self.max_event,
        ))
    }

    fn resume<'a>(
        &'a self,
        to: &'a Target,
        last_event: String,
    ) -> BoxFuture<'a, Result<SseStream, HttpError>> {
        Box::pin(self.client.get_stream_with_max_sse_event_size(
            to.uri.clone(),
            to.session.clone(),
            Some(last_event),
            to.auth.clone(),
            to.headers.clone(),
            self.max_event,
        ))
    }
}

/// The tool a `tools/call` message names.
fn called_tool(message: &ClientJsonRpcMessage) -> Option<&str> {
    match message {
        ClientJsonRpcMessage::Request(r) => match &r.request {
            ClientRequest::CallToolRequest(call) => Some(&call.params.name),
            _ => None,
        },
        _ => None,
    }
}

/// A connection's direct way to send `tools/call`.
pub(crate) struct DirectHttp {
    poster: Arc<dyn Poster>,
    target: SessionTarget,
    next_id: AtomicU64,
}

/// What a direct call uses of its connection.
pub(crate) struct Link<'a> {
    pub peer: &'a Peer<RoleClient>,
    pub handler: &'a EventHandler,
    pub timeout: Duration,
    /// For a 2026-07-28 server: what each request carries in `_meta` (the revision, the
    /// client's name and what the caller can answer).
    pub request_meta: Option<RequestMetaObject>,
}

impl DirectHttp {
    pub(crate) fn new<C>(client: TapClient<C>, target: SessionTarget, max_event: usize) -> Self
    where
        C: StreamableHttpClient<Error = reqwest::Error> + Sync,
    {
        Self {
            poster: Arc::new(Posting { client, max_event }),
            target,
            next_id: AtomicU64::new(1),
        }
    }

    /// Waits, at most `limit`, until the server answered the session's GET stream.
    pub(crate) async fn until_listened(&self, limit: Duration) {
        self.target.until_listened(limit).await;
    }

    /// The server speaks the sessionless 2026-07-28 revision.
    pub(crate) fn set_stateless(&self) {
        self.target.set_stateless();
    }

    /// Sends the call and waits for its answer, within `link.timeout` and until `opts.cancel`;
    /// `None` when rmcp's transport must send it instead (no session yet, or the upstream
    /// ended the session before taking the call: rmcp starts another).
    pub(crate) async fn call_tool(
        &self,
        mut link: Link<'_>,
        params: CallToolRequestParams,
        opts: &CallOptions,
    ) -> Option<Result<ServerResult, UpstreamError>> {
        let target = self.target.get()?;
        let request::Outgoing {
            id,
            mut request,
            tap,
            untap: _untap,
            ..
        } = request::outgoing(&self.next_id, &mut link, params, opts);
        // Recorded by the tap as the request goes out.
        request.extensions_mut().insert(tap);
        let message = ClientJsonRpcMessage::request(request, id.clone());
        let exchange = async {
            match self.exchange(&link, message, &target, &id).await {
                Ok(None) => {
                    self.target.expired(&target.session);
                    None
                }
                Ok(Some(result)) => Some(Ok(result)),
                Err(e) => Some(Err(e)),
            }
        };
        request::bounded(&link, &id, opts, exchange).await
    }

    /// Posts the call and reads its answer; `Ok(None)` when the session had expired.
    async fn exchange(
        &self,
        link: &Link<'_>,
        message: ClientJsonRpcMessage,
        target: &Arc<Target>,
        id: &RequestId,
    ) -> Result<Option<ServerResult>, UpstreamError> {
        let mut call = CallStream::new(self, link, target, id);
        let mut stream = match self.poster.post(message, target).await {
            Err(StreamableHttpError::SessionExpired) => return Ok(None),
            Err(e) => return Err(classify_http(&e)),
            Ok(StreamableHttpPostResponse::Json(message, _)) => {
                return match call.take(message).await {
                    Some(answer) => answer.map(Some),
                    None => Err(unanswered()),
                };
            }
            Ok(StreamableHttpPostResponse::Accepted) => {
                return Err(UpstreamError::Transport(
                    "the upstream accepted tools/call (HTTP 202) without answering it".into(),
                ));
            }
            Ok(StreamableHttpPostResponse::Sse(stream, _)) => stream,
            Ok(_) => return Err(UpstreamError::Unexpected),
        };
        let mut last_event = None;
        let mut retry = Duration::ZERO;
        for _ in 0..=MAX_RESUMES {
            while let Some(event) = stream.next().await {
                let event = match event {
                    Ok(event) => event,
                    // The connection broke: the stream may be picked up again.
                    Err(SseError::Body(e)) if e.downcast_ref::<reqwest::Error>().is_some() => {
                        break;
                    }
                    Err(e) => {
                        let e = format!("the upstream's answer to tools/call: {e}");
                        return Err(UpstreamError::Transport(e));
                    }
                };
                if event.id.is_some() {
                    last_event = event.id;
                }
                if let Some(ms) = event.retry {
                    retry = Duration::from_millis(ms).min(MAX_RETRY_WAIT);
                }
                let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else {
                    continue;
                };
                let message = serde_json::from_str::<ServerJsonRpcMessage>(&data).map_err(|e| {
                    UpstreamError::Transport(format!(
                        "the upstream sent an unreadable message: {e}"
                    ))
                })?;
                if let Some(answer) = call.take(message).await {
                    return answer.map(Some);
                }
            }
            // The stream ended before the answer: pick it up where it broke, if it can be.
            let Some(from) = last_event.clone() else {
                break;
            };
            tokio::time::sleep(retry).await;
            stream = self
                .poster
                .resume(target, from)
                .await
                .map_err(|e| classify_http(&e))?;
        }
        Err(unanswered())
    }
}

fn unanswered() -> UpstreamError {
    UpstreamError::Transport("the upstream ended the call's stream without answering it".into())
}
