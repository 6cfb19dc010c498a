//! OAuth's outbound requests (discovery, registration, tokens) through the egress guard.

use futures::StreamExt;
use rmcp::transport::auth::{OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRequest};
use std::sync::Arc;
use std::time::Duration;
use switchboard_egress::EgressPolicy;

/// Metadata documents and token answers are small; a bigger body is refused.
const MAX_BODY: usize = 1024 * 1024;
const MAX_TIME: Duration = Duration::from_secs(30);

/// Every OAuth request is checked against the egress policy (name and resolved address, as
/// for MCP traffic) and never follows a redirect: a 3xx comes back as the answer, for rmcp
/// to follow same-origin discovery redirects itself (each hop checked again here).
pub(crate) struct GuardedOAuthHttp {
    client: reqwest::Client,
    policy: Arc<EgressPolicy>,
}

impl GuardedOAuthHttp {
    pub(crate) fn new(client: reqwest::Client, policy: Arc<EgressPolicy>) -> Self {
        Self { client, policy }
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl OAuthHttpClient for GuardedOAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let timeout = request.timeout.unwrap_or(MAX_TIME).min(MAX_TIME);
            let request = request.request;
            self.policy
                .check_url(&request.uri().to_string())
                .map_err(|e| Box::new(e) as BoxError)?;
            let request =
                reqwest::Request::try_from(request).map_err(|e| Box::new(e) as BoxError)?;
            let response = tokio::time::timeout(timeout, self.client.execute(request))
                .await
                .map_err(|_| format!("no answer within {timeout:?}"))?
                .map_err(|e| Box::new(e) as BoxError)?;
            let mut builder = http::Response::builder()
                .status(response.status())
                .version(response.version());
            for (name, value) in response.headers() {
                builder = builder.header(name, value);
            }
            let mut body = Vec::new();
            let mut stream = response.bytes_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| Box::new(e) as BoxError)?;
                if body.len() + chunk.len() > MAX_BODY {
                    return Err(format!("the answer is over {MAX_BODY} bytes").into());
                }
                body.extend_from_slice(&chunk);
            }
            builder.body(body).map_err(|e| Box::new(e) as BoxError)
        })
    }
}
