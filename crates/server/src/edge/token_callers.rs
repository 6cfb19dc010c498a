//! Who an access token is, and what it may do on the route it reached: verified with the
//! issuers of the operator or, on an org's endpoint (`/orgs/{org}/…`), of that org too; then
//! its scopes, agent, role and org. An org's issuer maps only into its org.

use super::{Callers, Protected};
use crate::control_plane::ApiError;
use crate::control_plane::callers::{FEATURE, OPERATE, OrgCaller, TokenCaller, VIEW};
use crate::edge::identity::ResourceServer;
use switchboard_identity::{Issuers, TokenError, Verified};
use switchboard_store::Org;

/// Which issuers vouched for a token.
enum Vouched {
    /// The operator's (config file): the org may come from a claim.
    Operator,
    /// The org's own, on its endpoint: the org is that one.
    Org(Org),
}

/// The org and holder a presented access token stands for here; `Ok(None)` when it is no
/// token any issuer here could check (not a JWT, and nobody introspects); `Err` names the
/// resource server that answers the refusal.
pub(super) async fn admit_token<'c>(
    callers: &'c Callers,
    presented: &str,
    path: &str,
) -> Result<Option<(Option<OrgCaller>, TokenCaller)>, (&'c ResourceServer, TokenError)> {
    let Some(rs) = callers.resource.as_ref() else {
        return Ok(None);
    };
    let refused = |e| (rs, e);
    let org = match callers.surface.org_scoped() {
        true => Some(path_org(callers, path).await.map_err(refused)?),
        false => None,
    };
    let org_issuers = match (&org, &callers.control) {
        (Some(org), Some(control)) => {
            Some((control.issuers_of_org(&org.id).await).map_err(|e| {
                refused(TokenError::IssuerUnavailable(format!(
                    "the org's issuers: {e:?}"
                )))
            })?)
        }
        _ => None,
    };
    let operator = rs.issuers();
    let own = org_issuers.zip(org).filter(|(i, _)| !i.is_empty());
    if !operator.checks(presented) && !own.as_ref().is_some_and(|(i, _)| i.checks(presented)) {
        return Ok(None);
    }
    let resource = rs.resource(path);
    let by_operator =
        || async { (operator.verify(presented, &resource).await).map(|v| (v, Vouched::Operator)) };
    // The org's issuers answer first for a JWT they issued, or for an opaque token they
    // introspect (the operator's introspecting issuers are asked if they refuse it).
    let verified = match own {
        Some((own, org)) if own.answers_for(presented) => {
            match own.verify(presented, &resource).await {
                Ok(v) => Ok((v, Vouched::Org(org))),
                Err(e) if Issuers::is_jwt(presented) || !operator.introspects() => Err(e),
                Err(_) => by_operator().await,
            }
        }
        _ => by_operator().await,
    };
    let (token, vouched) = verified.map_err(refused)?;
    // Kept for a token exchange only where the operator's issuer may exchange it.
    let exchangeable = matches!(vouched, Vouched::Operator) && token.spec.token_exchange.is_some();
    let admitted = admit(callers, &token, vouched, path).await;
    let (org, mut holder) = admitted.map_err(refused)?;
    if exchangeable {
        holder.inbound = Some(std::sync::Arc::new(switchboard_core::InboundToken {
            issuer: token.spec.issuer.clone(),
            token: presented.to_string(),
            expires_at: token.expires_at,
        }));
    }
    Ok(Some((org, holder)))
}

/// The name of the org an org-scoped route names (`/orgs/{org}/…`).
fn path_org_name(path: &str) -> &str {
    path.split('/').nth(2).unwrap_or_default()
}

/// The org an org-scoped route names.
async fn path_org(callers: &Callers, path: &str) -> Result<Org, TokenError> {
    let name = path_org_name(path);
    let Some(control) = &callers.control else {
        return Err(TokenError::Forbidden(
            "this gateway has no orgs (no store)".into(),
        ));
    };
    match control.store.org_by_name(name).await {
        Ok(Some(org)) => Ok(org),
        Ok(None) => Err(TokenError::Forbidden(format!("there is no org {name:?}"))),
        Err(e) => Err(TokenError::IssuerUnavailable(format!("the store: {e}"))),
    }
}

/// An org's API token (of the org `org_name`) on an org-scoped route: only that org's.
pub(super) fn org_token_fits(
    callers: &Callers,
    org_name: &str,
    path: &str,
) -> Result<(), ApiError> {
    let named = path_org_name(path);
    if !callers.surface.org_scoped() || org_name == named {
        return Ok(());
    }
    Err(ApiError::Forbidden(format!(
        "this API token belongs to org {org_name}, not {named}: use /orgs/{org_name}/mcp"
    )))
}

/// What a verified token may do here: its scopes, its agent, its role and its org.
async fn admit(
    callers: &Callers,
    token: &Verified,
    vouched: Vouched,
    path: &str,
) -> Result<(Option<OrgCaller>, TokenCaller), TokenError> {
    let scopes = &token.spec.scopes;
    let needed = match callers.surface {
        Protected::Metrics => &scopes.metrics,
        _ => &scopes.mcp,
    };
    token.require_scopes(needed)?;
    if let Some(agent) = &token.agent
        && (!callers.surface.agent() || !path.ends_with(&format!("/mcp/agents/{agent}")))
    {
        let prefix = path.split("/mcp").next().unwrap_or_default();
        return Err(TokenError::Forbidden(format!(
            "this token is for agent {agent}: use its endpoint {prefix}/mcp/agents/{agent}"
        )));
    }
    let role = match callers.surface {
        Protected::Metrics => OPERATE,
        // An access token is issued to use the endpoint: viewing the tools suffices.
        _ => VIEW,
    };
    if !token.has_role(role) {
        return Err(TokenError::Forbidden(format!(
            "this token's roles lack {role}: map a claim to it in the issuer's claims.roles"
        )));
    }
    let holder = TokenCaller {
        inbound: None,
        principal: token.principal(),
        end_user: token.end_user.clone(),
        asserts_end_users: token.has_role(switchboard_core::end_user::ASSERT_ROLE),
    };
    let org = match vouched {
        Vouched::Org(org) => org,
        Vouched::Operator => {
            let Some(org_name) = &token.org else {
                if callers.surface.agent() || callers.surface.org_scoped() {
                    return Err(TokenError::Forbidden(
                        "agent and org endpoints belong to an org, and this token names none: map the org claim in the issuer's claims.org".into(),
                    ));
                }
                return Ok((None, holder));
            };
            let Some(control) = &callers.control else {
                return Err(TokenError::Forbidden(
                    "this token names an org, and this gateway has no orgs (no store)".into(),
                ));
            };
            let org = control.org_for_token(org_name).await?;
            if callers.surface.org_scoped() && !path.starts_with(&format!("/orgs/{org_name}/")) {
                return Err(TokenError::Forbidden(format!(
                    "this token is for org {org_name}: use /orgs/{org_name}/mcp"
                )));
            }
            org
        }
    };
    if callers.needs_feature && !org.has_feature(FEATURE) {
        return Err(TokenError::Forbidden(format!(
            "org {} does not have the feature {FEATURE}",
            org.name
        )));
    }
    let org = OrgCaller {
        org_id: org.id,
        token_id: None,
        asserts_end_users: holder.asserts_end_users,
    };
    Ok((Some(org), holder))
}
