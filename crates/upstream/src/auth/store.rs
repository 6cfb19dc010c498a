//! Where OAuth tokens live between restarts: one record per server, behind a small trait
//! (the gateway's store seals them; a 0600 JSON file; memory for tests).

use rmcp::transport::auth::{
    AuthError, AuthorizationMetadata, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use switchboard_sync::Mutex;

/// What is kept for one server.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct TokenRecord {
    /// The tokens, when they were received, the scopes granted and the issuer.
    pub credentials: Option<StoredCredentials>,
    /// A client registered dynamically for this server, kept so tokens can be refreshed after
    /// a restart and the registration is not repeated.
    pub client: Option<RegisteredClient>,
    /// Scopes a call was refused for (`insufficient_scope`): the next authorization asks
    /// for them too.
    #[serde(default)]
    pub wanted_scopes: Vec<String>,
    /// A hash of the tokens the configuration gave, so new ones given there replace the
    /// refreshed ones kept here (and unchanged ones do not).
    #[serde(default)]
    pub seed: Option<String>,
    /// The server URL the tokens were obtained for: a server pointed elsewhere gets none.
    #[serde(default)]
    pub url: Option<String>,
    /// The authorization server's metadata, found once (when the tokens were obtained or
    /// first refreshed) instead of discovered again at every connect.
    #[serde(default)]
    pub authorization_server: Option<AuthorizationMetadata>,
}

impl std::fmt::Debug for TokenRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenRecord")
            .field("credentials", &self.credentials)
            .field("client", &self.client.as_ref().map(|c| &c.id))
            .field("wanted_scopes", &self.wanted_scopes)
            .finish()
    }
}

/// A client registration (RFC 7591) made for one server.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RegisteredClient {
    pub id: String,
    pub secret: Option<String>,
    /// The redirect URI it was registered with (a new one needs a new registration).
    pub redirect_uri: String,
    /// The authorization server it belongs to.
    pub issuer: Option<String>,
}

/// Keeps token records by key (`config:<server>` or `api:<row id>`).
#[async_trait::async_trait]
pub trait TokenStore: Send + Sync + 'static {
    async fn load(&self, key: &str) -> Result<Option<TokenRecord>, String>;
    async fn save(&self, key: &str, record: &TokenRecord) -> Result<(), String>;
    async fn delete(&self, key: &str) -> Result<(), String>;

    /// Held while `key`'s tokens are refreshed, so replicas sharing the store take turns (a
    /// refresh token that rotates works once). `None`: nothing beyond this process to wait for.
    async fn refresh_lock(&self, _key: &str) -> Result<Option<Box<dyn Send>>, String> {
        Ok(None)
    }
    /// Keeps a flow in progress (`flow:<state>`, JSON) so another replica can finish it;
    /// `false` from stores that cannot share it (the replica that began a flow finishes it).
    async fn save_flow(&self, _key: &str, _flow: &str) -> Result<bool, String> {
        Ok(false)
    }
    /// Returns a kept flow and forgets it (at most one caller gets it).
    async fn take_flow(&self, _key: &str) -> Result<Option<String>, String> {
        Ok(None)
    }
}

/// Tokens in memory only: lost at exit (tests, one-shot commands).
#[derive(Default)]
pub struct MemoryTokens(Mutex<HashMap<String, TokenRecord>>);

#[async_trait::async_trait]
impl TokenStore for MemoryTokens {
    async fn load(&self, key: &str) -> Result<Option<TokenRecord>, String> {
        Ok(self.0.lock().get(key).cloned())
    }
    async fn save(&self, key: &str, record: &TokenRecord) -> Result<(), String> {
        self.0.lock().insert(key.to_string(), record.clone());
        Ok(())
    }
    async fn delete(&self, key: &str) -> Result<(), String> {
        self.0.lock().remove(key);
        Ok(())
    }
}

/// Tokens in one JSON file readable by its owner only (mode 0600), rewritten atomically.
pub struct FileTokens {
    path: PathBuf,
    write: tokio::sync::Mutex<()>,
}

impl FileTokens {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            write: tokio::sync::Mutex::new(()),
        }
    }

    async fn read_all(&self) -> Result<BTreeMap<String, TokenRecord>, String> {
        match tokio::fs::read(&self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("{} is not a token file: {e}", self.path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(format!("cannot read {}: {e}", self.path.display())),
        }
    }

    async fn write_all(&self, all: &BTreeMap<String, TokenRecord>) -> Result<(), String> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let bytes = serde_json::to_vec_pretty(all).map_err(|e| e.to_string())?;
        // One temporary name per process: `serve` and `auth login` may write at once.
        let tmp = self
            .path
            .with_extension(format!("tmp.{}", std::process::id()));
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&tmp)?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            std::fs::rename(&tmp, &path)
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

#[async_trait::async_trait]
impl TokenStore for FileTokens {
    async fn load(&self, key: &str) -> Result<Option<TokenRecord>, String> {
        Ok(self.read_all().await?.remove(key))
    }
    async fn save(&self, key: &str, record: &TokenRecord) -> Result<(), String> {
        let _one_writer = self.write.lock().await;
        let mut all = self.read_all().await?;
        all.insert(key.to_string(), record.clone());
        self.write_all(&all).await
    }
    async fn delete(&self, key: &str) -> Result<(), String> {
        let _one_writer = self.write.lock().await;
        let mut all = self.read_all().await?;
        if all.remove(key).is_some() {
            self.write_all(&all).await?;
        }
        Ok(())
    }
}

/// How long a record read from the store serves calls before it is read again (a refresh,
/// a new connection or a write reads it at once).
const CACHE_FOR: std::time::Duration = std::time::Duration::from_secs(30);

/// Records by key, with when they were read.
pub(crate) type RecordCache = Arc<Mutex<HashMap<String, (Arc<TokenRecord>, std::time::Instant)>>>;

/// One server's record seen as rmcp's credential store; refreshes of one key take turns.
#[derive(Clone)]
pub(crate) struct KeyedCredentials {
    pub store: Arc<dyn TokenStore>,
    pub key: String,
    /// The server's URL now; records kept for another URL count as empty.
    pub url: String,
    pub refreshing: Arc<tokio::sync::Mutex<()>>,
    pub cache: RecordCache,
    /// Stamps when tokens arrived (wall time), for their expiry.
    pub clock: switchboard_core::SharedClock,
}

tokio::task_local! {
    /// The key whose refresh guard this task holds (a renewal): rmcp's own acquisition of it
    /// inside is then a no-op instead of a wait on itself.
    static GUARD_HELD: String;
}

fn store_error(e: String) -> AuthError {
    AuthError::CredentialStoreError(e)
}

impl KeyedCredentials {
    /// Reads the store again on the next use.
    pub(crate) fn forget_cached(&self) {
        self.cache.lock().remove(&self.key);
    }

    fn cached(&self) -> Option<Arc<TokenRecord>> {
        let cache = self.cache.lock();
        let (record, read_at) = cache.get(&self.key)?;
        (read_at.elapsed() < CACHE_FOR).then(|| record.clone())
    }

    /// Caches what was just written.
    fn remember(&self, record: &TokenRecord) {
        self.cache.lock().insert(
            self.key.clone(),
            (Arc::new(record.clone()), std::time::Instant::now()),
        );
    }

    /// Caches what was read, unless a write landed meanwhile (it is newer than this read).
    fn remember_read(&self, record: &Arc<TokenRecord>) {
        let mut cache = self.cache.lock();
        let fresh = cache
            .get(&self.key)
            .is_some_and(|(_, at)| at.elapsed() < CACHE_FOR);
        if !fresh {
            cache.insert(
                self.key.clone(),
                (record.clone(), std::time::Instant::now()),
            );
        }
    }

    async fn load_fresh(&self) -> Result<TokenRecord, AuthError> {
        Ok(self
            .store
            .load(&self.key)
            .await
            .map_err(store_error)?
            .unwrap_or_default())
    }

    pub(crate) async fn record(&self) -> Result<TokenRecord, AuthError> {
        Ok(self.shared_record().await?.as_ref().clone())
    }

    /// The record as cached (shared, not copied: every request reads it).
    pub(crate) async fn shared_record(&self) -> Result<Arc<TokenRecord>, AuthError> {
        let record = match self.cached() {
            Some(record) => record,
            None => {
                let record = Arc::new(self.load_fresh().await?);
                self.remember_read(&record);
                record
            }
        };
        Ok(match self.for_this_url(&record) {
            true => record,
            false => Arc::default(),
        })
    }

    /// Whether `record` belongs to this URL (one kept for another counts as empty).
    fn for_this_url(&self, record: &TokenRecord) -> bool {
        match &record.url {
            Some(url) if *url != self.url => {
                tracing::warn!(key = %self.key, "the server's URL changed; its kept tokens are not sent to the new one");
                false
            }
            _ => true,
        }
    }

    /// Changes the record: read from the store (never the cache: writing back an old copy
    /// would undo a refresh made meanwhile), changed, written. rmcp calls it (through `save`)
    /// inside or outside its refresh guard; our own writers use [`Self::update_guarded`].
    pub(crate) async fn update(
        &self,
        change: impl FnOnce(&mut TokenRecord),
    ) -> Result<(), AuthError> {
        let fresh = self.load_fresh().await?;
        let mut record = match self.for_this_url(&fresh) {
            true => fresh,
            false => TokenRecord::default(),
        };
        change(&mut record);
        record.url = Some(self.url.clone());
        let result = self
            .store
            .save(&self.key, &record)
            .await
            .map_err(store_error);
        match &result {
            Ok(()) => self.remember(&record),
            Err(_) => self.forget_cached(),
        }
        result
    }
}

impl KeyedCredentials {
    /// Runs `work` holding this key's refresh guard (here and on every replica), so a
    /// renewal that finds the token already renewed by someone else uses it instead of
    /// refreshing again: one refresh per expiry, across replicas.
    pub(crate) async fn while_guarded<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, AuthError>>,
    ) -> Result<T, AuthError> {
        let _guard = self.acquire_refresh_guard().await?;
        GUARD_HELD.scope(self.key.clone(), work).await
    }

    /// [`Self::update`] while holding the refresh guard, so no refresh (here or on another
    /// replica) writes between the read and the write. Never call it inside the guard.
    pub(crate) async fn update_guarded(
        &self,
        change: impl FnOnce(&mut TokenRecord),
    ) -> Result<(), AuthError> {
        let _guard = self.acquire_refresh_guard().await?;
        self.update(change).await
    }
}

#[async_trait::async_trait]
impl CredentialStore for KeyedCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.shared_record().await?.credentials.clone())
    }
    /// rmcp saves tokens as they arrive; their arrival is stamped by the gateway's clock.
    async fn save(&self, mut credentials: StoredCredentials) -> Result<(), AuthError> {
        if credentials.token_received_at.is_some() {
            credentials.token_received_at = Some(self.clock.wall_secs());
        }
        self.update(|r| {
            r.credentials = Some(credentials);
            r.wanted_scopes.clear();
        })
        .await
    }
    async fn clear(&self) -> Result<(), AuthError> {
        self.update(|r| r.credentials = None).await
    }
    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        if GUARD_HELD
            .try_with(|held| *held == self.key)
            .unwrap_or(false)
        {
            self.forget_cached();
            return Ok(None);
        }
        // This process's tasks first, then the other replicas (rmcp reads the tokens again
        // once it holds the guard, so the one that waited uses the refreshed tokens).
        let here = self.refreshing.clone().lock_owned().await;
        let everywhere = self
            .store
            .refresh_lock(&self.key)
            .await
            .map_err(store_error)?;
        // What rmcp reads next must be the store's latest (maybe refreshed meanwhile).
        self.forget_cached();
        Ok(Some(CredentialRefreshGuard::new((here, everywhere))))
    }
}
