//! The identity side's outbound requests (discovery, JWKS) through the egress guard: checked
//! names and addresses, no proxy, no redirects, bounded size and time.

use futures::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use switchboard_egress::{EgressPolicy, GuardedResolver, Lookup, SystemLookup};

/// Metadata and key sets are small; a larger answer is refused.
const MAX_BODY: usize = 512 * 1024;
const MAX_TIME: Duration = Duration::from_secs(10);

/// Fetches JSON documents of issuers.
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    policy: Arc<EgressPolicy>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("policy", &self.policy)
            .finish()
    }
}

impl Fetcher {
    /// A fetcher resolving names with the system resolver.
    pub fn new(policy: EgressPolicy) -> Self {
        Self::with_lookup(policy, Arc::new(SystemLookup))
    }

    /// A fetcher resolving names through `lookup` (tests use a fixed table).
    pub fn with_lookup(policy: EgressPolicy, lookup: Arc<dyn Lookup>) -> Self {
        let policy = Arc::new(policy);
        let client = reqwest::Client::builder()
            .dns_resolver(GuardedResolver::new(policy.clone(), lookup))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(MAX_TIME)
            .timeout(MAX_TIME)
            .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
            // Never an unguarded client instead: without its TLS roots none can be built.
            .build()
            .expect("the guarded HTTP client builds");
        Self { client, policy }
    }

    /// The JSON document at `url`, or why not (a sentence naming the URL).
    pub async fn json(&self, url: &str) -> Result<serde_json::Value, String> {
        self.policy
            .check_url(url)
            .map_err(|e| format!("{url}: {e}"))?;
        self.answer(url, self.client.get(url)).await
    }

    /// A form POSTed to `url` (a token endpoint); its JSON answer, or why not.
    pub async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
    ) -> Result<serde_json::Value, String> {
        self.post_form_as(url, form, None).await
    }

    /// A form POSTed to `url` as the client `basic` names (HTTP Basic, RFC 6749 2.3.1:
    /// both parts form-encoded); its JSON answer, or why not.
    pub async fn post_form_as(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
    ) -> Result<serde_json::Value, String> {
        self.policy
            .check_url(url)
            .map_err(|e| format!("{url}: {e}"))?;
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut request = (self.client.post(url))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        if let Some((id, secret)) = basic {
            let encode =
                |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            request = request.basic_auth(encode(id), Some(encode(secret)));
        }
        self.answer(url, request).await
    }

    async fn answer(
        &self,
        url: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<serde_json::Value, String> {
        let response = request
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| format!("{url}: {}", error_chain(&e)))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(format!(
                "{url} answered {status} with a redirect, which is never followed: configure the final address"
            ));
        }
        if !status.is_success() {
            return Err(format!("{url} answered {status}"));
        }
        let mut body = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| format!("{url}: {}", error_chain(&e)))?;
            if body.len() + chunk.len() > MAX_BODY {
                return Err(format!("{url}: the answer is over {MAX_BODY} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| format!("{url} did not answer JSON: {e}"))
    }
}

/// An error with its causes, for a message a person can act on.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
