//! The gateway as an OAuth 2.1 protected resource: its public URL, the issuers it trusts, the
//! Protected Resource Metadata (RFC 9728) of each endpoint, and the `401`/`403` answers that
//! point clients to it.

use crate::control_plane::{ApiError, ControlPlane};
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use switchboard_identity::{Issuers, TokenError};

const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The public face of the gateway's endpoints and the issuers whose tokens they accept.
#[derive(Clone)]
pub struct ResourceServer {
    /// The origin every handed-out or checked URL starts with (no trailing slash).
    public_url: Arc<str>,
    issuers: Issuers,
    /// Whether a request with no `Authorization` header is the operator's (loopback only).
    anonymous_loopback: bool,
    /// Refused tokens, per [`TokenError::REASONS`].
    refusals: Arc<[AtomicU64; TokenError::REASONS.len()]>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("public_url", &self.public_url)
            .field("issuers", &self.issuers)
            .field("anonymous_loopback", &self.anonymous_loopback)
            .finish()
    }
}

impl ResourceServer {
    /// The gateway at `public_url` (e.g. `https://mcp.example.com`), trusting `issuers`.
    pub fn new(public_url: &str, issuers: Issuers) -> Self {
        Self {
            public_url: public_url.trim_end_matches('/').into(),
            issuers,
            anonymous_loopback: true,
            refusals: Arc::new(Default::default()),
        }
    }

    /// `[gateway] anonymous_loopback`: `false` refuses requests without a token on loopback
    /// too, so OAuth clients start their flow.
    pub fn with_anonymous_loopback(mut self, allowed: bool) -> Self {
        self.anonymous_loopback = allowed;
        self
    }

    pub fn issuers(&self) -> &Issuers {
        &self.issuers
    }

    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    pub(crate) fn anonymous_loopback(&self) -> bool {
        self.anonymous_loopback
    }

    /// Whether access tokens are accepted at all.
    pub(crate) fn takes_tokens(&self) -> bool {
        !self.issuers.is_empty()
    }

    /// The canonical resource URI of the endpoint at `path` (`/mcp`, `/mcp/agents/x`).
    pub(crate) fn resource(&self, path: &str) -> String {
        format!("{}{}", self.public_url, path.trim_end_matches('/'))
    }

    /// Where the metadata of the endpoint at `path` is.
    fn metadata_url(&self, path: &str) -> String {
        format!(
            "{}{WELL_KNOWN}{}",
            self.public_url,
            path.trim_end_matches('/')
        )
    }

    /// Refused tokens so far, by reason (for `/metrics`).
    pub(crate) fn refusals(&self) -> Vec<(&'static str, u64)> {
        (TokenError::REASONS.iter().zip(self.refusals.iter()))
            .map(|(reason, n)| (*reason, n.load(Ordering::Relaxed)))
            .collect()
    }

    /// A refused token logged once (never the token) and counted by reason.
    pub(crate) fn note_refusal(&self, path: &str, error: &TokenError) {
        let reason = error.reason();
        if let Some(i) = TokenError::REASONS.iter().position(|r| *r == reason) {
            self.refusals[i].fetch_add(1, Ordering::Relaxed);
        }
        tracing::info!(reason, path, "access token refused: {error}");
    }

    /// The answer to a request at `path` whose token was refused: logged once (never the
    /// token), counted, and a `WWW-Authenticate` that names the error and the metadata.
    pub(crate) fn refuse(&self, path: &str, error: &TokenError) -> Response {
        self.note_refusal(path, error);
        let message = error.to_string();
        let mut response = match error.status() {
            403 => ApiError::Forbidden(message.clone()).into_response(),
            _ => ApiError::Unauthenticated(message.clone()).into_response(),
        };
        let mut challenge = format!(
            "Bearer error=\"{}\", error_description=\"{}\", resource_metadata=\"{}\"",
            error.oauth_error(),
            quoted(&message),
            self.metadata_url(path)
        );
        if let TokenError::InsufficientScope { needed, .. } = error {
            challenge.push_str(&format!(", scope=\"{}\"", quoted(&needed.join(" "))));
        }
        set_challenge(&mut response, &challenge);
        response
    }

    /// A `401` for a request at `path` with no usable token: the metadata is named so an
    /// OAuth client can start its flow.
    /// On an org's endpoint (`org_scoped`) the org may have issuers of its own, so its
    /// metadata is always named.
    pub(crate) fn challenge(
        &self,
        path: &str,
        mut response: Response,
        org_scoped: bool,
    ) -> Response {
        if self.takes_tokens() || org_scoped {
            let challenge = format!("Bearer resource_metadata=\"{}\"", self.metadata_url(path));
            set_challenge(&mut response, &challenge);
        }
        response
    }

    /// The Protected Resource Metadata of the endpoint at `path`.
    fn metadata(&self, path: &str) -> serde_json::Value {
        self.metadata_naming(
            path,
            self.issuers.urls().to_vec(),
            self.issuers.mcp_scopes(),
        )
    }

    fn metadata_naming(
        &self,
        path: &str,
        servers: Vec<String>,
        scopes: Vec<String>,
    ) -> serde_json::Value {
        json!({
            "resource": self.resource(path),
            "authorization_servers": servers,
            "bearer_methods_supported": ["header"],
            "scopes_supported": scopes,
            "resource_name": "Switchboard MCP gateway",
        })
    }

    /// The metadata of an org's endpoint at `path`: the org's own issuers, then the
    /// operator's issuers that take the org from a claim.
    async fn org_metadata(&self, control: &ControlPlane, org: &str, path: &str) -> Response {
        let org = match control.store.org_by_name(org).await {
            Ok(Some(org)) => org,
            Ok(None) => {
                return ApiError::NotFound(format!("there is no org {org:?}")).into_response();
            }
            Err(e) => return ApiError::from(e).into_response(),
        };
        let own = match control.issuers_of_org(&org.id).await {
            Ok(own) => own,
            Err(e) => return e.into_response(),
        };
        let mapping = (self.issuers.specs().into_iter()).filter(|s| s.claims.org.is_some());
        let specs: Vec<_> = own.specs().into_iter().chain(mapping).collect();
        if specs.is_empty() {
            let none = format!(
                "org {} trusts no issuer: add one with PUT /api/identity/issuers",
                org.name
            );
            return ApiError::NotFound(none).into_response();
        }
        let servers = specs.iter().map(|s| s.issuer.clone()).collect();
        let mut scopes: Vec<String> = (specs.iter())
            .flat_map(|s| s.scopes.mcp.iter().cloned())
            .collect();
        scopes.sort();
        scopes.dedup();
        document(self.metadata_naming(path, servers, scopes))
    }
}

fn set_challenge(response: &mut Response, challenge: &str) {
    if let Ok(value) = HeaderValue::from_str(challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
}

/// A text fit for a quoted-string of a header: no quotes, backslashes or control characters.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            c if c.is_control() || !c.is_ascii() => ' ',
            c => c,
        })
        .collect()
}

/// `/.well-known/oauth-protected-resource` (the `/mcp` endpoint's, also at `…/mcp`) and
/// `…/mcp/agents/{agent}` when the operator configured issuers; `…/orgs/{org}/mcp` and
/// `…/orgs/{org}/mcp/agents/{agent}` when there are orgs.
pub(crate) fn metadata_routes(
    resource: Option<ResourceServer>,
    control: Option<ControlPlane>,
) -> Router {
    let orgs = match (&resource, control) {
        (Some(rs), Some(control)) => org_metadata_routes(rs.clone(), control),
        _ => Router::new(),
    };
    let Some(resource) = resource.filter(ResourceServer::takes_tokens) else {
        return orgs;
    };
    let gateway = |State(rs): State<ResourceServer>| async move { document(rs.metadata("/mcp")) };
    Router::new()
        .route(WELL_KNOWN, get(gateway))
        .route(&format!("{WELL_KNOWN}/mcp"), get(gateway))
        .route(
            &format!("{WELL_KNOWN}/mcp/agents/{{agent}}"),
            get(
                |State(rs): State<ResourceServer>, Path(agent): Path<String>| async move {
                    if let Err(e) = crate::control_plane::callers::check_agent(&agent) {
                        return e.into_response();
                    }
                    document(rs.metadata(&format!("/mcp/agents/{agent}")))
                },
            ),
        )
        .with_state(resource)
        .merge(orgs)
}

/// The metadata of orgs' endpoints.
fn org_metadata_routes(resource: ResourceServer, control: ControlPlane) -> Router {
    type Shared = State<(ResourceServer, ControlPlane)>;
    let org = |State((rs, control)): Shared, Path(org): Path<String>| async move {
        rs.org_metadata(&control, &org, &format!("/orgs/{org}/mcp"))
            .await
    };
    let agent = |State((rs, control)): Shared, Path((org, agent)): Path<(String, String)>| async move {
        if let Err(e) = crate::control_plane::callers::check_agent(&agent) {
            return e.into_response();
        }
        let path = format!("/orgs/{org}/mcp/agents/{agent}");
        rs.org_metadata(&control, &org, &path).await
    };
    Router::new()
        .route(&format!("{WELL_KNOWN}/orgs/{{org}}/mcp"), get(org))
        .route(
            &format!("{WELL_KNOWN}/orgs/{{org}}/mcp/agents/{{agent}}"),
            get(agent),
        )
        .with_state((resource, control))
}

/// A metadata document: public, readable from any page (browser-based MCP clients).
fn document(body: serde_json::Value) -> Response {
    (
        [
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        axum::Json(body),
    )
        .into_response()
}
