//! Who calls the gateway with an OAuth 2.1 access token: the configured issuers, each token
//! checked with its own issuer's keys (found by discovery, fetched through the egress guard)
//! and its claims mapped onto org, roles, agent and end user. The gateway is a resource
//! server only: it issues no tokens and never passes one upstream.

mod claims;
mod error;
mod exchange;
mod fetch;
mod introspect;
mod keys;
pub mod sign_in;
mod verify;

pub use claims::{DEFAULT_ROLE, Verified};
pub use error::TokenError;
pub use exchange::Exchanges;
pub use fetch::Fetcher;
pub use verify::MAX_TOKEN_BYTES;

use jsonwebtoken::Algorithm;
use keys::KeyCache;
use std::collections::HashMap;
use std::sync::Arc;
use switchboard_core::IssuerSpec;
use verify::Issuer;

/// The issuers whose tokens are accepted, by their exact `iss`.
#[derive(Clone, Default)]
pub struct Issuers {
    /// Tokens already verified, until their `exp` (a client sends the same token on every
    /// request: one signature check per token, not per request), or, for an introspected
    /// one, until its answer may no longer be trusted.
    verified: Arc<switchboard_sync::Mutex<Remembered>>,
    pub(crate) by_iss: Arc<HashMap<String, Issuer>>,
    /// In configuration order, for metadata documents.
    pub(crate) order: Arc<Vec<String>>,
}

impl std::fmt::Debug for Issuers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.order.iter()).finish()
    }
}

impl Issuers {
    /// The issuers `specs` declare; `Err` names an algorithm that is unknown or not
    /// asymmetric.
    pub fn new(specs: Vec<IssuerSpec>, fetcher: Fetcher) -> Result<Self, String> {
        let mut by_iss = HashMap::new();
        let mut order = Vec::new();
        for spec in specs {
            let algorithms = algorithms(&spec)?;
            let keys = Arc::new(KeyCache::new(spec.issuer.clone(), fetcher.clone()));
            order.push(spec.issuer.clone());
            by_iss.insert(
                spec.issuer.clone(),
                Issuer {
                    spec: Arc::new(spec),
                    algorithms,
                    keys,
                },
            );
        }
        Ok(Self {
            verified: Default::default(),
            by_iss: Arc::new(by_iss),
            order: Arc::new(order),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The issuers' URLs, in configuration order (a PRM's `authorization_servers`).
    pub fn urls(&self) -> &[String] {
        &self.order
    }

    /// The scopes any issuer requires on `/mcp`, for a PRM's `scopes_supported`.
    pub fn mcp_scopes(&self) -> Vec<String> {
        let mut scopes: Vec<String> = (self.by_iss.values())
            .flat_map(|i| i.spec.scopes.mcp.iter().cloned())
            .collect();
        scopes.sort();
        scopes.dedup();
        scopes
    }

    /// Whether `token` looks like a JWT (three dot-separated parts), as opposed to an
    /// opaque secret.
    pub fn is_jwt(token: &str) -> bool {
        token.len() > 20 && token.bytes().filter(|b| *b == b'.').count() == 2
    }

    /// The token checked for the endpoint whose canonical resource URI is `resource`: a JWT's
    /// claimed issuer must be configured, and only that issuer's keys are used; an opaque
    /// token is asked about at the introspection endpoints of the issuers that have one.
    pub async fn verify(&self, token: &str, resource: &str) -> Result<Verified, TokenError> {
        let key = cache_key(token, resource);
        let now = jsonwebtoken::get_current_timestamp();
        if let Some((known, until)) = self.verified.lock().get(&key)
            && *until > now
        {
            return Ok(known.clone());
        }
        let (verified, until) = match Self::is_jwt(token) {
            true => {
                let iss = verify::claimed_issuer(token)?;
                let issuer = (self.by_iss.get(&iss)).ok_or(TokenError::UnknownIssuer(iss))?;
                let verified = issuer.verify(token, resource).await?;
                let until = verified.expires_at;
                (verified, until)
            }
            false => self.introspect(token, resource).await?,
        };
        let mut cache = self.verified.lock();
        if cache.len() >= VERIFIED_KEPT {
            cache.retain(|_, (_, until)| *until > now);
            if cache.len() >= VERIFIED_KEPT {
                cache.clear();
            }
        }
        if until > now {
            cache.insert(key, (verified.clone(), until));
        }
        Ok(verified)
    }

    /// Whether any issuer checks opaque tokens.
    pub fn introspects(&self) -> bool {
        self.by_iss.values().any(Issuer::introspects)
    }

    /// The `iss` a JWT claims, read before anything is trusted (to pick its issuers).
    pub fn claimed_issuer(token: &str) -> Result<String, TokenError> {
        verify::claimed_issuer(token)
    }

    /// The issuers' specs, in configuration order.
    pub fn specs(&self) -> Vec<Arc<IssuerSpec>> {
        (self.order.iter())
            .map(|iss| self.by_iss[iss].spec.clone())
            .collect()
    }

    /// Whether any of these issuers could check `token`: a JWT, or an opaque token where one
    /// of them introspects.
    pub fn checks(&self, token: &str) -> bool {
        !self.is_empty() && (Self::is_jwt(token) || self.introspects())
    }

    /// Whether `token` is these issuers' to answer before any other's: a JWT whose claimed
    /// `iss` is one of them, or an opaque token where one of them introspects.
    pub fn answers_for(&self, token: &str) -> bool {
        match Self::is_jwt(token) {
            true => verify::claimed_issuer(token).is_ok_and(|iss| self.knows(&iss)),
            false => self.introspects(),
        }
    }

    /// Whether `iss` is one of these issuers.
    fn knows(&self, iss: &str) -> bool {
        self.by_iss.contains_key(iss)
    }

    /// An opaque token asked about at each introspecting issuer in turn: the first that calls
    /// it active answers; otherwise the first refusal that is not "inactive" says why.
    async fn introspect(&self, token: &str, resource: &str) -> Result<(Verified, u64), TokenError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::TooLarge(token.len()));
        }
        let mut refusal = None;
        let introspecting = (self.order.iter()).filter_map(|iss| self.by_iss.get(iss));
        for issuer in introspecting.filter(|i| i.introspects()) {
            match issuer.introspect(token, &issuer.audiences(resource)).await {
                Ok(answer) => return Ok(answer),
                Err(TokenError::Inactive) => refusal = refusal.or(Some(TokenError::Inactive)),
                Err(e) if matches!(refusal, None | Some(TokenError::Inactive)) => refusal = Some(e),
                Err(_) => {}
            }
        }
        Err(refusal.unwrap_or_else(|| {
            TokenError::Malformed(
                "it is not a JWT, and no issuer here introspects opaque tokens (add introspection to its [[identity.issuers]])".into(),
            )
        }))
    }

    /// Fetches every issuer's metadata and keys (at start: an unreachable issuer is named,
    /// nothing stops); answers the issuers that have no keys, with why.
    pub async fn warm(&self) -> Vec<(String, String)> {
        let fetches = self.by_iss.values().map(|i| i.keys.fetch());
        futures::future::join_all(fetches).await;
        self.unavailable()
    }

    /// The issuers with no keys at hand and why (for `/readyz`).
    pub fn unavailable(&self) -> Vec<(String, String)> {
        (self.order.iter())
            .filter_map(|iss| {
                let issuer = &self.by_iss[iss];
                let has_keys = issuer.keys.current().is_some();
                let why = issuer.keys.last_error.lock().clone();
                (!has_keys).then(|| {
                    (
                        iss.clone(),
                        why.unwrap_or_else(|| "keys not fetched yet".into()),
                    )
                })
            })
            .collect()
    }
}

/// Verified tokens by [`cache_key`], with the time until which each is trusted.
type Remembered = HashMap<[u8; 32], (Verified, u64)>;

/// Verified tokens kept at most (each a few hundred bytes).
const VERIFIED_KEPT: usize = 10_000;

/// A token and the resource it was checked for, as a cache key.
fn cache_key(token: &str, resource: &str) -> [u8; 32] {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    hash.update(resource.as_bytes());
    hash.update([0]);
    hash.update(token.as_bytes());
    hash.finalize().into()
}

/// An issuer's algorithms, asymmetric ones only.
fn algorithms(spec: &IssuerSpec) -> Result<Vec<Algorithm>, String> {
    spec.algorithms()
        .iter()
        .map(|name| {
            let alg: Algorithm = name.parse().map_err(|_| {
                format!("issuer {}: {name:?} is not a JWS algorithm", spec.issuer)
            })?;
            match alg {
                Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => Err(format!(
                    "issuer {}: {name} is an HMAC algorithm, whose key every client would share; use RS256, PS256, ES256 or EdDSA",
                    spec.issuer
                )),
                alg => Ok(alg),
            }
        })
        .collect()
}
