//! The Streamable HTTP client with OAuth: each request carries the current token; a 401
//! gets one silent renewal and one retry, then the server's challenge goes up to the caller.

use super::source::TokenSource;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use std::collections::HashMap;
use std::sync::Arc;

type Error = StreamableHttpError<reqwest::Error>;
type Headers = HashMap<HeaderName, HeaderValue>;

#[derive(Clone)]
pub(crate) struct Authorized {
    pub inner: reqwest::Client,
    pub source: Arc<TokenSource>,
}

/// A refusal that a new token may cure: a 401, with or without a challenge.
fn unauthorized(e: &Error) -> Option<String> {
    match e {
        StreamableHttpError::AuthRequired(challenge) => {
            Some(challenge.www_authenticate_header.clone())
        }
        StreamableHttpError::HttpStatus(status) if status.status == 401 => Some(String::new()),
        StreamableHttpError::UnexpectedServerResponse(text) if text.starts_with("HTTP 401") => {
            Some(String::new())
        }
        StreamableHttpError::Client(e) if e.status() == Some(reqwest::StatusCode::UNAUTHORIZED) => {
            Some(String::new())
        }
        _ => None,
    }
}

impl Authorized {
    async fn with_token<T, F, Fut>(&self, call: F) -> Result<T, Error>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let token = self
            .source
            .token()
            .await
            .map_err(StreamableHttpError::Auth)?;
        let result = call(token.clone()).await;
        let Err(e) = result else {
            return result;
        };
        let Some(challenge) = unauthorized(&e) else {
            return Err(e);
        };
        let required =
            || StreamableHttpError::AuthRequired(AuthRequiredError::new(challenge.clone()));
        let Some(sent) = token else {
            return Err(required());
        };
        match self.source.renew(&sent).await {
            Ok(Some(fresh)) if fresh != sent => match call(Some(fresh)).await {
                Err(e) if unauthorized(&e).is_some() => Err(required()),
                other => other,
            },
            Ok(_) => Err(required()),
            // A failing token endpoint is not a refusal: the caller sees why and may retry.
            Err(e) => Err(StreamableHttpError::Auth(e)),
        }
    }
}

impl StreamableHttpClient for Authorized {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth: Option<String>,
        headers: Headers,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.with_token(|token| {
            self.inner.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth: Option<String>,
        headers: Headers,
        max: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.with_token(|token| {
            self.inner.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                headers.clone(),
                max,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth: Option<String>,
        headers: Headers,
    ) -> Result<(), Error> {
        self.with_token(|token| {
            self.inner
                .delete_session(uri.clone(), session_id.clone(), token, headers.clone())
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth: Option<String>,
        headers: Headers,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, Error> {
        self.with_token(|token| {
            self.inner.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth: Option<String>,
        headers: Headers,
        max: usize,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, Error> {
        self.with_token(|token| {
            self.inner.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                headers.clone(),
                max,
            )
        })
        .await
    }
}
