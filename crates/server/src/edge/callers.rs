//! Who calls, the first layer of `/mcp`, of the agent endpoints and of `/metrics`: the operator
//! (the `[gateway]` token) or the org whose API token the request bears, holding the role the
//! route needs. A request that is neither gets the same refusal on every route.

use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
use crate::control_plane::callers::{MANAGE, OPERATE, VIEW};
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// Whom a route lets in.
#[derive(Clone)]
pub(crate) struct Callers {
    operator: Operator,
    /// Where orgs' API tokens are checked; without it, only the operator.
    control: Option<ControlPlane>,
    /// The role an org's token needs here.
    role: &'static str,
    /// Whether the org needs the integrations feature too (the MCP endpoints do).
    needs_feature: bool,
}

/// Whether, and how, the operator gets in.
#[derive(Clone)]
enum Operator {
    /// Not here: the route is orgs' only.
    Refused,
    /// With no `[gateway] token` (loopback): every request that is not an org's is the operator's.
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

    /// `/mcp`: the operator, or an org with `integrations:manage` (calling tools acts on
    /// them, as the REST invoke route does).
    pub(crate) fn gateway(token: Option<String>, control: Option<ControlPlane>) -> Self {
        Self {
            operator: Self::with_operator(token),
            control,
            role: MANAGE,
            needs_feature: true,
        }
    }

    /// An agent endpoint: an org of the agent, with `integrations:view`.
    pub(crate) fn agents(control: ControlPlane) -> Self {
        Self {
            operator: Operator::Refused,
            control: Some(control),
            role: VIEW,
            needs_feature: true,
        }
    }

    /// `/metrics`: the operator, or an org's token with `gateway:operate`.
    pub(crate) fn scrapers(token: Option<String>, control: Option<ControlPlane>) -> Self {
        Self {
            operator: Self::with_operator(token),
            control,
            role: OPERATE,
            needs_feature: false,
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

/// The middleware: lets a request through as the operator, or as the org whose API token it
/// carries (its [`crate::control_plane::callers::OrgCaller`] in the request's extensions).
async fn authenticate(
    State(callers): State<Arc<Callers>>,
    mut request: Request,
    next: Next,
) -> Response {
    let (control, org_token) = match (
        bearer(request.headers()),
        &callers.operator,
        &callers.control,
    ) {
        (Some(p), Operator::Token(token), _)
            if constant_time_eq(p.as_bytes(), token.as_bytes()) =>
        {
            return next.run(request).await;
        }
        (Some(p), _, Some(control)) if p.starts_with("sb_") => (control, p),
        // No token configured (loopback): whatever else a client sends, it is the operator.
        (_, Operator::Open, _) => return next.run(request).await,
        (None, _, _) => return unauthenticated(NO_TOKEN),
        (Some(_), _, _) => return unauthenticated(UNKNOWN_TOKEN),
    };
    match control
        .org_caller(org_token, callers.role, callers.needs_feature)
        .await
    {
        Ok(org) => {
            request.extensions_mut().insert(org);
            next.run(request).await
        }
        Err(ApiError::Unauthenticated(_)) => unauthenticated(UNKNOWN_TOKEN),
        Err(e) => e.into_response(),
    }
}

/// The bearer token a request carries.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

const NO_TOKEN: &str = "this route needs a bearer token: send Authorization: Bearer <token>, an org's API token (switchboard token create) or, on /mcp and /metrics, the [gateway] token";
const UNKNOWN_TOKEN: &str = "unknown or revoked token: send an org's live API token (switchboard token create) or, on /mcp and /metrics, the [gateway] token";

/// HTTP 401 (with `WWW-Authenticate: Bearer`, as every 401 of the gateway), the same on every
/// route this layer guards.
fn unauthenticated(message: &str) -> Response {
    ApiError::Unauthenticated(message.into()).into_response()
}

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
