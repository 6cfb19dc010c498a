//! Credentials of API-added servers sealed at rest and opened again to connect (their
//! checks are in switchboard-api-types).

use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
pub(crate) use switchboard_api_types::{Credentials, UpstreamAuth, upstream_auth};
use switchboard_store::ServerRow;

pub(super) const CREDENTIALS: &str = "credentials";

/// The credentials sealed in `row`, opened.
pub(super) fn stored_credentials(
    state: &ControlPlane,
    row: &ServerRow,
) -> Result<Option<Credentials>, ApiError> {
    let Some(sealed) = &row.credentials else {
        return Ok(None);
    };
    let plain = state
        .sealer
        .open(&row.id, CREDENTIALS, sealed)
        .map_err(|e| ApiError::Internal(format!("server {}: {e}", row.id)))?;
    serde_json::from_str(&plain)
        .map(Some)
        .map_err(|e| ApiError::Internal(e.to_string()))
}

/// What a stored row sends upstream.
pub(super) fn stored_auth(state: &ControlPlane, row: &ServerRow) -> Result<UpstreamAuth, ApiError> {
    let credentials = stored_credentials(state, row)?;
    Ok(upstream_auth(&row.auth_method, credentials.as_ref())?)
}
