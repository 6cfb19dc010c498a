//! Consent links: a single-use record, alive at most ten minutes, that lets the one end user a
//! call was made for grant a per-end-user server their credential on the gateway's own page
//! (`admin::consent`). The link carries only a random id; the store keeps its hash.

use super::end_users::{GrantActor, check_secret};
use super::grants::StoredGrants;
use super::people::Person;
use super::{ApiError, ControlPlane};
use serde::{Deserialize, Serialize};
use switchboard_core::{ConsentLink, GrantKey};
use switchboard_store::{hash_api_token, now_ms};

/// How long a consent link works.
pub(crate) const LIFETIME_MS: i64 = 10 * 60 * 1000;

/// What a consent link was made for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Consent {
    /// The grant's store key ([`GrantKey::store_key`]).
    pub(crate) key: String,
    pub(crate) org_id: String,
    pub(crate) server: String,
    pub(crate) end_user: String,
    /// When it was made (ms since the epoch).
    pub(crate) at: i64,
    /// The issuer of the token whose call made it: where the person signs in, when it offers
    /// sign-in (else the first that does).
    #[serde(default)]
    pub(crate) issuer: Option<String>,
}

/// Why a consent link cannot be used.
#[derive(Debug)]
pub(crate) enum ConsentError {
    /// Unknown, expired or used.
    Gone,
    Store(String),
}

pub(crate) fn record_key(id: &str) -> String {
    format!("consent/{}", hash_api_token(id))
}

impl StoredGrants {
    /// A new consent link for the grant `key` names, on `{public_url}/consent/{id}`; `None`
    /// where nobody could open it (no sign-in, or the operator's own callers, who belong to
    /// no org a person signs in to).
    pub(crate) async fn new_consent(
        &self,
        key: &GrantKey,
        issuer: Option<&str>,
    ) -> Result<Option<ConsentLink>, String> {
        let Some(base) = self.consent_base() else {
            return Ok(None);
        };
        if key.org == "operator" {
            return Ok(None);
        }
        let id = switchboard_identity::sign_in::secret();
        let consent = Consent {
            key: key.store_key(),
            org_id: key.org.clone(),
            server: key.server.clone(),
            end_user: key.end_user.clone(),
            at: now_ms(),
            issuer: issuer.map(String::from),
        };
        let json = serde_json::to_string(&consent).map_err(|e| e.to_string())?;
        (self.store().save_session(&record_key(&id), &json).await).map_err(|e| e.to_string())?;
        Ok(Some(ConsentLink {
            url: format!("{base}/consent/{id}"),
            id,
            expires_in_ms: LIFETIME_MS as u64,
        }))
    }
}

impl StoredGrants {
    /// The consent `id` names, while it works.
    pub(crate) async fn live_consent(&self, id: &str) -> Result<Option<Consent>, String> {
        let found =
            (self.store().load_session(&record_key(id)).await).map_err(|e| e.to_string())?;
        let consent = found.and_then(|json| serde_json::from_str::<Consent>(&json).ok());
        Ok(consent.filter(|c| now_ms() - c.at <= LIFETIME_MS))
    }
}

impl ControlPlane {
    /// A per-end-user OAuth server needs consent links (a public URL, and an issuer people
    /// sign in through): without them nobody could ever authorize it.
    pub(crate) fn check_end_user_oauth(
        &self,
        auth: &switchboard_api_types::UpstreamAuth,
    ) -> Result<(), ApiError> {
        let oauth = (auth.end_users.as_ref()).is_some_and(|e| e.oauth);
        if oauth && self.grants.consent_base().is_none() {
            return Err(ApiError::Invalid(
                "credentials.per_end_user with authorizationCode has each end user authorize the server in their browser, after signing in with the org's provider, and this gateway offers no sign-in: its operator sets [gateway] public_url and sign_in on an [[identity.issuers]] entry; until then use bearer or apiKey".into(),
            ));
        }
        Ok(())
    }

    /// The live consent `id` names.
    pub(crate) async fn consent(&self, id: &str) -> Result<Consent, ConsentError> {
        match self.grants.live_consent(id).await {
            Ok(Some(consent)) => Ok(consent),
            Ok(None) => Err(ConsentError::Gone),
            Err(e) => Err(ConsentError::Store(e)),
        }
    }

    /// `person`'s `secret` for the consent `id` (already checked to be theirs): the grant
    /// stored, audited under the person and told to every replica (the call that waits for it
    /// resumes), then the link used up.
    pub(crate) async fn grant_by_consent(
        &self,
        id: &str,
        consent: &Consent,
        person: &Person,
        secret: &str,
    ) -> Result<(), ApiError> {
        // A pasted key's surrounding blanks are not part of it.
        let secret = secret.trim();
        check_secret(secret)?;
        let key = GrantKey::parse(&consent.key)
            .ok_or_else(|| ApiError::Internal(format!("a damaged consent: {}", consent.key)))?;
        let registry = self.registry_of(&key.owner);
        let server = registry.server(&key.server);
        if server.is_none_or(|s| s.credentials.is_none()) {
            return Err(ApiError::Invalid(format!(
                "{} was removed or changed since this link was made: ask your agent again",
                key.server
            )));
        }
        let token_id = format!("person:{}", person.principal);
        let actor = GrantActor {
            org_id: &consent.org_id,
            token_id: &token_id,
        };
        self.store_end_user_secret(actor, &registry, &key, secret)
            .await?;
        // Used up only once the grant is stored: a caller waiting on another replica that
        // reads the link meanwhile still finds the grant it names.
        self.store.delete_session(&record_key(id)).await?;
        Ok(())
    }
}
