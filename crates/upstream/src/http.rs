//! The one shared outbound HTTP client every upstream connection uses: egress-checked name
//! resolution (connections go only to checked addresses), no proxies, redirects never followed.

use crate::UpstreamError;
use std::sync::Arc;
use std::time::Duration;
use switchboard_egress::{EgressPolicy, GuardedResolver, Lookup, SystemLookup};

#[derive(Debug, thiserror::Error)]
#[error(
    "the upstream answered {status} with a redirect to {location}; redirects are never followed: set the server's url to the final address"
)]
struct RedirectRefused {
    status: u16,
    location: String,
}

/// How long an idle upstream connection is kept for the next call: less than the 5 s after
/// which common MCP servers' HTTP stacks close one.
const IDLE_CONNECTIONS_KEPT: Duration = Duration::from_secs(4);
/// The shared, injectable outbound HTTP client and the egress policy it enforces.
#[derive(Clone)]
pub struct UpstreamHttp {
    client: reqwest::Client,
    /// The same guard for OAuth requests (discovery, registration, tokens), which must see
    /// redirects as answers instead of errors.
    oauth: reqwest::Client,
    policy: Arc<EgressPolicy>,
}

impl std::fmt::Debug for UpstreamHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamHttp")
            .field("policy", &self.policy)
            .finish()
    }
}

impl UpstreamHttp {
    /// A client resolving names with the system resolver.
    pub fn new(policy: EgressPolicy) -> Self {
        Self::with_lookup(policy, Arc::new(SystemLookup))
    }

    /// A client resolving names through `lookup` (tests use a fixed table).
    pub fn with_lookup(policy: EgressPolicy, lookup: Arc<dyn Lookup>) -> Self {
        let policy = Arc::new(policy);
        let resolver = GuardedResolver::new(policy.clone(), lookup);
        let oauth = reqwest::Client::builder()
            .dns_resolver(resolver.clone())
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
            // Never an unguarded client instead: without its TLS roots none can be built.
            .build()
            .expect("the guarded HTTP client builds");
        let client = reqwest::Client::builder()
            .dns_resolver(resolver)
            // A proxy would resolve names itself and bypass the address checks.
            .no_proxy()
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                let refused = RedirectRefused {
                    status: attempt.status().as_u16(),
                    location: attempt.url().to_string(),
                };
                attempt.error(refused)
            }))
            .connect_timeout(Duration::from_secs(10))
            // Under the servers' own keep-alive (uvicorn, hypercorn and Node close an idle
            // connection after 5 s): a request sent on a connection as its server closes it
            // fails (`connection closed before message completed`), and a call cannot be sent
            // again once it may have run.
            .pool_idle_timeout(IDLE_CONNECTIONS_KEPT)
            .tcp_nodelay(true)
            .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
            // Never an unguarded client instead: without its TLS roots none can be built.
            .build()
            .expect("the guarded HTTP client builds");
        Self {
            client,
            oauth,
            policy,
        }
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// The client OAuth requests go through: egress-checked, redirects returned unfollowed.
    pub fn oauth_client(&self) -> Arc<dyn rmcp::transport::auth::OAuthHttpClient> {
        Arc::new(crate::auth::GuardedOAuthHttp::new(
            self.oauth.clone(),
            self.policy.clone(),
        ))
    }

    pub fn policy(&self) -> &EgressPolicy {
        &self.policy
    }

    /// Refuses URLs the policy does not allow, naming the reason and the fix.
    pub fn check_url(&self, url: &str) -> Result<reqwest::Url, UpstreamError> {
        self.policy.check_url(url).map_err(UpstreamError::Egress)
    }
}

/// An error and all its sources, so messages keep the reason a lower layer gave.
pub(crate) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

/// A transport failure classified once: an egress refusal found anywhere in the HTTP client's
/// chain of causes stays typed (`policy_denied`); anything else is a transport error told with
/// the client's own reasons (rmcp's wrappers do not expose them as an error source).
pub(crate) fn classify_transport(e: &rmcp::transport::DynamicTransportError) -> UpstreamError {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    match e
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        Some(http) => classify_http(http),
        None => classify_cause(e.error.as_ref()),
    }
}

/// A Streamable HTTP client's failure classified as [`classify_transport`] does.
pub(crate) fn classify_http(
    e: &rmcp::transport::streamable_http_client::StreamableHttpError<reqwest::Error>,
) -> UpstreamError {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    match e {
        StreamableHttpError::AuthRequired(refusal) => UpstreamError::Challenged {
            challenge: refusal.www_authenticate_header.clone(),
            insufficient_scope: false,
        },
        StreamableHttpError::InsufficientScope(refusal) => UpstreamError::Challenged {
            challenge: refusal.www_authenticate_header.clone(),
            insufficient_scope: true,
        },
        StreamableHttpError::Auth(e) => crate::auth::classify(e),
        StreamableHttpError::Client(inner) => classify_cause(inner),
        other => UpstreamError::Transport(other.to_string()),
    }
}

/// An egress refusal anywhere in `inner`'s causes, else a transport error with its reasons
/// (the server unreachable when the HTTP client could not connect).
fn classify_cause(inner: &(dyn std::error::Error + 'static)) -> UpstreamError {
    let mut cause = Some(inner);
    while let Some(c) = cause {
        if let Some(refused) = c.downcast_ref::<switchboard_egress::EgressError>() {
            return UpstreamError::Egress(refused.clone());
        }
        cause = c.source();
    }
    match cannot_connect(inner) {
        true => UpstreamError::Unreachable(error_chain(inner)),
        false => UpstreamError::Transport(error_chain(inner)),
    }
}

/// Whether the HTTP client could not connect at all (refused, unresolvable, timed out).
pub(crate) fn cannot_connect(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.downcast_ref::<reqwest::Error>()
            .is_some_and(|e| e.is_connect())
        {
            return true;
        }
        cause = c.source();
    }
    false
}
