//! How the fast path writes an answer: one JSON body, or an SSE stream of what the call sends
//! its caller before the result, with keep-alive comments while it waits.

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::Response;
use futures::{FutureExt, StreamExt};
use rmcp::model::{ErrorData, RequestId, ServerJsonRpcMessage, ServerResult};
use serde_json::value::RawValue;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// What the call's task hands back: the handler's answer, or `None` when the client cancelled
/// the request (the protocol sends no response to a cancelled request).
pub(super) type Answer = Option<Result<ServerResult, ErrorData>>;

/// A call whose answer is not known yet, with what it queued for its caller.
pub(super) struct Pending {
    pub id: RequestId,
    pub first: Option<ServerJsonRpcMessage>,
    pub queued: mpsc::Receiver<ServerJsonRpcMessage>,
    pub answer: oneshot::Receiver<Answer>,
    /// Dropped when the stream ends: unregisters the call's queue.
    pub registered: crate::mcp::sessions::ordered::Registered,
    /// Ends the stream (server shutdown).
    pub shutdown: CancellationToken,
    pub keep_alive: Option<Duration>,
}

/// The JSON-RPC message that answers request `id`, if one is due (`Err`: the call's work
/// ended without handing back an answer).
pub(super) fn message<E>(answer: Result<Answer, E>, id: RequestId) -> Option<ServerJsonRpcMessage> {
    match answer {
        Ok(Some(Ok(result))) => Some(ServerJsonRpcMessage::response(result, id)),
        Ok(Some(Err(error))) => Some(ServerJsonRpcMessage::error(error, Some(id))),
        Ok(None) => None,
        Err(_) => Some(ServerJsonRpcMessage::error(
            ErrorData::internal_error("the call ended without an answer", None),
            Some(id),
        )),
    }
}

/// One message as an `application/json` response; none (a cancelled request) as an empty
/// stream.
pub(super) fn json(message: Option<ServerJsonRpcMessage>) -> Response {
    let Some(message) = message else {
        return stream_response(Body::empty());
    };
    match serde_json::to_vec(&message) {
        Ok(body) => Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .unwrap_or_else(|e| plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())),
        Err(e) => plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// The call as an SSE stream: what it queued, in order, then its answer; a comment every
/// `keep_alive` while it waits; cut short at shutdown.
pub(super) fn stream(pending: Pending) -> Response {
    let Pending {
        id,
        mut first,
        mut queued,
        answer,
        registered,
        shutdown,
        keep_alive,
    } = pending;
    let mut answer = Some(answer);
    let start = tokio::time::Instant::now();
    let mut ping = keep_alive.map(|every| tokio::time::interval_at(start + every, every));
    let events = futures::stream::poll_fn(move |cx| {
        let _open = &registered;
        if let Some(first) = first.take() {
            return Poll::Ready(Some(event(&first)));
        }
        // The gateway delivers what comes before the result before it answers, so a queued
        // message is always seen before the result.
        if let Poll::Ready(Some(next)) = queued.poll_recv(cx) {
            return Poll::Ready(Some(event(&next)));
        }
        let Some(pending) = answer.as_mut() else {
            return Poll::Ready(None);
        };
        if let Poll::Ready(result) = pending.poll_unpin(cx) {
            answer = None;
            return Poll::Ready(message(result, id.clone()).map(|m| event(&m)));
        }
        if let Some(ping) = ping.as_mut()
            && ping.poll_tick(cx).is_ready()
        {
            return Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n"))));
        }
        Poll::Pending
    });
    let events = events.take_until(shutdown.cancelled_owned());
    stream_response(Body::from_stream(events))
}

fn stream_response(body: Body) -> Response {
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(body)
        .unwrap_or_else(|e| plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
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

/// The `tools/list` answer from each tool's ready-made JSON.
pub(super) fn tool_list(id: &RequestId, tools: &[Arc<RawValue>]) -> Response {
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

/// A plain-text response.
pub(super) fn plain(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
}
