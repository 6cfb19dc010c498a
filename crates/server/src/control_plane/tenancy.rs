//! Orgs and API tokens with a lifecycle (create, list, change, delete, revoke), the same for
//! the CLI and the REST API, each change an audit row.

use super::ApiError;
use super::callers::{MANAGE, OPERATE, VIEW, token_has_role};
use serde_json::{Value, json};
use switchboard_core::Surface;
use switchboard_core::identity::ROLES as TOKEN_ROLES;
use switchboard_store::{
    ApiToken, AuditEntry, Org, Store, StoreError, hash_api_token, new_api_token, now_ms,
};

/// Why an API token is refused when the store has no such token (the edge adds the other
/// credentials its routes take).
pub(crate) const UNKNOWN_API_TOKEN: &str =
    "unknown API token: send an org's live API token (switchboard token create)";

/// A store conflict in the words of `say` (given the store's `what`); other errors as they are.
fn conflict(e: StoreError, say: impl FnOnce(String) -> String) -> ApiError {
    match e {
        StoreError::Conflict { what } => ApiError::Conflict(say(what)),
        other => other.into(),
    }
}

/// Who makes a change: the operator at the CLI (no token), or an API token's holder.
#[derive(Clone, Copy)]
pub struct Actor<'a> {
    pub token: Option<&'a ApiToken>,
    pub surface: Surface,
}

impl Actor<'_> {
    /// The operator at the command line, who may do anything.
    pub const CLI: Actor<'static> = Actor {
        token: None,
        surface: Surface::Cli,
    };

    /// Whether the actor holds `role` (the operator holds every one; manage implies view).
    fn holds(&self, role: &str) -> bool {
        self.token.is_none_or(|t| token_has_role(t, role))
    }

    /// Tokens are managed with `integrations:manage` (in the token's own org) or
    /// `gateway:operate`; seen with `integrations:view` too.
    fn require_tokens(&self, change: bool) -> Result<(), ApiError> {
        let needed = if change { MANAGE } else { VIEW };
        match self.holds(needed) || self.holds(OPERATE) {
            true => Ok(()),
            false => Err(ApiError::Forbidden(format!(
                "this token lacks the role {needed} (or {OPERATE}) that {} tokens needs",
                if change { "managing" } else { "listing" }
            ))),
        }
    }

    /// Only `gateway:operate` manages orgs.
    fn require_operate(&self) -> Result<(), ApiError> {
        match self.holds(OPERATE) {
            true => Ok(()),
            false => Err(ApiError::Forbidden(format!(
                "managing orgs needs the role {OPERATE}; ask the operator, or use `switchboard org` on the gateway's machine"
            ))),
        }
    }

    /// The audit row of a change to `org_id`'s tenancy.
    fn audit(&self, action: &str, org_id: &str, detail: String) -> AuditEntry {
        AuditEntry {
            at: now_ms(),
            org_id: Some(org_id.to_string()),
            token_id: self.token.map(|t| t.id.clone()),
            action_id: action.into(),
            verdict: "allowed".into(),
            outcome: "ok".into(),
            detail: Some(format!("{} {detail}", self.surface.detail())),
            ..Default::default()
        }
    }

    /// The audit row of a change to an org itself: kept under the actor's own org (so the
    /// operator's token still reads it after the org is gone), or the org's at the CLI.
    fn audit_org(&self, action: &str, org: &Org) -> AuditEntry {
        let owner = self.token.map_or(org.id.as_str(), |t| t.org_id.as_str());
        let detail = format!(
            "org={} org_id={} features={}",
            org.name,
            org.id,
            org.features.join(",")
        );
        self.audit(action, owner, detail)
    }
}

/// An org name: 1-64 letters, digits, `-`, `_` or `.`, starting with a letter or digit.
fn check_org_name(name: &str) -> Result<(), ApiError> {
    let ok = (1..=64).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    match ok {
        true => Ok(()),
        false => Err(ApiError::Invalid(format!(
            "org name {name:?}: use 1-64 letters, digits, '-', '_' or '.', starting with a letter or digit"
        ))),
    }
}

pub async fn create_org(
    store: &dyn Store,
    actor: Actor<'_>,
    name: &str,
    features: &[String],
) -> Result<(Org, AuditEntry), ApiError> {
    actor.require_operate()?;
    check_org_name(name)?;
    let org = (store.create_org(name, features).await).map_err(|e| conflict(e, |_| format!(
        "org {name:?} already exists; `switchboard org list` shows the orgs, `switchboard org set {name} --feature …` changes its features"
    )))?;
    let audit = actor.audit_org("org.create", &org);
    Ok((org, audit))
}

/// The live org named `name`, or `NotFound` naming the fix.
pub async fn org_named(store: &dyn Store, name: &str) -> Result<Org, ApiError> {
    store.org_by_name(name).await?.ok_or_else(|| {
        ApiError::NotFound(format!(
            "no org named {name:?}: create it with `switchboard org create {name}` (`switchboard org list` shows the orgs)"
        ))
    })
}

pub async fn set_org_features(
    store: &dyn Store,
    actor: Actor<'_>,
    name: &str,
    features: &[String],
) -> Result<(Org, AuditEntry), ApiError> {
    actor.require_operate()?;
    let org = org_named(store, name).await?;
    let now = (store.set_org_features(&org.id, features).await?)
        .ok_or_else(|| ApiError::NotFound(format!("org {name:?} was deleted meanwhile")))?;
    let mut audit = actor.audit_org("org.update", &now);
    if let Some(detail) = &mut audit.detail {
        detail.push_str(&format!(" was={}", org.features.join(",")));
    }
    Ok((now, audit))
}

/// Deletes an org (refused while it has servers); its tokens are revoked.
pub async fn delete_org(
    store: &dyn Store,
    actor: Actor<'_>,
    name: &str,
) -> Result<(Org, AuditEntry), ApiError> {
    actor.require_operate()?;
    let org = org_named(store, name).await?;
    (store.delete_org(&org.id).await)
        .map_err(|e| conflict(e, |what| format!("org {name:?} still has {what}")))?;
    let audit = actor.audit_org("org.delete", &org);
    Ok((org, audit))
}

/// A new token: the secret (shown once), its row, and the audit row. A token may create only
/// tokens whose roles it holds itself, in its own org unless it holds `gateway:operate`.
pub async fn create_token(
    store: &dyn Store,
    actor: Actor<'_>,
    org: &str,
    roles: &[String],
    expires_in: Option<&str>,
) -> Result<(String, ApiToken, AuditEntry), ApiError> {
    actor.require_tokens(true)?;
    if roles.is_empty() {
        return Err(ApiError::Invalid(format!(
            "a token needs at least one role: {}",
            TOKEN_ROLES.join(", ")
        )));
    }
    if let Some(bad) = roles.iter().find(|r| !TOKEN_ROLES.contains(&r.as_str())) {
        return Err(ApiError::Invalid(format!(
            "unknown role {bad:?}; use {}",
            TOKEN_ROLES.join(", ")
        )));
    }
    if let Some(missing) = roles.iter().find(|r| !actor.holds(r)) {
        return Err(ApiError::Forbidden(format!(
            "a token creates only tokens whose roles it holds, and this one lacks {missing}"
        )));
    }
    let org = org_named(store, org).await?;
    if let Some(token) = actor.token
        && token.org_id != org.id
        && !actor.holds(OPERATE)
    {
        return Err(ApiError::Forbidden(format!(
            "this token belongs to another org than {:?}; only {OPERATE} creates tokens for other orgs",
            org.name
        )));
    }
    let expires_at = expires_in.map(expiry).transpose()?;
    let (secret, hash) = new_api_token();
    let token = (store.create_token_expiring(&org.id, roles, &hash, expires_at)).await?;
    let detail = format!(
        "token={} roles={} expires_at={}",
        token.id,
        roles.join(","),
        expires_at.map_or("never".into(), |t| t.to_string())
    );
    let audit = actor.audit("token.create", &org.id, detail);
    Ok((secret, token, audit))
}

/// `now + DURATION` in Unix ms, DURATION as people write it ("30d", "12h", "1h 30m").
fn expiry(duration: &str) -> Result<i64, ApiError> {
    let span = humantime::parse_duration(duration).map_err(|e| {
        ApiError::Invalid(format!(
            "expiry {duration:?}: {e}; write a duration such as 30d, 12h or 90m"
        ))
    })?;
    match span.as_millis() {
        0 => Err(ApiError::Invalid(
            "an expiry must be longer than zero".into(),
        )),
        ms => Ok(now_ms().saturating_add(i64::try_from(ms).unwrap_or(i64::MAX))),
    }
}

/// Tokens `actor` may see: every org's (or `org`'s) for the operator and `gateway:operate`,
/// its own org's otherwise.
pub async fn list_tokens(
    store: &dyn Store,
    actor: Actor<'_>,
    org: Option<&str>,
) -> Result<Vec<Value>, ApiError> {
    actor.require_tokens(false)?;
    let org_id = match (org, actor.token) {
        (Some(name), _) => Some(org_named(store, name).await?.id),
        (None, Some(token)) if !actor.holds(OPERATE) => Some(token.org_id.clone()),
        (None, _) => None,
    };
    if let (Some(token), Some(org_id)) = (actor.token, &org_id)
        && &token.org_id != org_id
        && !actor.holds(OPERATE)
    {
        return Err(ApiError::Forbidden(format!(
            "only {OPERATE} lists other orgs' tokens"
        )));
    }
    let names: std::collections::HashMap<String, String> = (store.orgs().await?.into_iter())
        .map(|o| (o.id, o.name))
        .collect();
    let now = now_ms();
    Ok((store.tokens(org_id.as_deref()).await?.iter())
        .map(|t| shown(t, names.get(&t.org_id).map_or("(deleted org)", |n| n), now))
        .collect())
}

/// A token as lists and answers show it: never the secret (which is not kept).
pub fn shown(token: &ApiToken, org: &str, now: i64) -> Value {
    json!({
        "id": token.id, "org": org, "roles": token.roles, "state": token.state(now),
        "created_at": token.created_at, "expires_at": token.expires_at,
        "revoked_at": token.revoked_at,
    })
}

/// Revokes token `id` (in the actor's own org unless it holds `gateway:operate`): every
/// replica refuses it from its next request, as each looks tokens up in the store.
pub async fn revoke_token(
    store: &dyn Store,
    actor: Actor<'_>,
    id: &str,
) -> Result<(ApiToken, AuditEntry), ApiError> {
    let not_found = || {
        ApiError::NotFound(format!(
            "no token {id:?}; `switchboard token list` shows the ids"
        ))
    };
    actor.require_tokens(true)?;
    let token = store.token(id).await?.ok_or_else(not_found)?;
    if let Some(own) = actor.token
        && own.org_id != token.org_id
        && !actor.holds(OPERATE)
    {
        return Err(not_found());
    }
    if token.revoked_at.is_some() {
        return Err(ApiError::Conflict(format!("token {id} is already revoked")));
    }
    let now = store.revoke_token(id).await?.ok_or_else(not_found)?;
    let audit = actor.audit("token.revoke", &now.org_id, format!("token={}", now.id));
    Ok((now, audit))
}

/// Why a presented API token is refused, or the live token: unknown, revoked or expired.
pub async fn live_token(store: &dyn Store, secret: &str) -> Result<ApiToken, ApiError> {
    let token = store.token_by_hash(&hash_api_token(secret)).await?;
    let refused = |why: &str| ApiError::Unauthenticated(why.to_string());
    match token {
        None => Err(refused(UNKNOWN_API_TOKEN)),
        Some(t) if t.revoked_at.is_some() => Err(refused(
            "this API token was revoked: ask for a new one (switchboard token create)",
        )),
        Some(t) if t.state(now_ms()) == "expired" => Err(refused(
            "this API token has expired: ask for a new one (switchboard token create --expires …)",
        )),
        Some(t) => Ok(t),
    }
}
