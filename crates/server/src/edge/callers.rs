//! Who calls, the first layer of `/mcp`, of the agent endpoints and of `/metrics`: the operator
//! (the `[gateway]` token, or no token on loopback), the org whose API token the request bears,
//! or the holder of an OAuth access token from a configured issuer, holding the role the route
//! needs. A request that is none of these gets the same refusal on every route.

use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
use crate::control_plane::callers::{MANAGE, OPERATE, VIEW};
use crate::edge::identity::ResourceServer;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

#[path = "token_callers.rs"]
mod tokens;

/// Whom a route lets in.
#[derive(Clone)]
pub(crate) struct Callers {
    operator: Operator,
    /// Where orgs' API tokens are checked; without it, only the operator.
    pub(super) control: Option<ControlPlane>,
    /// The role an org's API token needs here.
    role: &'static str,
    /// Whether the org needs the integrations feature too (the MCP endpoints do).
    pub(super) needs_feature: bool,
    /// The issuers whose access tokens are accepted, and the public URL they are bound to.
    pub(super) resource: Option<ResourceServer>,
    pub(super) surface: Protected,
}

/// Which kind of route this is, for access tokens: their audience, scopes and role.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protected {
    /// `/mcp`: the operator's endpoint, or an org's.
    Gateway,
    /// `/mcp/agents/{agent}`.
    Agent,
    /// `/metrics`.
    Metrics,
    /// `/orgs/{org}/mcp`: one org's endpoint, where its own issuers are trusted too.
    OrgGateway,
    /// `/orgs/{org}/mcp/agents/{agent}`.
    OrgAgent,
}

impl Protected {
    /// Whether the route names its org (`/orgs/{org}/…`).
    pub(crate) fn org_scoped(self) -> bool {
        matches!(self, Protected::OrgGateway | Protected::OrgAgent)
    }

    /// Whether the route is an agent's endpoint.
    pub(crate) fn agent(self) -> bool {
        matches!(self, Protected::Agent | Protected::OrgAgent)
    }
}

/// Whether, and how, the operator gets in.
#[derive(Clone)]
enum Operator {
    /// Not here: the route is orgs' only.
    Refused,
    /// With no `[gateway] token` (loopback): a request without a token is the operator's.
    Open,
    /// With the `[gateway] token`.
    Token(Arc<str>),
}

impl Callers {
    fn with_operator(token: Option<String>) -> Operator {
        match token {
            Some(token) => Operator::Token(token.into()),
            None => Operator::Open,
        }
    }

    /// `/mcp`: the operator, an org with `integrations:manage` (calling tools acts on them,
    /// as the REST invoke route does), or an access token.
    pub(crate) fn gateway(
        token: Option<String>,
        control: Option<ControlPlane>,
        resource: Option<ResourceServer>,
    ) -> Self {
        Self {
            operator: Self::with_operator(token),
            control,
            role: MANAGE,
            needs_feature: true,
            resource,
            surface: Protected::Gateway,
        }
    }

    /// An agent endpoint: an org of the agent, with `integrations:view`.
    pub(crate) fn agents(control: ControlPlane, resource: Option<ResourceServer>) -> Self {
        Self {
            operator: Operator::Refused,
            control: Some(control),
            role: VIEW,
            needs_feature: true,
            resource,
            surface: Protected::Agent,
        }
    }

    /// `/orgs/{org}/mcp` (`agent` false) or `/orgs/{org}/mcp/agents/{agent}`: that org's API
    /// tokens (with `integrations:manage` on the org's endpoint, as on `/mcp`, and
    /// `integrations:view` on an agent's), and access tokens from the org's own issuers or
    /// from an operator's issuer that maps them to that org. Never the operator.
    pub(crate) fn org(
        control: ControlPlane,
        resource: Option<ResourceServer>,
        agent: bool,
    ) -> Self {
        Self {
            operator: Operator::Refused,
            control: Some(control),
            role: if agent { VIEW } else { MANAGE },
            needs_feature: true,
            resource,
            surface: if agent {
                Protected::OrgAgent
            } else {
                Protected::OrgGateway
            },
        }
    }

    /// `/metrics`: the operator, or a token with `gateway:operate`.
    pub(crate) fn scrapers(
        token: Option<String>,
        control: Option<ControlPlane>,
        resource: Option<ResourceServer>,
    ) -> Self {
        Self {
            operator: Self::with_operator(token),
            control,
            role: OPERATE,
            needs_feature: false,
            resource,
            surface: Protected::Metrics,
        }
    }

    /// Whether access tokens may be presented here (an org's endpoint: its org may have
    /// issuers of its own).
    fn takes_tokens(&self) -> bool {
        self.resource
            .as_ref()
            .is_some_and(|rs| rs.takes_tokens() || self.surface.org_scoped())
    }

    /// Whether a request without any `Authorization` is the operator's.
    fn anonymous(&self) -> bool {
        matches!(self.operator, Operator::Open)
            && self
                .resource
                .as_ref()
                .is_none_or(ResourceServer::anonymous_loopback)
    }

    /// A `401` with `message`, naming the metadata where access tokens are accepted.
    fn unauthenticated(&self, path: &str, message: &str) -> Response {
        let response = ApiError::Unauthenticated(message.into()).into_response();
        match &self.resource {
            Some(rs) => rs.challenge(path, response, self.surface.org_scoped()),
            None => response,
        }
    }
}

/// `routes`, reached only by the callers `callers` lets in.
pub(crate) fn authenticated(routes: Router, callers: Callers) -> Router {
    routes.layer(axum::middleware::from_fn_with_state(
        Arc::new(callers),
        authenticate,
    ))
}

/// The middleware: lets a request through as the operator, as the org whose API token it
/// carries, or as the holder of a verified access token (an [`OrgCaller`] and a
/// [`TokenCaller`] in the request's extensions).
async fn authenticate(
    State(callers): State<Arc<Callers>>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = endpoint_path(&request, callers.surface);
    let presented = bearer(request.headers()).map(str::to_owned);
    let any_authorization = request.headers().contains_key(header::AUTHORIZATION);
    let Some(presented) = presented else {
        if !any_authorization && callers.anonymous() {
            return next.run(request).await;
        }
        // Without issuers, an Authorization that is not a bearer is ignored on loopback, as
        // before; with them, nothing but a valid token passes.
        if any_authorization && callers.anonymous() && !callers.takes_tokens() {
            return next.run(request).await;
        }
        return callers.unauthenticated(&path, NO_TOKEN);
    };
    if let Operator::Token(token) = &callers.operator
        && constant_time_eq(presented.as_bytes(), token.as_bytes())
    {
        return next.run(request).await;
    }
    if let (Some(control), true) = (&callers.control, presented.starts_with("sb_")) {
        let (org, org_name) = match control
            .org_caller(&presented, callers.role, callers.needs_feature)
            .await
        {
            Ok(found) => found,
            Err(ApiError::Unauthenticated(why)) => {
                // Revoked and expired tokens are told so; an unknown one hears every choice.
                let unknown = why == crate::control_plane::tenancy::UNKNOWN_API_TOKEN;
                let why = if unknown { UNKNOWN_TOKEN } else { &why };
                return callers.unauthenticated(&path, why);
            }
            Err(e) => return e.into_response(),
        };
        if let Err(e) = tokens::org_token_fits(&callers, &org_name, &path) {
            return e.into_response();
        }
        request.extensions_mut().insert(org);
        return next.run(request).await;
    }
    if callers.takes_tokens() {
        return match tokens::admit_token(&callers, &presented, &path).await {
            Ok(Some((org, holder))) => {
                if let Some(org) = org {
                    request.extensions_mut().insert(org);
                }
                request.extensions_mut().insert(holder);
                next.run(request).await
            }
            Ok(None) => callers.unauthenticated(&path, UNKNOWN_TOKEN),
            Err((rs, e)) => rs.refuse(&path, &e),
        };
    }
    // No token configured and no issuer (loopback): whatever a client sends, it is the
    // operator, as before issuers existed.
    if callers.anonymous() && !callers.takes_tokens() {
        return next.run(request).await;
    }
    callers.unauthenticated(&path, UNKNOWN_TOKEN)
}

/// The path of the endpoint a request reached, as its resource URI ends.
fn endpoint_path(request: &Request, surface: Protected) -> String {
    match surface {
        Protected::Gateway => "/mcp".into(),
        Protected::Metrics => "/metrics".into(),
        Protected::Agent | Protected::OrgGateway | Protected::OrgAgent => {
            request.uri().path().trim_end_matches('/').to_string()
        }
    }
}

/// The bearer token a request carries.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

const NO_TOKEN: &str = "this route needs a bearer token: send Authorization: Bearer <token>: an access token from a configured issuer, an org's API token (switchboard token create) or, on /mcp and /metrics, the [gateway] token";
const UNKNOWN_TOKEN: &str = "unknown or revoked token: send an org's live API token (switchboard token create) or, on /mcp and /metrics, the [gateway] token";

/// Whether a presented secret is the expected one, in time that depends on neither: the
/// SHA-256 digests of both are compared in constant time (`subtle`), so neither where the
/// first difference is nor the expected secret's length shows.
pub(crate) fn constant_time_eq(presented: &[u8], expected: &[u8]) -> bool {
    use sha2::{Digest, Sha256};
    use subtle::ConstantTimeEq;
    let (a, b) = (Sha256::digest(presented), Sha256::digest(expected));
    a.ct_eq(&b).into()
}

#[cfg(test)]
mod tests {
    #[test]
    fn constant_time_eq_compares_whole_values() {
        assert!(super::constant_time_eq(b"secret", b"secret"));
        assert!(!super::constant_time_eq(b"secret", b"secreT"));
        assert!(!super::constant_time_eq(b"secret", b"secret2"));
    }
}
