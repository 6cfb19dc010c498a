//! End users' credentials for per-end-user servers, kept sealed in the store: set, listed and
//! revoked per person, read by the call path through a short cache that change notices (and
//! five seconds, for a CLI writing beside `serve` on SQLite) make forget.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use switchboard_core::{EndUserGrants, Grant, GrantKey, GuardFuture, Owner};
use switchboard_store::{GrantRow, Sealer, Store, now_ms};
use switchboard_sync::Mutex;

/// The sealed record's field name (associated data), shared with the OAuth tokens so a key
/// rotation reseals grants too.
const FIELD: &str = "oauth_tokens";
/// The kind of a grant whose tokens an end user's authorization got (OAuth).
pub(crate) const OAUTH: &str = "oauth";
/// How long a grant read from the store answers calls without reading it again.
const FRESH: Duration = Duration::from_secs(5);
/// Grants held at most (past it, the stale ones are dropped).
const MAX_CACHED: usize = 10_000;
/// How often a grant's `last_used_at` is written while it is used.
const TOUCH_EVERY: Duration = Duration::from_secs(60);

#[derive(serde::Serialize, serde::Deserialize)]
struct Sealed {
    secret: String,
}

struct Cached {
    grant: Option<Arc<Grant>>,
    read: Instant,
    touched: Option<Instant>,
}

/// Grants kept sealed in the gateway's store.
#[derive(Clone)]
pub struct StoredGrants {
    store: Arc<dyn Store>,
    sealer: Arc<Sealer>,
    cache: Arc<Mutex<HashMap<String, Cached>>>,
    /// Moved on by every forget: a read that began before one is not kept.
    generation: Arc<std::sync::atomic::AtomicU64>,
    /// The public URL consent links are made on, once people can sign in there.
    consent_base: Arc<std::sync::OnceLock<String>>,
    /// Where a grant its upstream refused is reported (the audit, the other replicas).
    reporter: Arc<std::sync::OnceLock<Reporter>>,
}

#[derive(Clone)]
struct Reporter {
    audit: switchboard_store::AuditWriter,
    replica: Arc<str>,
}

impl StoredGrants {
    pub fn new(store: Arc<dyn Store>, sealer: Arc<Sealer>) -> Self {
        Self {
            store,
            sealer,
            cache: Default::default(),
            generation: Default::default(),
            consent_base: Default::default(),
            reporter: Default::default(),
        }
    }

    /// Consent links are made on `public_url` (people sign in there).
    pub(crate) fn offer_consent_at(&self, public_url: &str) {
        let _ = (self.consent_base).set(public_url.trim_end_matches('/').to_string());
    }

    /// A grant its upstream refused is audited to `audit` and told to the other replicas as
    /// `replica`'s change.
    pub(crate) fn report_to(&self, audit: switchboard_store::AuditWriter, replica: Arc<str>) {
        let _ = (self.reporter).set(Reporter { audit, replica });
    }

    pub(crate) fn consent_base(&self) -> Option<&str> {
        self.consent_base.get().map(String::as_str)
    }

    pub(crate) fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Saves `end_user`'s `secret` for the server `key` names (replacing theirs): the row
    /// it is listed as.
    pub async fn set_secret(&self, key: &GrantKey, secret: &str) -> Result<GrantRow, String> {
        let store_key = key.store_key();
        let row = GrantRow {
            key: store_key.clone(),
            id: switchboard_store::new_id("grant"),
            org_id: key.org.clone(),
            owner: key.owner.clone(),
            server: key.server.clone(),
            end_user: key.end_user.clone(),
            kind: "api_key".into(),
            scopes: Vec::new(),
            issued_at: now_ms(),
            last_used_at: None,
            expires_at: None,
        };
        let plain = serde_json::to_string(&Sealed {
            secret: secret.to_string(),
        })
        .map_err(|e| e.to_string())?;
        let sealed = self.sealer.seal(&store_key, FIELD, &plain);
        (self.store.save_grant(&row, &sealed).await).map_err(|e| e.to_string())?;
        self.forget(Some(&store_key));
        Ok(row)
    }

    /// Removes the grant stored as `store_key`: the row it was, if any.
    pub async fn revoke(&self, store_key: &str) -> Result<Option<GrantRow>, String> {
        let gone = (self.store.delete_grant(store_key).await).map_err(|e| e.to_string())?;
        // An OAuth grant's tokens (refresh token included) go with it.
        if gone.as_ref().is_some_and(|row| row.kind == OAUTH) {
            (self.store.delete_oauth_tokens(store_key).await).map_err(|e| e.to_string())?;
        }
        self.forget(Some(store_key));
        Ok(gone)
    }

    fn open(&self, row: &GrantRow, sealed: &str) -> Result<Arc<Grant>, String> {
        // An OAuth grant's tokens are the upstream client's to read and refresh (kept under
        // the same key); the grant itself carries only its id.
        if row.kind == OAUTH {
            return Ok(Arc::new(Grant {
                id: row.id.clone(),
                secret: String::new(),
            }));
        }
        let plain = (self.sealer.open(&row.key, FIELD, sealed))
            .map_err(|e| format!("the stored grant {} cannot be opened: {e}", row.id))?;
        let Sealed { secret } = serde_json::from_str(&plain)
            .map_err(|e| format!("the stored grant {} is damaged: {e}", row.id))?;
        Ok(Arc::new(Grant {
            id: row.id.clone(),
            secret,
        }))
    }

    /// Writes that `store_key` was used now, off the call path.
    fn touch(&self, store_key: &str) {
        let (store, key) = (self.store.clone(), store_key.to_string());
        tokio::spawn(async move {
            if let Err(e) = store.touch_grant(&key, now_ms()).await {
                tracing::debug!("cannot note a grant's last use: {e}");
            }
        });
    }

    /// The cached grant `store_key` while fresh (`None`: read the store), and whether its
    /// use is due to be written (at most once a minute): one lock on the call path.
    fn cached(&self, store_key: &str) -> Option<(Option<Arc<Grant>>, bool)> {
        let mut cache = self.cache.lock();
        let entry = cache
            .get_mut(store_key)
            .filter(|c| c.read.elapsed() < FRESH)?;
        let due = entry.grant.is_some() && entry.touched.is_none_or(|t| t.elapsed() >= TOUCH_EVERY);
        if due {
            entry.touched = Some(Instant::now());
        }
        Some((entry.grant.clone(), due))
    }

    /// Reads `store_key` from the store and keeps it, unless a change came meanwhile.
    async fn read(&self, store_key: &str) -> Result<Option<Arc<Grant>>, String> {
        let began = self.generation.load(Ordering::SeqCst);
        let found = (self.store.grant(store_key).await).map_err(|e| e.to_string())?;
        let grant = match found {
            Some((row, sealed)) => Some(self.open(&row, &sealed)?),
            None => None,
        };
        let mut cache = self.cache.lock();
        // Changed while it was read: answer with it, but do not keep it.
        if self.generation.load(Ordering::SeqCst) != began {
            return Ok(grant);
        }
        if cache.len() >= MAX_CACHED {
            cache.retain(|_, c| c.read.elapsed() < FRESH);
        }
        let touched = cache.get(store_key).and_then(|c| c.touched);
        let entry = Cached {
            grant: grant.clone(),
            read: Instant::now(),
            touched,
        };
        cache.insert(store_key.to_string(), entry);
        Ok(grant)
    }
}

impl EndUserGrants for StoredGrants {
    fn grant<'a>(
        &'a self,
        store_key: &'a str,
    ) -> GuardFuture<'a, Result<Option<Arc<Grant>>, String>> {
        Box::pin(async move {
            if let Some((grant, due)) = self.cached(store_key) {
                if due {
                    self.touch(store_key);
                }
                return Ok(grant);
            }
            let grant = self.read(store_key).await?;
            if grant.is_some() {
                self.touch(store_key);
            }
            Ok(grant)
        })
    }

    fn any_for_server<'a>(
        &'a self,
        owner: &'a Owner,
        server: &'a str,
    ) -> GuardFuture<'a, Result<Option<switchboard_core::end_user::KeyedGrant>, String>> {
        Box::pin(async move {
            let org = match owner {
                Owner::Operator => "operator",
                Owner::Org(id) => id.as_str(),
            };
            let found = self.store.latest_grant(org, &owner.key(), server).await;
            match found.map_err(|e| e.to_string())? {
                Some((row, sealed)) => Ok(Some((row.key.clone(), self.open(&row, &sealed)?))),
                None => Ok(None),
            }
        })
    }

    fn ask_consent<'a>(
        &'a self,
        key: &'a GrantKey,
        issuer: Option<&'a str>,
    ) -> GuardFuture<'a, Result<Option<switchboard_core::ConsentLink>, String>> {
        Box::pin(self.new_consent(key, issuer))
    }

    fn consent_key<'a>(&'a self, id: &'a str) -> GuardFuture<'a, Result<Option<String>, String>> {
        Box::pin(async move { Ok(self.live_consent(id).await?.map(|c| c.key)) })
    }

    fn refused<'a>(
        &'a self,
        store_key: &'a str,
        grant_id: &'a str,
        why: &'a str,
    ) -> GuardFuture<'a, Result<(), String>> {
        Box::pin(async move {
            // A late refusal of an older grant leaves the one given since in place.
            let now = (self.store.grant(store_key).await).map_err(|e| e.to_string())?;
            if now.is_some_and(|(row, _)| row.id != grant_id) {
                return Ok(());
            }
            let Some(row) = self.revoke(store_key).await? else {
                return Ok(());
            };
            let Some(reporter) = self.reporter.get() else {
                return Ok(());
            };
            let surface = switchboard_core::Surface::Mcp;
            let mut entry =
                super::end_users::grant_audit_entry(&row, "end_user.grant_refused", surface, None);
            entry.outcome = "auth_unavailable".into();
            entry.detail = Some(format!("grant={} kind={}: {why}", row.id, row.kind));
            reporter.audit.record_now(entry);
            let change = switchboard_store::Change {
                org_id: String::new(),
                server_id: store_key.to_string(),
                replica: reporter.replica.to_string(),
                kind: switchboard_store::ChangeKind::Grant,
            };
            if let Err(e) = self.store.publish_change(&change).await {
                tracing::warn!("cannot tell the other replicas of a refused grant: {e}");
            }
            Ok(())
        })
    }

    fn forget(&self, store_key: Option<&str>) {
        let mut cache = self.cache.lock();
        self.generation.fetch_add(1, Ordering::SeqCst);
        match store_key {
            Some(key) => {
                cache.remove(key);
            }
            None => cache.clear(),
        }
    }
}
