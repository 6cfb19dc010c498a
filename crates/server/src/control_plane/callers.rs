//! Who calls: an API token's org and roles and the checks on them, for the REST API and the
//! MCP endpoints alike, and what a request carries of its caller (org, token, agent).

use super::ApiError;
use super::ControlPlane;
use switchboard_store::{ApiToken, Org};

/// The org feature the MCP integration routes need.
pub(crate) const FEATURE: &str = "mcp_external_servers";
pub const MANAGE: &str = "integrations:manage";
pub const VIEW: &str = "integrations:view";
/// Operations on the operator's config-file servers, which every org shares.
pub const OPERATE: &str = "gateway:operate";

/// Limits a gateway to one agent of one org (`/mcp/agents/{agent}`): the policy pipeline
/// shows and calls only the agent's enabled actions.
#[derive(Clone, Debug)]
pub(crate) struct AgentScope {
    pub(crate) org_id: String,
    pub(crate) agent_id: String,
}

/// The org whose API token authorised a request to an MCP endpoint (put in its extensions by
/// the endpoint's first layer, `edge::callers`).
#[derive(Debug, Clone)]
pub(crate) struct OrgCaller {
    pub(crate) org_id: String,
    /// The API token's id; `None` for an OAuth access token (see [`TokenCaller`]).
    pub(crate) token_id: Option<String>,
    /// The token holds `end_users:assert`: end users it names are trusted where a server says so.
    pub(crate) asserts_end_users: bool,
}

/// The verified OAuth access token that authorised a request (in its extensions beside an
/// [`OrgCaller`] when the token maps to an org).
#[derive(Debug, Clone)]
pub(crate) struct TokenCaller {
    /// `issuer#subject`.
    pub(crate) principal: String,
    /// The end user its claims name.
    pub(crate) end_user: Option<String>,
    /// Its roles include `end_users:assert`.
    pub(crate) asserts_end_users: bool,
    /// The token itself, where its issuer may exchange it (`token_exchange`).
    pub(crate) inbound: Option<std::sync::Arc<switchboard_core::InboundToken>>,
}

/// An agent id a route names: 1-128 letters, digits, `_`, `.`, `:` or `-`.
pub(crate) fn check_agent(agent: &str) -> Result<(), ApiError> {
    let ok = !agent.is_empty()
        && agent.len() <= 128
        && agent
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.:-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(ApiError::Invalid(
            "agent ids are 1-128 characters: letters, digits, '_', '.', ':' or '-'".into(),
        ))
    }
}

/// An authenticated API caller.
pub(crate) struct ApiCaller {
    pub(crate) org: Org,
    pub(crate) token: ApiToken,
    /// For a person signed in with a session cookie: the token their page sends on changes.
    pub(crate) csrf: Option<String>,
    /// The end user an OAuth access token's claims name (a call over REST acts as them).
    pub(crate) end_user: Option<String>,
    /// The end user a signed-in person's claims map to: whose own grants they see
    /// (`/api/me/grants`); their calls assert end users as before.
    pub(crate) person_end_user: Option<String>,
    /// The access token itself, where its issuer may exchange it (`token_exchange`): a REST
    /// invoke of a token-exchange server trades it for the end user's upstream token.
    pub(crate) inbound: Option<std::sync::Arc<switchboard_core::InboundToken>>,
}

impl ApiCaller {
    /// The end user this caller is: an access token's, or a signed-in person's.
    pub(crate) fn own_end_user(&self) -> Option<&str> {
        self.end_user.as_deref().or(self.person_end_user.as_deref())
    }
}

/// Whether `token` carries `role` (manage implies view).
pub(crate) fn token_has_role(token: &ApiToken, role: &str) -> bool {
    let has = |r: &str| token.roles.iter().any(|t| t == r);
    has(role) || (role == VIEW && has(MANAGE))
}

impl ApiCaller {
    /// Whether the token carries `role` (manage implies view).
    pub(crate) fn has_role(&self, role: &str) -> bool {
        token_has_role(&self.token, role)
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
                "org {} does not have the feature {FEATURE}: features are given when the org is created (switchboard org create NAME --feature {FEATURE}), so ask the operator for an org that has it",
                self.org.name
            )));
        }
        Ok(())
    }
}

/// The path of the REST API's resource URI (`{public_url}/api`), for access tokens.
pub(crate) const REST_PATH: &str = "/api";

impl ControlPlane {
    /// The live token `token` and its org, or `unauthenticated`.
    pub(crate) async fn caller_for_token(&self, token: &str) -> Result<ApiCaller, ApiError> {
        let token = super::tenancy::live_token(self.store.as_ref(), token).await?;
        let org =
            self.store.org(&token.org_id).await?.ok_or_else(|| {
                ApiError::Unauthenticated("this API token's org was deleted".into())
            })?;
        Ok(ApiCaller {
            org,
            token,
            csrf: None,
            end_user: None,
            person_end_user: None,
            inbound: None,
        })
    }

    /// The org a verified access token's claim names: `Forbidden` naming the fix when there is
    /// none such.
    pub(crate) async fn org_for_token(
        &self,
        name: &str,
    ) -> Result<Org, switchboard_identity::TokenError> {
        use switchboard_identity::TokenError;
        match self.store.org_by_name(name).await {
            Ok(Some(org)) => Ok(org),
            Ok(None) => Err(TokenError::Forbidden(format!(
                "this token's org {name:?} does not exist: create it (switchboard org create {name})"
            ))),
            Err(e) => Err(TokenError::IssuerUnavailable(format!("the store: {e}"))),
        }
    }

    /// The caller an OAuth access token for the REST API stands for: verified for the
    /// resource `{public_url}/api` with the operator's issuers, holding the issuer's `api`
    /// scopes, and mapped to an org and roles by its claims.
    pub(crate) async fn caller_for_access_token(
        &self,
        resource: &crate::edge::identity::ResourceServer,
        token: &str,
    ) -> Result<ApiCaller, ApiError> {
        use switchboard_identity::TokenError;
        let admitted = async {
            let verified = (resource.issuers())
                .verify(token, &resource.resource(REST_PATH))
                .await?;
            verified.require_scopes(&verified.spec.scopes.api)?;
            let Some(org_name) = verified.org.clone() else {
                return Err(TokenError::Forbidden(
                    "the REST API acts for an org, and this token names none: map the org claim in the issuer's claims.org".into(),
                ));
            };
            let org = self.org_for_token(&org_name).await?;
            Ok((verified, org))
        };
        let (verified, org) = admitted.await.map_err(|e| {
            resource.note_refusal(REST_PATH, &e);
            match e.status() {
                403 => ApiError::Forbidden(e.to_string()),
                _ => ApiError::Unauthenticated(e.to_string()),
            }
        })?;
        // Kept for a token exchange only where the issuer may exchange it.
        let inbound = (verified.spec.token_exchange.is_some()).then(|| {
            std::sync::Arc::new(switchboard_core::InboundToken {
                issuer: verified.spec.issuer.clone(),
                token: token.to_string(),
                expires_at: verified.expires_at,
            })
        });
        let token = ApiToken {
            id: format!("oauth:{}", verified.principal()),
            org_id: org.id.clone(),
            roles: verified.roles.clone(),
            created_at: 0,
            revoked_at: None,
            expires_at: None,
        };
        Ok(ApiCaller {
            org,
            token,
            csrf: None,
            end_user: verified.end_user.clone(),
            person_end_user: None,
            inbound,
        })
    }

    /// The org an API token presented on a route stands for, and its name: a live token
    /// holding `role`, of an org with the integrations feature when `needs_feature`.
    pub(crate) async fn org_caller(
        &self,
        token: &str,
        role: &str,
        needs_feature: bool,
    ) -> Result<(OrgCaller, String), ApiError> {
        let caller = self.caller_for_token(token).await?;
        match needs_feature {
            true => caller.require(role)?,
            false => caller.require_role(role)?,
        }
        let org = OrgCaller {
            asserts_end_users: caller.has_role(switchboard_core::end_user::ASSERT_ROLE),
            org_id: caller.org.id,
            token_id: Some(caller.token.id),
        };
        Ok((org, caller.org.name))
    }
}
