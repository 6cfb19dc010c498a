//! OAuth tokens kept in the gateway's store, sealed (AES-256-GCM, the key as associated data),
//! so they survive restarts and every replica sees the same ones.

use std::sync::Arc;
use switchboard_store::{Sealer, Store};
use switchboard_upstream::auth::{TokenRecord, TokenStore};

const FIELD: &str = "oauth_tokens";

pub struct SealedTokens {
    pub store: Arc<dyn Store>,
    pub sealer: Arc<Sealer>,
}

impl SealedTokens {
    /// Seals again, with the newest key, every record sealed with an older one; how many.
    pub async fn reseal(&self) -> Result<usize, String> {
        let mut resealed = 0;
        for key in self
            .store
            .oauth_token_keys()
            .await
            .map_err(|e| e.to_string())?
        {
            let Some(sealed) = self
                .store
                .load_oauth_tokens(&key)
                .await
                .map_err(|e| e.to_string())?
            else {
                continue;
            };
            if !self.sealer.is_stale(&sealed) {
                continue;
            }
            let plain = self
                .sealer
                .open(&key, FIELD, &sealed)
                .map_err(|e| format!("the stored tokens of {key} cannot be opened: {e}"))?;
            let fresh = self.sealer.seal(&key, FIELD, &plain);
            self.store
                .save_oauth_tokens(&key, &fresh)
                .await
                .map_err(|e| e.to_string())?;
            resealed += 1;
        }
        Ok(resealed)
    }
}

#[async_trait::async_trait]
impl TokenStore for SealedTokens {
    async fn load(&self, key: &str) -> Result<Option<TokenRecord>, String> {
        let Some(sealed) = self
            .store
            .load_oauth_tokens(key)
            .await
            .map_err(|e| e.to_string())?
        else {
            return Ok(None);
        };
        let json = self
            .sealer
            .open(key, FIELD, &sealed)
            .map_err(|e| format!("the stored tokens of {key} cannot be opened: {e}"))?;
        serde_json::from_str(&json)
            .map(Some)
            .map_err(|e| format!("the stored tokens of {key} are damaged: {e}"))
    }

    async fn save(&self, key: &str, record: &TokenRecord) -> Result<(), String> {
        let json = serde_json::to_string(record).map_err(|e| e.to_string())?;
        let sealed = self.sealer.seal(key, FIELD, &json);
        self.store
            .save_oauth_tokens(key, &sealed)
            .await
            .map_err(|e| e.to_string())
    }

    async fn delete(&self, key: &str) -> Result<(), String> {
        self.store
            .delete_oauth_tokens(key)
            .await
            .map_err(|e| e.to_string())
    }

    async fn refresh_lock(&self, key: &str) -> Result<Option<Box<dyn Send>>, String> {
        self.store
            .lock(&format!("oauth-refresh:{key}"))
            .await
            .map_err(|e| e.to_string())
    }

    async fn save_flow(&self, key: &str, flow: &str) -> Result<bool, String> {
        let sealed = self.sealer.seal(key, FIELD, flow);
        self.store
            .save_oauth_tokens(key, &sealed)
            .await
            .map_err(|e| e.to_string())?;
        Ok(true)
    }

    async fn take_flow(&self, key: &str) -> Result<Option<String>, String> {
        let Some(sealed) = self
            .store
            .take_oauth_tokens(key)
            .await
            .map_err(|e| e.to_string())?
        else {
            return Ok(None);
        };
        self.sealer
            .open(key, FIELD, &sealed)
            .map(Some)
            .map_err(|e| format!("the stored flow {key} cannot be opened: {e}"))
    }
}
