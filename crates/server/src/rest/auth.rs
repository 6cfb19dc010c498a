//! Who is calling the REST API: the bearer token's org and roles
//! ([`crate::control_plane::callers`]).

use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
use crate::control_plane::callers::ApiCaller;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;

impl FromRequestParts<ControlPlane> for ApiCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &ControlPlane) -> Result<Self, ApiError> {
        let token = crate::edge::callers::bearer(&parts.headers).ok_or_else(|| {
            ApiError::Unauthenticated(
                "send Authorization: Bearer <API token> (switchboard token create)".into(),
            )
        })?;
        state.caller_for_token(token).await
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
    }))
}
