//! OAuth tokens in the operating system's keychain (macOS Keychain, Windows Credential
//! Manager, the Linux kernel keyring), one entry per server, behind the `keychain` feature.

use super::{TokenRecord, TokenStore};

/// Entries are named `service` / token key (`config:<server>`, `api:<row id>`).
pub struct KeychainTokens {
    service: String,
}

impl KeychainTokens {
    pub fn new(service: impl Into<String>) -> Self {
        Self {
            service: service.into(),
        }
    }

    fn entry(&self, key: &str) -> Result<keyring::Entry, String> {
        keyring::Entry::new(&self.service, key).map_err(|e| format!("keychain: {e}"))
    }
}

/// Runs one blocking keychain operation off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| e.to_string())?
}

#[async_trait::async_trait]
impl TokenStore for KeychainTokens {
    async fn load(&self, key: &str) -> Result<Option<TokenRecord>, String> {
        let entry = self.entry(key)?;
        let key = key.to_string();
        blocking(move || match entry.get_password() {
            Ok(json) => serde_json::from_str(&json)
                .map(Some)
                .map_err(|e| format!("the keychain entry of {key} is damaged: {e}")),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(format!("keychain: {e}")),
        })
        .await
    }

    async fn save(&self, key: &str, record: &TokenRecord) -> Result<(), String> {
        let entry = self.entry(key)?;
        let json = serde_json::to_string(record).map_err(|e| e.to_string())?;
        blocking(move || {
            entry
                .set_password(&json)
                .map_err(|e| format!("keychain: {e}"))
        })
        .await
    }

    async fn delete(&self, key: &str) -> Result<(), String> {
        let entry = self.entry(key)?;
        blocking(move || match entry.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(format!("keychain: {e}")),
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn records_are_kept_replaced_and_deleted_in_the_keychain() {
        let store = KeychainTokens::new(format!("switchboard-test-{}", std::process::id()));
        assert!(store.load("config:kc").await.unwrap().is_none());
        let mut record = TokenRecord {
            wanted_scopes: vec!["read".into()],
            ..TokenRecord::default()
        };
        store.save("config:kc", &record).await.unwrap();
        record.wanted_scopes = vec!["write".into()];
        store.save("config:kc", &record).await.unwrap();
        let loaded = store.load("config:kc").await.unwrap().unwrap();
        assert_eq!(loaded.wanted_scopes, ["write"]);
        store.delete("config:kc").await.unwrap();
        assert!(store.load("config:kc").await.unwrap().is_none());
    }
}
