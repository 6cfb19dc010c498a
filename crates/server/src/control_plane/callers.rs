//! Who holds an API token: the token's org and roles, and the checks on them, for the REST API
//! and the MCP endpoints alike.

use super::ControlPlane;
use crate::mcp::gateway::OrgCaller;
use crate::rest::ApiError;
use switchboard_store::{ApiToken, Org, hash_api_token};

/// The org feature the MCP integration routes need.
pub const FEATURE: &str = "mcp_external_servers";
pub const MANAGE: &str = "integrations:manage";
pub const VIEW: &str = "integrations:view";
/// Operations on the operator's config-file servers, which every org shares.
pub const OPERATE: &str = "gateway:operate";

/// An authenticated API caller.
pub(crate) struct ApiCaller {
    pub(crate) org: Org,
    pub(crate) token: ApiToken,
}

impl ApiCaller {
    /// Whether the token carries `role` (manage implies view).
    pub(crate) fn has_role(&self, role: &str) -> bool {
        let has = |r: &str| self.token.roles.iter().any(|t| t == r);
        has(role) || (role == VIEW && has(MANAGE))
    }

    /// Requires `role` (manage implies view).
    pub(crate) fn require_role(&self, role: &str) -> Result<(), ApiError> {
        if self.has_role(role) {
            return Ok(());
        }
        Err(ApiError::Forbidden(format!(
            "this token lacks the role {role}; create one with `switchboard token create --org {} --role {role}`",
            self.org.name
        )))
    }

    /// Requires `role` and the org's `mcp_external_servers` feature (the integration routes).
    pub(crate) fn require(&self, role: &str) -> Result<(), ApiError> {
        self.require_role(role)?;
        if !self.org.has_feature(FEATURE) {
            return Err(ApiError::Forbidden(format!(
                "org {} does not have the feature {FEATURE}; enable it for the org first",
                self.org.name
            )));
        }
        Ok(())
    }
}

impl ControlPlane {
    /// The live token `token` and its org, or `unauthenticated`.
    pub(crate) async fn caller_for_token(&self, token: &str) -> Result<ApiCaller, ApiError> {
        let unknown = || {
            ApiError::Unauthenticated(
                "unknown or revoked API token: create one with `switchboard token create`".into(),
            )
        };
        let token = self
            .store
            .token_by_hash(&hash_api_token(token))
            .await?
            .filter(|t| t.revoked_at.is_none())
            .ok_or_else(unknown)?;
        let org = self.store.org(&token.org_id).await?.ok_or_else(unknown)?;
        Ok(ApiCaller { org, token })
    }

    /// The org an API token presented on an MCP endpoint stands for: a live token of an org
    /// with the integrations feature, holding `role`.
    pub(crate) async fn org_caller(&self, token: &str, role: &str) -> Result<OrgCaller, ApiError> {
        let caller = self.caller_for_token(token).await?;
        caller.require(role)?;
        Ok(OrgCaller {
            org_id: caller.org.id,
            token_id: caller.token.id,
        })
    }
}
