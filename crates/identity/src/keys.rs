//! One issuer's signing keys: found by discovery (OIDC, then RFC 8414), fetched from its
//! JWKS, kept while the issuer is down, fetched again for an unknown `kid` at most once a
//! minute and refreshed in the background when they are an hour old.

use crate::fetch::Fetcher;
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_sync::{Mutex, RwLock};

/// How often an unknown `kid` may make the keys be fetched again.
pub(crate) const REFETCH_AT_MOST_EVERY: Duration = Duration::from_secs(60);
/// Keys this old are fetched again in the background (the old ones stay in use meanwhile).
const REFRESH_AFTER: Duration = Duration::from_secs(3600);

/// One published key.
pub(crate) struct Key {
    pub(crate) key: DecodingKey,
    /// The `alg` the JWK pins, if any.
    pub(crate) alg: Option<Algorithm>,
}

/// The keys of one fetch.
pub(crate) struct KeySet {
    by_kid: HashMap<String, Arc<Key>>,
    /// Keys without a `kid` (used only for tokens without one).
    unnamed: Vec<Arc<Key>>,
    fetched: Instant,
}

impl KeySet {
    /// The key for a token's `kid` (or, for a token without one, the issuer's only key).
    pub(crate) fn find(&self, kid: Option<&str>) -> Option<Arc<Key>> {
        match kid {
            Some(kid) => self.by_kid.get(kid).cloned(),
            None if self.by_kid.len() + self.unnamed.len() == 1 => self
                .unnamed
                .first()
                .or(self.by_kid.values().next())
                .cloned(),
            None => None,
        }
    }

    fn parse(set: JwkSet) -> Self {
        let mut keys = KeySet {
            by_kid: HashMap::new(),
            unnamed: Vec::new(),
            fetched: Instant::now(),
        };
        for jwk in set.keys {
            // Encryption keys and symmetric keys are never signature keys of access tokens.
            let usable = jwk.common.public_key_use
                != Some(jsonwebtoken::jwk::PublicKeyUse::Encryption)
                && !matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_));
            let Some(key) = usable.then(|| DecodingKey::from_jwk(&jwk).ok()).flatten() else {
                continue;
            };
            let alg = jwk
                .common
                .key_algorithm
                .and_then(|a| a.to_string().parse::<Algorithm>().ok());
            let key = Arc::new(Key { key, alg });
            match jwk.common.key_id {
                Some(kid) => {
                    keys.by_kid.insert(kid, key);
                }
                None => keys.unnamed.push(key),
            }
        }
        keys
    }

    pub(crate) fn len(&self) -> usize {
        self.by_kid.len() + self.unnamed.len()
    }
}

/// What discovery found.
#[derive(Debug, Clone)]
pub(crate) struct Metadata {
    pub(crate) jwks_uri: String,
    pub(crate) authorization_endpoint: Option<String>,
    pub(crate) token_endpoint: Option<String>,
    pub(crate) introspection_endpoint: Option<String>,
}

/// An issuer's keys and where they come from.
pub(crate) struct KeyCache {
    issuer: String,
    fetcher: Fetcher,
    metadata: RwLock<Option<Metadata>>,
    current: RwLock<Option<Arc<KeySet>>>,
    /// When keys were last asked for (success or not); one fetch at a time.
    last_attempt: tokio::sync::Mutex<Option<Instant>>,
    /// Why the last fetch failed, while it has not succeeded since.
    pub(crate) last_error: Mutex<Option<String>>,
}

impl KeyCache {
    pub(crate) fn new(issuer: String, fetcher: Fetcher) -> Self {
        Self {
            issuer,
            fetcher,
            metadata: RwLock::new(None),
            current: RwLock::new(None),
            last_attempt: tokio::sync::Mutex::new(None),
            last_error: Mutex::new(None),
        }
    }

    pub(crate) fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    /// The keys at hand, without fetching.
    pub(crate) fn current(&self) -> Option<Arc<KeySet>> {
        self.current.read().clone()
    }

    /// The key set holding `kid`: the one at hand, or (at most once a minute) a fresh one.
    /// `Err` says why there are no keys at all.
    pub(crate) async fn for_kid(
        self: &Arc<Self>,
        kid: Option<&str>,
    ) -> Result<Arc<KeySet>, String> {
        if let Some(keys) = self.current()
            && keys.find(kid).is_some()
        {
            if keys.fetched.elapsed() > REFRESH_AFTER {
                self.refresh_in_background();
            }
            return Ok(keys);
        }
        let mut last = self.last_attempt.lock().await;
        // Another request may have fetched them while this one waited.
        if let Some(keys) = self.current().filter(|k| k.find(kid).is_some()) {
            return Ok(keys);
        }
        if last.is_some_and(|at| at.elapsed() < REFETCH_AT_MOST_EVERY) {
            return self.current().ok_or_else(|| self.why_none());
        }
        *last = Some(Instant::now());
        self.fetch().await;
        self.current().ok_or_else(|| self.why_none())
    }

    fn why_none(&self) -> String {
        (self.last_error.lock().clone())
            .unwrap_or_else(|| format!("no signing keys fetched yet for {}", self.issuer))
    }

    fn refresh_in_background(self: &Arc<Self>) {
        let cache = self.clone();
        tokio::spawn(async move {
            let Ok(mut last) = cache.last_attempt.try_lock() else {
                return;
            };
            if last.is_some_and(|at| at.elapsed() < REFETCH_AT_MOST_EVERY) {
                return;
            }
            *last = Some(Instant::now());
            cache.fetch().await;
        });
    }

    /// Fetches discovery (once) and the keys; a failure keeps the keys at hand.
    pub(crate) async fn fetch(&self) {
        match self.fetch_keys().await {
            Ok(keys) => {
                tracing::debug!(issuer = %self.issuer, keys = keys.len(), "issuer keys fetched");
                *self.current.write() = Some(Arc::new(keys));
                *self.last_error.lock() = None;
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer, error = %e, "cannot fetch the issuer's keys; the last good ones stay in use");
                *self.last_error.lock() = Some(e);
            }
        }
    }

    /// The issuer's metadata, discovered once.
    pub(crate) async fn metadata(&self) -> Result<Metadata, String> {
        let known = self.metadata.read().clone();
        match known {
            Some(m) => Ok(m),
            None => {
                let found = discover(&self.fetcher, &self.issuer).await?;
                *self.metadata.write() = Some(found.clone());
                Ok(found)
            }
        }
    }

    async fn fetch_keys(&self) -> Result<KeySet, String> {
        let metadata = self.metadata().await?;
        let document = self.fetcher.json(&metadata.jwks_uri).await?;
        let set: JwkSet = serde_json::from_value(document)
            .map_err(|e| format!("{} is not a JWK set: {e}", metadata.jwks_uri))?;
        let keys = KeySet::parse(set);
        if keys.len() == 0 {
            return Err(format!(
                "{} holds no signature keys the gateway can use",
                metadata.jwks_uri
            ));
        }
        Ok(keys)
    }
}

/// The issuer's metadata: OpenID discovery, then RFC 8414; its `issuer` must equal the
/// configured one exactly.
pub(crate) async fn discover(fetcher: &Fetcher, issuer: &str) -> Result<Metadata, String> {
    let mut failures = Vec::new();
    for url in metadata_urls(issuer)? {
        let document = match fetcher.json(&url).await {
            Ok(d) => d,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let named = document.get("issuer").and_then(|v| v.as_str());
        if named != Some(issuer) {
            return Err(format!(
                "{url} names the issuer {named:?}, not {issuer:?}: configure the issuer exactly as the provider names it"
            ));
        }
        let Some(jwks_uri) = document.get("jwks_uri").and_then(|v| v.as_str()) else {
            return Err(format!("{url} names no jwks_uri"));
        };
        let endpoint = |name: &str| {
            document
                .get(name)
                .and_then(|v| v.as_str())
                .map(String::from)
        };
        return Ok(Metadata {
            jwks_uri: jwks_uri.to_string(),
            authorization_endpoint: endpoint("authorization_endpoint"),
            token_endpoint: endpoint("token_endpoint"),
            introspection_endpoint: endpoint("introspection_endpoint"),
        });
    }
    Err(failures.join("; "))
}

/// Where an issuer's metadata may be: `{issuer}/.well-known/openid-configuration`, then
/// `{origin}/.well-known/oauth-authorization-server{path}` (RFC 8414).
fn metadata_urls(issuer: &str) -> Result<Vec<String>, String> {
    let url = url::Url::parse(issuer).map_err(|e| format!("{issuer:?} is not a URL: {e}"))?;
    let path = url.path().trim_end_matches('/');
    let origin = url.origin().ascii_serialization();
    Ok(vec![
        format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        ),
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
    ])
}

#[cfg(test)]
mod tests {
    #[test]
    fn metadata_is_looked_for_where_both_specs_put_it() {
        let urls = super::metadata_urls("https://login.example.com/realms/acme").unwrap();
        assert_eq!(
            urls,
            [
                "https://login.example.com/realms/acme/.well-known/openid-configuration",
                "https://login.example.com/.well-known/oauth-authorization-server/realms/acme"
            ]
        );
    }
}
