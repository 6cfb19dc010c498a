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
    let resource = rs.resource(path);
    let verified = if Issuers::is_jwt(presented) {
        let iss = Issuers::claimed_issuer(presented).map_err(refused)?;
        match (&org_issuers, &org) {
            (Some(own), Some(org)) if own.knows(&iss) => own
                .verify(presented, &resource)
                .await
                .map(|v| (v, Vouched::Org(org.clone()))),
            _ => (operator.verify(presented, &resource).await).map(|v| (v, Vouched::Operator)),
        }
    } else {
        let own = (org_issuers.as_ref().zip(org.as_ref())).filter(|(i, _)| i.introspects());
        let theirs = operator.introspects();
        match own {
            None if !theirs => return Ok(None),
            None => (operator.verify(presented, &resource).await).map(|v| (v, Vouched::Operator)),
            Some((own, org)) => match own.verify(presented, &resource).await {
                Ok(v) => Ok((v, Vouched::Org(org.clone()))),
                Err(e) if !theirs => Err(e),
                Err(_) => {
                    (operator.verify(presented, &resource).await).map(|v| (v, Vouched::Operator))
                }
            },
        }
    };
    let (token, vouched) = verified.map_err(refused)?;
    admit(callers, &token, vouched, path)
        .await
        .map(Some)
        .map_err(refused)
}

/// The org an org-scoped route names (`/orgs/{org}/…`).
async fn path_org(callers: &Callers, path: &str) -> Result<Org, TokenError> {
    let name = path.split('/').nth(2).unwrap_or_default();
    org_named(callers, name, || format!("there is no org {name:?}")).await
}

/// An org's API token on an org-scoped route: only that org's.
pub(super) async fn org_token_fits(
    callers: &Callers,
    caller: &OrgCaller,
    path: &str,
) -> Result<(), ApiError> {
    if !callers.surface.org_scoped() {
        return Ok(());
    }
    let org = path_org(callers, path)
        .await
        .map_err(|e| ApiError::Forbidden(e.to_string()))?;
    if org.id != caller.org_id {
        return Err(ApiError::Forbidden(format!(
            "this API token belongs to another org than {}: use its own org's endpoint",
            org.name
        )));
    }
    Ok(())
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
    if !token.missing_scopes(needed).is_empty() {
        let missing = token.missing_scopes(needed).into_iter().cloned();
        return Err(TokenError::InsufficientScope {
            missing: missing.collect::<Vec<_>>().join(" "),
            needed: needed.clone(),
        });
    }
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
        principal: token.principal(),
        end_user: token.end_user.clone(),
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
            let missing = || {
                format!(
                    "this token's org {org_name:?} does not exist: create it (switchboard org create {org_name})"
                )
            };
            let org = org_named(callers, org_name, missing).await?;
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
    };
    Ok((Some(org), holder))
}

/// The org called `name`; `missing` says what its absence means.
async fn org_named(
    callers: &Callers,
    name: &str,
    missing: impl FnOnce() -> String,
) -> Result<Org, TokenError> {
    let Some(control) = &callers.control else {
        return Err(TokenError::Forbidden(
            "this gateway has no orgs (no store)".into(),
        ));
    };
    match control.store.org_by_name(name).await {
        Ok(Some(org)) => Ok(org),
        Ok(None) => Err(TokenError::Forbidden(missing())),
        Err(e) => Err(TokenError::IssuerUnavailable(format!("the store: {e}"))),
    }
}
