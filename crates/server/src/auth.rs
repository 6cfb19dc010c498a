//! The downstream endpoint's bearer token check.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// What `/mcp` accepts: the operator's `[gateway] token`, or an org's API token (which
/// scopes the endpoint to that org's servers plus the config-file ones).
#[derive(Clone)]
pub struct TokenCheck {
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
pub async fn require_token(
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

/// Equality that takes the same time wherever the first difference is.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
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
