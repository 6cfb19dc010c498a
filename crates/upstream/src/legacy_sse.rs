//! The 2024-11-05 HTTP+SSE transport as an rmcp client transport: a GET stream that first
//! announces the endpoint to POST messages to, then carries every server message.

use crate::UpstreamError;
use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use sse_stream::SseStream;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Errors of the legacy transport after the stream is open.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LegacySseError {
    #[error("POST to the SSE server's message endpoint failed: {0}")]
    Post(String),
    #[error("the SSE server answered the POST with HTTP {0}")]
    Status(u16),
}

/// An open HTTP+SSE session.
pub(crate) struct LegacySse {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    headers: HeaderMap,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    stop: CancellationToken,
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl LegacySse {
    /// Opens the stream at `url` and waits for the `endpoint` event. `checked` vets the
    /// announced endpoint with the same egress rules as `url`; it must share its origin.
    pub(crate) async fn connect(
        client: reqwest::Client,
        url: reqwest::Url,
        headers: HeaderMap,
        max_message_bytes: usize,
        checked: impl Fn(&str) -> Result<reqwest::Url, UpstreamError>,
    ) -> Result<Self, UpstreamError> {
        let response = client
            .get(url.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| UpstreamError::Transport(crate::http::error_chain(&e)))?;
        let status = response.status();
        if status.as_u16() == 401 {
            return Err(UpstreamError::Unauthorized(format!(
                "the SSE server answered GET {url} with 401: give it a bearer token or headers"
            )));
        }
        if !status.is_success() {
            return Err(UpstreamError::Handshake(format!(
                "the SSE server answered GET {url} with HTTP {status}; is this the server's SSE URL (often ending in /sse)?"
            )));
        }
        let mut events = SseStream::from_bytes_stream(response.bytes_stream());
        let endpoint = loop {
            match events.next().await {
                Some(Ok(event)) if event.event.as_deref() == Some("endpoint") => {
                    break event.data.unwrap_or_default();
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(UpstreamError::Transport(e.to_string())),
                None => {
                    return Err(UpstreamError::Handshake(format!(
                        "GET {url} ended before announcing its message endpoint: not an HTTP+SSE MCP server"
                    )));
                }
            }
        };
        let endpoint = url
            .join(endpoint.trim())
            .map_err(|e| UpstreamError::Handshake(format!("bad endpoint event: {e}")))?;
        if endpoint.origin() != url.origin() {
            return Err(UpstreamError::Handshake(format!(
                "the SSE server announced a message endpoint on another origin ({}); refused",
                endpoint.origin().ascii_serialization()
            )));
        }
        let endpoint = checked(endpoint.as_str())?;
        let (tx, incoming) = mpsc::channel(64);
        let stop = CancellationToken::new();
        tokio::spawn(read_events(events, tx, max_message_bytes, stop.clone()));
        Ok(Self {
            client,
            endpoint,
            headers,
            incoming,
            stop,
        })
    }
}

/// Hands every `message` event to the session until the stream ends or the session closes.
async fn read_events<S>(
    mut events: S,
    tx: mpsc::Sender<ServerJsonRpcMessage>,
    max_message_bytes: usize,
    stop: CancellationToken,
) where
    S: futures::Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> + Unpin,
{
    loop {
        let event = tokio::select! {
            _ = stop.cancelled() => return,
            event = events.next() => event,
        };
        let Some(Ok(event)) = event else { return };
        if !matches!(event.event.as_deref(), None | Some("message")) {
            continue;
        }
        let Some(data) = event.data else { continue };
        if data.len() > max_message_bytes {
            tracing::warn!(
                size = data.len(),
                limit = max_message_bytes,
                "SSE server message over max_message_bytes dropped"
            );
            continue;
        }
        match serde_json::from_str::<ServerJsonRpcMessage>(&data) {
            Ok(message) => {
                if tx.send(message).await.is_err() {
                    return;
                }
            }
            Err(e) => tracing::warn!("SSE server sent a message that is not JSON-RPC: {e}"),
        }
    }
}

impl Transport<RoleClient> for LegacySse {
    type Error = LegacySseError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .json(&item);
        async move {
            let response = request
                .send()
                .await
                .map_err(|e| LegacySseError::Post(crate::http::error_chain(&e)))?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(LegacySseError::Status(response.status().as_u16()))
            }
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.stop.cancel();
        Ok(())
    }
}
