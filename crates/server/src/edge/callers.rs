//! Who calls, the first layer of `/mcp`, of the agent endpoints and of `/metrics`: the operator
//! (the `[gateway]` token, or no token on loopback), the org whose API token the request bears,
//! or the holder of an OAuth access token from a configured issuer, holding the role the route
//! needs. A request that is none of these gets the same refusal on every route.

use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
use crate::control_plane::callers::{MANAGE, OPERATE, OrgCaller, TokenCaller, VIEW};
use crate::edge::identity::ResourceServer;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use switchboard_identity::{Issuers, TokenError, Verified};

/// Whom a route lets in.
#[derive(Clone)]
pub(crate) struct Callers {
    operator: Operator,
    /// Where orgs' API tokens are checked; without it, only the operator.
    control: Option<ControlPlane>,
    /// The role an org's API token needs here.
    role: &'static str,
    /// Whether the org needs the integrations feature too (the MCP endpoints do).
    needs_feature: bool,
    /// The issuers whose access tokens are accepted, and the public URL they are bound to.
    resource: Option<ResourceServer>,
    surface: Protected,
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

    fn takes_tokens(&self) -> bool {
        self.resource
            .as_ref()
            .is_some_and(ResourceServer::takes_tokens)
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
            Some(rs) => rs.challenge(path, response),
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
        return match control
            .org_caller(&presented, callers.role, callers.needs_feature)
            .await
        {
            Ok(org) => {
                request.extensions_mut().insert(org);
                next.run(request).await
            }
            Err(ApiError::Unauthenticated(_)) => callers.unauthenticated(&path, UNKNOWN_TOKEN),
            Err(e) => e.into_response(),
        };
    }
    if let Some(rs) = callers.resource.as_ref().filter(|rs| rs.takes_tokens())
        && (Issuers::is_jwt(&presented) || rs.issuers().introspects())
    {
        let verified = rs.issuers().verify(&presented, &rs.resource(&path)).await;
        let admitted = match verified {
            Ok(token) => admit(&callers, &token, &path).await,
            Err(e) => Err(e),
        };
        return match admitted {
            Ok((org, holder)) => {
                if let Some(org) = org {
                    request.extensions_mut().insert(org);
                }
                request.extensions_mut().insert(holder);
                next.run(request).await
            }
            Err(e) => rs.refuse(&path, &e),
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
        Protected::Agent => request.uri().path().trim_end_matches('/').to_string(),
    }
}

/// What a verified token may do here: its scopes, its agent, its role and its org.
async fn admit(
    callers: &Callers,
    token: &Verified,
    path: &str,
) -> Result<(Option<OrgCaller>, TokenCaller), TokenError> {
    let scopes = &token.spec.scopes;
    let needed = match callers.surface {
        Protected::Gateway | Protected::Agent => &scopes.mcp,
        Protected::Metrics => &scopes.metrics,
    };
    if !token.missing_scopes(needed).is_empty() {
        let missing = token.missing_scopes(needed).into_iter().cloned();
        return Err(TokenError::InsufficientScope {
            missing: missing.collect::<Vec<_>>().join(" "),
            needed: needed.clone(),
        });
    }
    if let Some(agent) = &token.agent
        && (callers.surface != Protected::Agent || path != format!("/mcp/agents/{agent}"))
    {
        return Err(TokenError::Forbidden(format!(
            "this token is for agent {agent}: use its endpoint /mcp/agents/{agent}"
        )));
    }
    let role = match callers.surface {
        Protected::Metrics => OPERATE,
        // An access token is issued to use the endpoint: viewing the tools suffices.
        Protected::Gateway | Protected::Agent => VIEW,
    };
    if !token.has_role(role) {
        return Err(TokenError::Forbidden(format!(
            "this token's roles lack {role}: map a claim to it in the issuer's claims.roles"
        )));
    }
    let holder = TokenCaller {
        principal: token.principal(),
        end_user: token.end_user.clone(),
    };
    let Some(org_name) = &token.org else {
        if callers.surface == Protected::Agent {
            return Err(TokenError::Forbidden(
                "agent endpoints belong to an org, and this token names none: map the org claim in the issuer's claims.org".into(),
            ));
        }
        return Ok((None, holder));
    };
    let Some(control) = &callers.control else {
        return Err(TokenError::Forbidden(
            "this token names an org, and this gateway has no orgs (no store)".into(),
        ));
    };
    let org = match control.store.org_by_name(org_name).await {
        Ok(Some(org)) => org,
        Ok(None) => {
            return Err(TokenError::Forbidden(format!(
                "this token's org {org_name:?} does not exist: create it (switchboard org create {org_name})"
            )));
        }
        Err(e) => return Err(TokenError::IssuerUnavailable(format!("the store: {e}"))),
    };
    if callers.needs_feature && !org.has_feature(crate::control_plane::callers::FEATURE) {
        return Err(TokenError::Forbidden(format!(
            "org {org_name} does not have the feature {}",
            crate::control_plane::callers::FEATURE
        )));
    }
    let org = OrgCaller {
        org_id: org.id,
        token_id: None,
    };
    Ok((Some(org), holder))
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
