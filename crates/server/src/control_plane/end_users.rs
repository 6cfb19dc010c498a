//! End users' credentials for per-end-user servers, as the REST API and the CLI manage them:
//! which server a name means for an org, setting and revoking a user's secret (audited, told
//! to every replica), and listing what a user granted.

use super::{ApiError, ControlPlane};
use switchboard_core::{GrantKey, Owner, Surface};
use switchboard_registry::Registry;
use switchboard_store::{AuditEntry, Change, ChangeKind, GrantRow, now_ms};

/// Who made a change to a grant, for its audit row.
pub(crate) struct GrantActor<'a> {
    pub(crate) org_id: &'a str,
    pub(crate) token_id: &'a str,
}

impl ControlPlane {
    /// The per-end-user server `server` means for `org_id`: the org's own, else the
    /// operator's; `NotFound` or `Invalid` naming the fix.
    pub(crate) fn per_end_user_server(
        &self,
        org_id: &str,
        server: &str,
    ) -> Result<(Registry, Owner), ApiError> {
        let org = self.org_registry(org_id);
        let (registry, owner) = match org.server(server) {
            Some(_) => (org, Owner::Org(org_id.to_string())),
            None if self.registry.server(server).is_some() => {
                (self.registry.clone(), Owner::Operator)
            }
            None => {
                return Err(ApiError::NotFound(format!(
                    "no server named {server:?}: GET /api/integrations/mcp/servers lists them"
                )));
            }
        };
        if registry
            .server(server)
            .is_some_and(|s| s.credentials.is_none())
        {
            return Err(ApiError::Invalid(format!(
                "server {server} uses one credential for every caller: only a server with credentials = \"per_end_user\" keeps one per end user"
            )));
        }
        Ok((registry, owner))
    }

    /// Where `org_id`'s `end_user`'s grant for the per-end-user server `server` is kept, and
    /// the registry serving that server.
    fn grant_key(
        &self,
        org_id: &str,
        end_user: &str,
        server: &str,
    ) -> Result<(Registry, GrantKey), ApiError> {
        let (registry, owner) = self.per_end_user_server(org_id, server)?;
        let key = GrantKey {
            org: org_id.to_string(),
            owner: owner.key(),
            server: server.to_string(),
            end_user: end_user.to_string(),
        };
        Ok((registry, key))
    }

    /// Sets `end_user`'s secret for `server` (replacing theirs); the row it is listed as.
    pub(crate) async fn set_end_user_secret(
        &self,
        actor: GrantActor<'_>,
        end_user: &str,
        server: &str,
        secret: &str,
    ) -> Result<GrantRow, ApiError> {
        check_end_user(end_user)?;
        check_secret(secret)?;
        let (registry, key) = self.grant_key(actor.org_id, end_user, server)?;
        self.store_end_user_secret(actor, &registry, &key, secret)
            .await
    }

    /// Stores `secret` as the grant `key` names, of a server of `registry`: audited, and
    /// told to every registry here and to the other replicas.
    pub(crate) async fn store_end_user_secret(
        &self,
        actor: GrantActor<'_>,
        registry: &Registry,
        key: &GrantKey,
        secret: &str,
    ) -> Result<GrantRow, ApiError> {
        let row = (self.grants.set_secret(key, secret).await).map_err(ApiError::Internal)?;
        self.audit_grant(&actor, "end_user.grant", &row);
        self.grant_changed(&row.key, Some(registry)).await;
        Ok(row)
    }

    /// Revokes `end_user`'s grant for `server`: the row it was, or `NotFound`.
    pub(crate) async fn revoke_end_user_grant(
        &self,
        actor: GrantActor<'_>,
        end_user: &str,
        server: &str,
    ) -> Result<GrantRow, ApiError> {
        let (_, key) = self.grant_key(actor.org_id, end_user, server)?;
        let gone = (self.grants.revoke(&key.store_key()).await).map_err(ApiError::Internal)?;
        let Some(row) = gone else {
            return Err(ApiError::NotFound(format!(
                "end user {end_user:?} has no grant for server {server}"
            )));
        };
        self.audit_grant(&actor, "end_user.revoke", &row);
        self.grant_changed(&row.key, None).await;
        Ok(row)
    }

    /// A grant changed here: every registry reads it again, a server waiting for its first
    /// grant starts (`granted`), and the other replicas are told.
    pub(crate) async fn grant_changed(&self, store_key: &str, granted: Option<&Registry>) {
        self.grant_changed_here(store_key);
        if let (Some(registry), Some(key)) = (granted, GrantKey::parse(store_key)) {
            registry.end_user_granted(&key.server).await;
        }
        let change = Change {
            org_id: String::new(),
            server_id: store_key.to_string(),
            replica: self.replica.to_string(),
            kind: ChangeKind::Grant,
        };
        if let Err(e) = self.store.publish_change(&change).await {
            tracing::warn!("cannot tell the other replicas of a grant change: {e}");
        }
    }

    /// Another replica (or the CLI) changed the grant stored as `store_key`.
    pub(crate) async fn follow_grant(&self, store_key: &str) {
        self.grant_changed_here(store_key);
        let Some(key) = GrantKey::parse(store_key) else {
            return;
        };
        let registry = self.registry_of(&key.owner);
        registry.end_user_granted(&key.server).await;
    }

    /// The registry serving the servers of `owner` (`operator` or `org:<id>`).
    pub(crate) fn registry_of(&self, owner: &str) -> Registry {
        match owner.strip_prefix("org:") {
            Some(org_id) => self.org_registry(org_id),
            None => self.registry.clone(),
        }
    }

    /// Every registry of this replica hears that the grant `store_key` changed.
    fn grant_changed_here(&self, store_key: &str) {
        self.registry.end_user_grant_changed(store_key);
        for registry in self.orgs.all() {
            registry.end_user_grant_changed(store_key);
        }
    }

    fn audit_grant(&self, actor: &GrantActor<'_>, action: &str, row: &GrantRow) {
        let entry = grant_audit_entry(row, action, Surface::Rest, Some(actor.token_id));
        self.audit.record_now(entry);
    }
}

/// The audit row of a change to an end user's grant (`end_user.grant`, `end_user.revoke`)
/// made on `surface` by `token_id`.
pub fn grant_audit_entry(
    row: &GrantRow,
    action: &str,
    surface: Surface,
    token_id: Option<&str>,
) -> AuditEntry {
    AuditEntry {
        at: now_ms(),
        org_id: Some(row.org_id.clone()).filter(|o| o != "operator"),
        token_id: token_id.map(String::from),
        end_user_id: Some(row.end_user.clone()),
        server: Some(row.server.clone()),
        action_id: action.into(),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        detail: Some(format!(
            "{} grant={} kind={}",
            surface.detail(),
            row.id,
            row.kind
        )),
        ..Default::default()
    }
}

/// A secret as it may be stored: 1-8192 characters on one line.
pub(crate) fn check_secret(secret: &str) -> Result<(), ApiError> {
    match secret.trim().is_empty() || secret.len() > 8192 || secret.contains(['\r', '\n']) {
        true => Err(ApiError::Invalid(
            "the secret must be 1-8192 characters on one line".into(),
        )),
        false => Ok(()),
    }
}

/// An end user id as routes name it: 1-256 characters, none a control character.
pub(crate) fn check_end_user(end_user: &str) -> Result<(), ApiError> {
    match !end_user.is_empty() && end_user.len() <= 256 && !end_user.chars().any(char::is_control) {
        true => Ok(()),
        false => Err(ApiError::Invalid(
            "end user ids are 1-256 characters without control characters".into(),
        )),
    }
}
