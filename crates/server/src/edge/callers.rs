//! Who calls an MCP endpoint, the first layer of `/mcp` and of the agent endpoints: the
//! operator (the `[gateway]` token) or the org whose API token the request bears. A request
//! that is neither gets the same refusal on every endpoint.

use crate::control_plane::ControlPlane;
use crate::control_plane::callers::{MANAGE, VIEW};
use crate::rest::ApiError;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// Whom an endpoint lets in.
#[derive(Clone)]
pub(crate) struct Callers {
    /// The operator, when the endpoint admits one: `Some(None)` is the operator without a
    /// token (loopback with no `[gateway] token`: every request is the operator's).
    operator: Option<Option<Arc<str>>>,
    /// Where orgs' API tokens are checked; without it, only the operator.
    control: Option<ControlPlane>,
    /// The role an org's token needs here.
    role: &'static str,
}

impl Callers {
    /// `/mcp`: the operator, or an org with `integrations:manage` (calling tools acts on
    /// them, as the REST invoke route does).
    pub(crate) fn gateway(token: Option<String>, control: Option<ControlPlane>) -> Self {
        Self {
            operator: Some(token.map(Arc::from)),
            control,
            role: MANAGE,
        }
    }

    /// An agent endpoint: an org of the agent, with `integrations:view`.
    pub(crate) fn agents(control: ControlPlane) -> Self {
        Self {
            operator: None,
            control: Some(control),
            role: VIEW,
        }
    }
}

/// The middleware: lets a request through as the operator, or as the org whose API token it
/// carries (its [`crate::mcp::gateway::OrgCaller`] in the request's extensions).
pub(crate) async fn authenticate(
    State(callers): State<Arc<Callers>>,
    mut request: Request,
    next: Next,
) -> Response {
    let presented = bearer(request.headers()).map(str::to_string);
    if let (Some(Some(token)), Some(p)) = (&callers.operator, &presented)
        && constant_time_eq(p.as_bytes(), token.as_bytes())
    {
        return next.run(request).await;
    }
    if let (Some(p), Some(control)) = (&presented, &callers.control)
        && p.starts_with("sb_")
    {
        return match control.org_caller(p, callers.role).await {
            Ok(org) => {
                request.extensions_mut().insert(org);
                next.run(request).await
            }
            Err(ApiError::Unauthenticated(_)) => refused(Refused::UnknownToken),
            Err(e) => e.into_response(),
        };
    }
    match (&callers.operator, presented) {
        // No token configured (loopback): whatever else a client sends, it is the operator.
        (Some(None), _) => next.run(request).await,
        (_, None) => refused(Refused::NoToken),
        (_, Some(_)) => refused(Refused::UnknownToken),
    }
}

/// The bearer token a request carries.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

/// Why a caller was turned away.
enum Refused {
    NoToken,
    UnknownToken,
}

/// HTTP 401 with `WWW-Authenticate: Bearer`, the same on every MCP endpoint.
fn refused(why: Refused) -> Response {
    let message = match why {
        Refused::NoToken => {
            "this endpoint needs a bearer token: send Authorization: Bearer <token>, an org's API token (switchboard token create) or, on /mcp, the [gateway] token"
        }
        Refused::UnknownToken => {
            "unknown or revoked token: send an org's live API token (switchboard token create) or, on /mcp, the [gateway] token"
        }
    };
    let body = serde_json::json!({"error": {"kind": "auth_unavailable", "message": message}});
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        axum::Json(body),
    )
        .into_response()
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
