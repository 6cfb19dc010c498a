//! Token exchange (RFC 8693): a caller's access token traded at the issuer that minted it for
//! a token whose audience is an upstream in the same trust domain; kept per end user and
//! server no longer than either token lives.

use crate::Issuers;
use std::collections::HashMap;
use std::sync::Arc;
use switchboard_core::{Grant, GuardFuture, InboundToken, TokenExchange};
use switchboard_sync::Mutex;

const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN: &str = "urn:ietf:params:oauth:token-type:access_token";
/// An exchanged token is traded again this long before it (or the caller's) expires.
const EARLY_SECS: u64 = 30;
/// When the issuer names no `expires_in`.
const DEFAULT_LIFETIME_SECS: u64 = 300;
/// Exchanged tokens kept at most (past it, the expired ones are dropped).
const MAX_KEPT: usize = 10_000;

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Issuers {
    /// Whether any issuer has a `token_exchange` client.
    pub fn exchanges(&self) -> bool {
        self.by_iss
            .values()
            .any(|i| i.spec.token_exchange.is_some())
    }

    /// Trades `inbound` at its issuer's token endpoint (from the issuer's metadata, never an
    /// upstream's) as the issuer's `token_exchange` client, for a token for `resource`; the
    /// token and when it expires (seconds since the epoch).
    pub async fn exchange(
        &self,
        inbound: &InboundToken,
        resource: &str,
    ) -> Result<(String, u64), String> {
        let issuer = inbound.issuer.as_str();
        let found = (self.by_iss.get(issuer)).ok_or_else(|| format!("unknown issuer {issuer}"))?;
        let client = (found.spec.token_exchange.as_ref())
            .ok_or_else(|| format!("{issuer} has no token_exchange client"))?;
        let metadata = found.keys.metadata().await?;
        let endpoint = (metadata.token_endpoint)
            .ok_or_else(|| format!("{issuer}'s metadata names no token_endpoint"))?;
        let mut form = vec![
            ("grant_type", GRANT_TYPE),
            ("subject_token", inbound.token.as_str()),
            ("subject_token_type", ACCESS_TOKEN),
            ("requested_token_type", ACCESS_TOKEN),
            ("resource", resource),
            ("audience", resource),
            ("client_id", client.client_id.as_str()),
        ];
        if let Some(secret) = &client.client_secret {
            form.push(("client_secret", secret));
        }
        let answer = (found.keys.fetcher().post_form(&endpoint, &form)).await?;
        let token = (answer.get("access_token").and_then(|v| v.as_str()))
            .ok_or_else(|| format!("{issuer}'s exchange answer holds no access_token"))?;
        let lifetime =
            (answer.get("expires_in").and_then(|v| v.as_u64())).unwrap_or(DEFAULT_LIFETIME_SECS);
        Ok((token.to_string(), now_secs() + lifetime))
    }
}

/// Exchanged tokens, by the end user's grant key, until the earlier expiry.
pub struct Exchanges {
    issuers: Issuers,
    kept: Mutex<HashMap<String, (Arc<Grant>, u64)>>,
}

impl Exchanges {
    pub fn new(issuers: Issuers) -> Self {
        Self {
            issuers,
            kept: Mutex::default(),
        }
    }
}

impl TokenExchange for Exchanges {
    fn exchange<'a>(
        &'a self,
        store_key: &'a str,
        inbound: &'a InboundToken,
        resource: &'a str,
    ) -> GuardFuture<'a, Result<Arc<Grant>, String>> {
        Box::pin(async move {
            let now = now_secs();
            let fresh = |until: u64| now + EARLY_SECS < until;
            // Per issuer too: two issuers naming the same org and end user never share a token.
            let key = format!("{}\u{0}{store_key}", inbound.issuer);
            if let Some((grant, until)) = self.kept.lock().get(&key)
                && fresh(*until)
            {
                return Ok(grant.clone());
            }
            let (token, expires_at) = self.issuers.exchange(inbound, resource).await?;
            let until = expires_at.min(inbound.expires_at);
            let grant = Arc::new(Grant {
                id: format!("exchanged-{until}"),
                secret: token,
            });
            let mut kept = self.kept.lock();
            if kept.len() >= MAX_KEPT {
                kept.retain(|_, (_, until)| fresh(*until));
            }
            kept.insert(key, (grant.clone(), until));
            Ok(grant)
        })
    }
}
