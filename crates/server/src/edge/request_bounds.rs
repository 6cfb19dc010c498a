//! Bounds on each request at the front door: the size of its body and the time to read it,
//! the requests a session and a bearer token have in flight, and the wrong tokens one client
//! address may try.

mod failed_auth;

use crate::mcp::sessions::admission::owner;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use failed_auth::FailedAuth;
use http_body_util::BodyExt;
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use switchboard_core::Limits;
use switchboard_sync::Mutex;

/// The request bounds in force (`[limits]`).
#[derive(Debug, Clone, Copy)]
pub struct RequestCaps {
    pub max_body_bytes: usize,
    pub body_read_timeout: Duration,
    pub per_session: usize,
    pub per_token: usize,
    pub failed_auth_per_minute: usize,
}

impl RequestCaps {
    pub fn from_limits(limits: &Limits) -> Self {
        Self {
            max_body_bytes: limits.max_request_bytes,
            body_read_timeout: Duration::from_secs(limits.body_read_secs as u64),
            per_session: limits.max_concurrent_requests_per_session,
            per_token: limits.max_concurrent_requests_per_token,
            failed_auth_per_minute: limits.failed_auth_per_minute,
        }
    }
}

impl Default for RequestCaps {
    fn default() -> Self {
        Self::from_limits(&Limits::default())
    }
}

/// Why a request was turned away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    BodyTooLarge,
    BodyTooSlow,
    SessionBusy,
    TokenBusy,
    FailedAuth,
}

impl Refusal {
    const ALL: [Refusal; 5] = [
        Refusal::BodyTooLarge,
        Refusal::BodyTooSlow,
        Refusal::SessionBusy,
        Refusal::TokenBusy,
        Refusal::FailedAuth,
    ];

    fn setting(self) -> &'static str {
        match self {
            Refusal::BodyTooLarge => "max_request_bytes",
            Refusal::BodyTooSlow => "body_read_secs",
            Refusal::SessionBusy => "max_concurrent_requests_per_session",
            Refusal::TokenBusy => "max_concurrent_requests_per_token",
            Refusal::FailedAuth => "failed_auth_per_minute",
        }
    }
}

/// What a request is counted against while in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Session(u64),
    Token(u64),
    Client(IpAddr),
}

/// The front door's request bounds, with what they refused.
pub struct RequestBounds {
    caps: RequestCaps,
    busy: Mutex<HashMap<Key, usize>>,
    failed_auth: FailedAuth,
    refused: [AtomicU64; 5],
    wrong_tokens: AtomicU64,
}

impl Default for RequestBounds {
    fn default() -> Self {
        Self::new(RequestCaps::default())
    }
}

impl RequestBounds {
    pub fn new(caps: RequestCaps) -> Self {
        Self {
            caps,
            busy: Mutex::default(),
            failed_auth: FailedAuth::new(caps.failed_auth_per_minute),
            refused: Default::default(),
            wrong_tokens: AtomicU64::new(0),
        }
    }

    pub fn caps(&self) -> RequestCaps {
        self.caps
    }

    /// Requests refused so far, by the `[limits]` setting that refused them.
    pub fn refusals(&self) -> Vec<(&'static str, u64)> {
        let count = |r: Refusal| self.refused[r as usize].load(Ordering::Relaxed);
        Refusal::ALL.map(|r| (r.setting(), count(r))).to_vec()
    }

    /// Requests whose bearer token was refused (401) so far.
    pub fn wrong_tokens(&self) -> u64 {
        self.wrong_tokens.load(Ordering::Relaxed)
    }

    /// Counts a request against its session and its caller, or says which is at its limit.
    fn enter(self: &Arc<Self>, session: Option<Key>, caller: Option<Key>) -> Result<Busy, Refusal> {
        let mut busy = self.busy.lock();
        let count = |key: Option<Key>| key.and_then(|k| busy.get(&k).copied()).unwrap_or(0);
        if session.is_some() && count(session) >= self.caps.per_session {
            return Err(Refusal::SessionBusy);
        }
        if caller.is_some() && count(caller) >= self.caps.per_token {
            return Err(Refusal::TokenBusy);
        }
        for key in [session, caller].into_iter().flatten() {
            *busy.entry(key).or_default() += 1;
        }
        Ok(Busy {
            bounds: self.clone(),
            keys: [session, caller],
        })
    }

    /// The request's body read whole, within the size and time bounds.
    async fn read_body(&self, request: Request) -> Result<(Parts, Bytes), Response> {
        let (parts, body) = request.into_parts();
        let declared = (parts.headers.get(header::CONTENT_LENGTH))
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.caps.max_body_bytes as u64) {
            return Err(self.refuse(Refusal::BodyTooLarge, None));
        }
        let limited = http_body_util::Limited::new(body, self.caps.max_body_bytes);
        let mut collect = std::pin::pin!(limited.collect());
        // A body that has already arrived (most do, with their head) needs no timer.
        let read = match futures::FutureExt::now_or_never(collect.as_mut()) {
            Some(read) => Ok(read),
            None => tokio::time::timeout(self.caps.body_read_timeout, collect).await,
        };
        match read {
            Ok(Ok(collected)) => Ok((parts, collected.to_bytes())),
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
                Err(self.refuse(Refusal::BodyTooLarge, None))
            }
            Ok(Err(e)) => Err(answer(
                StatusCode::BAD_REQUEST,
                None,
                "invalid_request",
                None,
                &format!("the request body could not be read: {e}"),
            )),
            Err(_) => Err(self.refuse(Refusal::BodyTooSlow, None)),
        }
    }

    /// Counts `refusal` and answers it; `wait` is when to retry, if known.
    fn refuse(&self, refusal: Refusal, wait: Option<Duration>) -> Response {
        self.refused[refusal as usize].fetch_add(1, Ordering::Relaxed);
        let caps = self.caps;
        let setting = refusal.setting();
        let (status, kind, retry, message) = match refusal {
            Refusal::BodyTooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "invalid_request",
                None,
                format!(
                    "the request body is larger than {} bytes; send less, or raise [limits] {setting}",
                    caps.max_body_bytes
                ),
            ),
            Refusal::BodyTooSlow => (
                StatusCode::REQUEST_TIMEOUT,
                "invalid_request",
                None,
                format!(
                    "the request body did not arrive within {} s; check the client's connection, or raise [limits] {setting}",
                    caps.body_read_timeout.as_secs()
                ),
            ),
            Refusal::SessionBusy => (
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                Some(1),
                format!(
                    "this session has {} requests in flight, its limit; wait for their answers before sending more, or raise [limits] {setting}",
                    caps.per_session
                ),
            ),
            Refusal::TokenBusy => (
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                Some(1),
                format!(
                    "this bearer token (or, without one, your address) has {} requests in flight, its limit; wait for their answers before sending more, or raise [limits] {setting}",
                    caps.per_token
                ),
            ),
            Refusal::FailedAuth => {
                let secs = wait.map_or(1, |w| w.as_secs_f64().ceil().max(1.0) as u64);
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    "rate_limited",
                    Some(secs),
                    format!(
                        "too many requests with a wrong bearer token came from your address; retry in {secs} s with a valid token, or raise [limits] {setting}"
                    ),
                )
            }
        };
        tracing::debug!(limit = setting, "request refused: {message}");
        answer(status, retry, kind, Some(setting), &message)
    }

    /// Counts a 401 answer to a request that bore a token against its client's attempts.
    fn answered(&self, bore_token: bool, client: Option<IpAddr>, response: &Response) {
        if bore_token && response.status() == StatusCode::UNAUTHORIZED {
            self.wrong_tokens.fetch_add(1, Ordering::Relaxed);
            if let Some(client) = client {
                self.failed_auth.failed(client, Instant::now());
            }
        }
    }
}

/// One request in flight, counted against its session and caller until its answer is sent.
struct Busy {
    bounds: Arc<RequestBounds>,
    keys: [Option<Key>; 2],
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut busy = self.bounds.busy.lock();
        for key in self.keys.into_iter().flatten() {
            if let Some(n) = busy.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    busy.remove(&key);
                }
            }
        }
    }
}

/// A front-door refusal: the status, `Retry-After` when known, and the body REST and MCP
/// clients both read (see `switchboard_listener::refusal_body`).
fn answer(
    status: StatusCode,
    retry: Option<u64>,
    kind: &str,
    limit: Option<&str>,
    message: &str,
) -> Response {
    let body = switchboard_listener::refusal_body(kind, limit.unwrap_or_default(), message);
    let mut response = (status, axum::Json(body)).into_response();
    if let Some(retry) = retry {
        (response.headers_mut()).insert(header::RETRY_AFTER, HeaderValue::from(retry));
    }
    response
}

/// Whether `body` is a JSON-RPC notification or response (an answer to the gateway's own
/// request, a cancel): never refused for concurrency, or a session at its limit could not
/// cancel its calls or answer the questions they wait on.
fn notice_or_reply(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Envelope {
        jsonrpc: Option<serde::de::IgnoredAny>,
        id: Option<serde::de::IgnoredAny>,
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Envelope>(body)
        .is_ok_and(|e| e.jsonrpc.is_some() && (e.id.is_none() || e.method.is_none()))
}

/// What the front door's middleware keeps: the bounds, and the count of answers being
/// written that a graceful shutdown waits for.
#[derive(Clone)]
pub(crate) struct FrontDoor {
    pub bounds: Arc<RequestBounds>,
    pub in_flight: crate::edge::in_flight::InFlight,
}

/// What a request holds until its answer has been sent: its place in the shutdown's count,
/// and its place within the concurrency bounds (none for a notification or response).
struct Entered {
    _writing: crate::edge::in_flight::Guard,
    _busy: Option<Busy>,
}

/// The middleware: every request is checked against its client's wrong tokens; one with a
/// body (not GET, HEAD or OPTIONS) has it read within the bounds before the route sees it,
/// is counted while its answer is written, and, unless it is a JSON-RPC notification or
/// response, is counted against its session's and caller's requests in flight.
pub(crate) async fn bound(
    State(FrontDoor { bounds, in_flight }): State<FrontDoor>,
    request: Request,
    next: Next,
) -> Response {
    let owner = owner(&request);
    let bore_token = request.headers().contains_key(header::AUTHORIZATION);
    if bore_token
        && let Some(client) = owner.client
        && let Some(wait) = bounds.failed_auth.blocked(client, Instant::now())
    {
        return bounds.refuse(Refusal::FailedAuth, Some(wait));
    }
    if matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    ) {
        let response = next.run(request).await;
        bounds.answered(bore_token, owner.client, &response);
        return response;
    }
    let session = request.headers().get(HEADER_SESSION_ID).map(|id| {
        static KEYS: std::sync::OnceLock<std::collections::hash_map::RandomState> =
            std::sync::OnceLock::new();
        Key::Session(KEYS.get_or_init(Default::default).hash_one(id.as_bytes()))
    });
    let caller = owner
        .token
        .map(Key::Token)
        .or(owner.client.map(Key::Client));
    let (parts, body) = match bounds.read_body(request).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let busy = match notice_or_reply(&body) {
        true => None,
        false => match bounds.enter(session, caller) {
            Ok(busy) => Some(busy),
            Err(refusal) => return bounds.refuse(refusal, None),
        },
    };
    let entered = Entered {
        _writing: in_flight.enter(),
        _busy: busy,
    };
    let response = next.run(Request::from_parts(parts, Body::from(body))).await;
    bounds.answered(bore_token, owner.client, &response);
    crate::edge::in_flight::held_until_sent(response, entered)
}
