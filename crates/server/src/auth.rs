//! The downstream endpoint's bearer token check.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// What `/mcp` accepts: the operator's `[gateway] token`, or an org's API token (which
/// scopes the endpoint to that org's servers plus the config-file ones).
#[derive(Clone)]
pub(crate) struct TokenCheck {
    pub token: Option<Arc<str>>,
    pub api: Option<crate::api::ApiState>,
}

fn refused(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({"error": {"kind": "auth_unavailable", "message": message}});
    (
        status,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        axum::Json(body),
    )
        .into_response()
}

/// Lets a request through as the operator (no token configured, or the right one), or as
/// the org whose API token it carries.
pub(crate) async fn require_token(
    State(check): State<Arc<TokenCheck>>,
    mut request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    if let (Some(token), Some(p)) = (&check.token, &presented)
        && constant_time_eq(p.as_bytes(), token.as_bytes())
    {
        return next.run(request).await;
    }
    if let (Some(p), Some(api)) = (&presented, &check.api)
        && p.starts_with("sb_")
    {
        return match api.org_caller(p).await {
            Ok(org) => {
                request.extensions_mut().insert(org);
                next.run(request).await
            }
            Err(e) => e.into_response(),
        };
    }
    match (&check.token, presented) {
        // No token configured (loopback): whatever else a client sends, it is the operator,
        // as before org tokens were accepted here.
        (None, _) => next.run(request).await,
        (Some(_), _) => refused(
            StatusCode::UNAUTHORIZED,
            "this endpoint needs a bearer token: send Authorization: Bearer <the [gateway] token> or an org's API token",
        ),
    }
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
