//! Who is calling the REST API: the bearer token's org and roles (an API token, or an OAuth
//! access token for `{public_url}/api`), or a signed-in person's session
//! ([`crate::control_plane::callers`]).

use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
use crate::control_plane::callers::ApiCaller;
use crate::control_plane::people;
use axum::extract::FromRequestParts;
use axum::http::Method;
use axum::http::request::Parts;

impl FromRequestParts<ControlPlane> for ApiCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &ControlPlane) -> Result<Self, ApiError> {
        if let Some(token) = crate::edge::callers::bearer(&parts.headers) {
            // An OAuth access token from an operator's issuer, for `{public_url}/api`.
            if let Some(rs) = state.resource.as_ref()
                && !token.starts_with("sb_")
                && rs.issuers().checks(token)
            {
                return state.caller_for_access_token(rs, token).await;
            }
            return state.caller_for_token(token).await;
        }
        let session = people::session_cookie(&parts.headers).ok_or_else(|| {
            ApiError::Unauthenticated(
                "send Authorization: Bearer <API token> (switchboard token create), or sign in (/auth/login)".into(),
            )
        })?;
        let caller = state.caller_for_person(&session).await?;
        // A change asked with the session cookie must carry the session's CSRF token, which
        // only this gateway's own pages can read (GET /api/me).
        let safe = matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS);
        let sent = parts
            .headers
            .get(people::CSRF_HEADER)
            .and_then(|v| v.to_str().ok());
        let expected = caller.csrf.as_deref().unwrap_or_default();
        if !safe
            && !sent.is_some_and(|s| {
                crate::edge::callers::constant_time_eq(s.as_bytes(), expected.as_bytes())
            })
        {
            return Err(ApiError::Forbidden(format!(
                "a change made with a sign-in cookie needs the {} header from GET /api/me",
                people::CSRF_HEADER
            )));
        }
        Ok(caller)
    }
}

/// `GET /api/me`: the caller's org, roles and features (never the token), so a client offers
/// only what those roles allow.
pub(crate) async fn me(caller: ApiCaller) -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({
        "org": caller.org.name,
        "org_id": caller.org.id,
        "token_id": caller.token.id,
        "roles": caller.token.roles,
        "features": caller.org.features,
        // For a signed-in person's page: the header its changes carry.
        "csrf": caller.csrf,
        // The end user this caller is (a person's, an access token's): /api/me/grants.
        "end_user": caller.own_end_user(),
    }))
}
