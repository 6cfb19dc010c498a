//! Transport taps: see each call's request go out and take the notifications meant for its
//! caller out of the inbound stream, in order, before the call's result is handed on.

use crate::direct::SessionTarget;
use crate::direct_stdio::Replies;
use crate::forgotten_session::{as_expired, request_on_session};
use crate::relay::{call_notification, is_call_notification};
use crate::route::{CallTap, Route, Taps};
use futures::StreamExt;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{
    ClientJsonRpcMessage, GetExtensions, GetMeta, ServerJsonRpcMessage, ServerNotification,
};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Error as SseError, Sse};
use std::collections::HashMap;
use std::sync::Arc;
use switchboard_telemetry::TraceHeaders;

type Headers = HashMap<HeaderName, HeaderValue>;
type SseStream = BoxStream<'static, Result<Sse, SseError>>;

/// Records a call's routes as its request is sent; answers the call's route, if any, and
/// the trace context its request carries.
fn record(taps: &Taps, message: &ClientJsonRpcMessage) -> Option<(Route, TraceHeaders)> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    let tap = request.request.extensions().get::<CallTap>()?;
    let progress = request.request.get_meta().get_progress_token();
    taps.insert(request.id.clone(), progress, tap);
    Some((tap.route.clone(), tap.trace.clone()))
}

/// The headers of a call's POST: the session's, then its trace context.
fn traced(mut headers: Headers, tap: &Option<(Route, TraceHeaders)>) -> Headers {
    if let Some((_, trace)) = tap {
        headers.extend(trace.iter().cloned());
    }
    headers
}

/// A Streamable HTTP client that hands each tapped call the notifications its POST's
/// response stream carries (that stream is what ties them to the call).
#[derive(Clone)]
pub(crate) struct TapClient<C> {
    pub inner: C,
    pub taps: Taps,
    /// The session rmcp's transport posts on, for calls sent directly (see `direct`).
    pub(crate) session: SessionTarget,
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for TapClient<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: Headers,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<C::Error>> {
        let tap = record(&self.taps, &message);
        self.session.saw(&uri, session_id.as_ref(), &auth, &headers);
        let on_session = request_on_session(&message, session_id.as_ref());
        let headers = traced(headers, &tap);
        let response = self
            .inner
            .post_message(uri, message, session_id, auth, headers)
            .await?;
        Ok(tapped(
            as_expired(on_session, response)?,
            tap.map(|(route, _)| route),
        ))
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: Headers,
        max: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<C::Error>> {
        let tap = record(&self.taps, &message);
        self.session.saw(&uri, session_id.as_ref(), &auth, &headers);
        let on_session = request_on_session(&message, session_id.as_ref());
        let headers = traced(headers, &tap);
        let response = self
            .inner
            .post_message_with_max_sse_event_size(uri, message, session_id, auth, headers, max)
            .await?;
        Ok(tapped(
            as_expired(on_session, response)?,
            tap.map(|(route, _)| route),
        ))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth: Option<String>,
        headers: Headers,
    ) -> Result<(), StreamableHttpError<C::Error>> {
        match self
            .inner
            .delete_session(uri, session_id, auth, headers)
            .await
        {
            // A server that cannot be reached holds no session of ours to end (it is down,
            // or restarting without it): not worth rmcp's ERROR line.
            Err(StreamableHttpError::Client(e)) if crate::http::cannot_connect(&e) => {
                tracing::debug!("the session was not ended: the server is unreachable: {e}");
                Ok(())
            }
            other => other,
        }
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: Headers,
    ) -> Result<SseStream, StreamableHttpError<C::Error>> {
        let stream = (self.inner)
            .get_stream(uri, session_id, last_event_id, auth, headers)
            .await;
        self.session.listened();
        stream
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: Headers,
        max: usize,
    ) -> Result<SseStream, StreamableHttpError<C::Error>> {
        let stream = (self.inner)
            .get_stream_with_max_sse_event_size(uri, session_id, last_event_id, auth, headers, max)
            .await;
        self.session.listened();
        stream
    }
}

/// A tapped call's SSE response with its call notifications taken out and delivered first.
fn tapped(
    response: StreamableHttpPostResponse,
    route: Option<Route>,
) -> StreamableHttpPostResponse {
    let Some(route) = route else { return response };
    let StreamableHttpPostResponse::Sse(stream, session) = response else {
        return response;
    };
    let stream = stream
        .filter_map(move |event| {
            let notification = match &event {
                Ok(Sse {
                    data: Some(data), ..
                }) => call_notification(data),
                _ => None,
            };
            // Only an event for the caller needs the route (and an await).
            let route = notification.is_some().then(|| route.clone());
            async move {
                match (notification, route) {
                    // This stream serves only this call: a slow caller slows it rather than
                    // losing order.
                    (Some(notification), Some(route)) => {
                        route.notify(notification, true).await;
                        None
                    }
                    _ => Some(event),
                }
            }
        })
        .boxed();
    StreamableHttpPostResponse::Sse(stream, session)
}

/// A stdio (or any message) transport that routes call notifications to the call that is
/// waiting for them: progress by its token, log lines to the one tapped call in flight.
pub(crate) struct TapTransport<T> {
    pub inner: T,
    pub taps: Taps,
    /// The direct calls waiting for their answers (stdio): handed theirs as they pass.
    pub replies: Replies,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for TapTransport<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        record(&self.taps, &item);
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            let Some(message) = self.inner.receive().await else {
                self.replies.close();
                return None;
            };
            let route = match &message {
                ServerJsonRpcMessage::Notification(n) if is_call_notification(&n.notification) => {
                    match &n.notification {
                        ServerNotification::ProgressNotification(p) => {
                            self.taps.by_progress(&p.params.progress_token)
                        }
                        _ => self.taps.sole().ok(),
                    }
                }
                _ => None,
            };
            match (route, message) {
                // One connection serves every call here: a caller that is slow (or a call
                // parked between 2026-07-28 rounds) loses notifications rather than
                // stalling the others.
                (Some(route), ServerJsonRpcMessage::Notification(n)) => {
                    route.notify(n.notification, false).await;
                }
                (_, message) => {
                    if let Some(message) = self.replies.deliver(message) {
                        return Some(message);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.replies.close();
        self.inner.close().await
    }
}
