//! The issuers each org configures over REST: kept sealed in the store (one document per
//! org), held here per org once read, and forgotten on every replica when a change notice
//! says the org's issuers changed, so a removed issuer or a new mapping holds within a second.

use super::ControlPlane;
use crate::control_plane::ApiError;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use switchboard_core::IssuerSpec;
use switchboard_identity::{Fetcher, Issuers};
use switchboard_store::{Change, ChangeKind};

/// The sealed record's field name (associated data) and key prefix in the store.
const FIELD: &str = "oauth_tokens";
const KEY_PREFIX: &str = "identity:org:";
/// What a stored secret reads as in answers; sent back unchanged, it keeps the stored one.
pub(crate) const SEALED: &str = "(sealed)";

/// Each org's issuers, read on first use.
#[derive(Clone)]
pub struct OrgIssuers {
    fetcher: Fetcher,
    by_org: Arc<switchboard_sync::Mutex<HashMap<String, Issuers>>>,
    /// Moved on by every forget: issuers read before one are not kept.
    generation: Arc<AtomicU64>,
}

impl OrgIssuers {
    /// Issuers whose metadata, keys and introspection go through `fetcher`'s egress guard.
    pub fn new(fetcher: Fetcher) -> Self {
        Self {
            fetcher,
            by_org: Default::default(),
            generation: Default::default(),
        }
    }

    /// Forgets `org_id`'s issuers (all orgs' when `None`): the next token reads them again.
    pub fn forget(&self, org_id: Option<&str>) {
        let mut by_org = self.by_org.lock();
        self.generation.fetch_add(1, Ordering::SeqCst);
        match org_id {
            Some(org_id) => {
                by_org.remove(org_id);
            }
            None => by_org.clear(),
        }
    }
}

fn key(org_id: &str) -> String {
    format!("{KEY_PREFIX}{org_id}")
}

impl ControlPlane {
    /// The issuers `org_id` configured, as stored (secrets open).
    pub(crate) async fn org_issuer_specs(&self, org_id: &str) -> Result<Vec<IssuerSpec>, ApiError> {
        let key = key(org_id);
        let Some(sealed) = self.store.load_oauth_tokens(&key).await? else {
            return Ok(Vec::new());
        };
        let plain = (self.sealer.open(&key, FIELD, &sealed))
            .map_err(|e| ApiError::Internal(format!("the org's issuers cannot be opened: {e}")))?;
        serde_json::from_str(&plain)
            .map_err(|e| ApiError::Internal(format!("the org's stored issuers: {e}")))
    }

    /// Replaces `org_id`'s issuers, and tells every replica.
    pub(crate) async fn save_org_issuer_specs(
        &self,
        org_id: &str,
        specs: &[IssuerSpec],
    ) -> Result<(), ApiError> {
        let key = key(org_id);
        if specs.is_empty() {
            self.store.delete_oauth_tokens(&key).await?;
        } else {
            let plain =
                serde_json::to_string(specs).map_err(|e| ApiError::Internal(e.to_string()))?;
            let sealed = self.sealer.seal(&key, FIELD, &plain);
            self.store.save_oauth_tokens(&key, &sealed).await?;
        }
        self.org_issuers.forget(Some(org_id));
        let change = Change {
            org_id: org_id.to_string(),
            server_id: String::new(),
            replica: self.replica.to_string(),
            kind: ChangeKind::Identity,
        };
        if let Err(e) = self.store.publish_change(&change).await {
            tracing::warn!("cannot tell the other replicas about the org's issuers: {e}");
        }
        Ok(())
    }

    /// `org_id`'s issuers, ready to check tokens (read once, until a change notice).
    pub(crate) async fn issuers_of_org(&self, org_id: &str) -> Result<Issuers, ApiError> {
        if let Some(known) = self.org_issuers.by_org.lock().get(org_id) {
            return Ok(known.clone());
        }
        let generation = self.org_issuers.generation.load(Ordering::SeqCst);
        let specs = self.org_issuer_specs(org_id).await?;
        let issuers = Issuers::new(specs, self.org_issuers.fetcher.clone())
            .map_err(|e| ApiError::Internal(format!("the org's stored issuers: {e}")))?;
        let mut by_org = self.org_issuers.by_org.lock();
        // A change heard while reading: use what was read once, keep nothing.
        if self.org_issuers.generation.load(Ordering::SeqCst) != generation {
            return Ok(issuers);
        }
        Ok(by_org.entry(org_id.to_string()).or_insert(issuers).clone())
    }
}
