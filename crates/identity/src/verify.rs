//! Checking one presented JWT: its issuer found among the configured ones first, then that
//! issuer's keys only, its pinned algorithms, its type, times and audience.

use crate::claims::{Verified, map};
use crate::error::TokenError;
use crate::keys::KeyCache;
use jsonwebtoken::errors::ErrorKind as JwtError;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};
use std::sync::Arc;
use switchboard_core::IssuerSpec;

/// The longest token read; larger ones are refused before any parsing.
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;
const DEFAULT_LEEWAY_SECS: u64 = 60;

/// One configured issuer: its spec, its algorithms, its keys.
pub(crate) struct Issuer {
    pub(crate) spec: Arc<IssuerSpec>,
    pub(crate) algorithms: Vec<Algorithm>,
    pub(crate) keys: Arc<KeyCache>,
}

/// The `iss` a token claims, read before anything is trusted (to pick its issuer's keys).
pub(crate) fn claimed_issuer(token: &str) -> Result<String, TokenError> {
    if token.len() > MAX_TOKEN_BYTES {
        return Err(TokenError::TooLarge(token.len()));
    }
    let data = jsonwebtoken::dangerous::insecure_decode::<Map<String, Value>>(token)
        .map_err(|e| TokenError::Malformed(e.to_string()))?;
    match data.claims.get("iss") {
        Some(Value::String(iss)) if iss.len() <= 512 => Ok(iss.clone()),
        // Never a configured issuer; not echoed whole into logs.
        Some(Value::String(iss)) => {
            let start: String = iss.chars().take(64).collect();
            Err(TokenError::UnknownIssuer(format!("{start}…")))
        }
        _ => Err(TokenError::MissingClaim("iss".into())),
    }
}

/// What kind of token is expected.
pub(crate) enum Expect<'a> {
    /// An access token for a resource.
    Access,
    /// An OpenID ID token of a sign-in this gateway began, with its `nonce`.
    Id { nonce: &'a str },
}

impl Issuer {
    /// Seconds of clock difference tolerated.
    pub(crate) fn leeway(&self) -> u64 {
        self.spec.leeway_secs.unwrap_or(DEFAULT_LEEWAY_SECS)
    }

    /// The audiences a token for the endpoint at `resource` may name.
    pub(crate) fn audiences(&self, resource: &str) -> Vec<String> {
        let mut audiences = vec![resource.to_string()];
        audiences.extend(self.spec.audiences.iter().cloned());
        audiences
    }

    /// The token checked against this issuer, for the endpoint whose resource URI is
    /// `resource`.
    pub(crate) async fn verify(&self, token: &str, resource: &str) -> Result<Verified, TokenError> {
        self.verify_as(token, &self.audiences(resource), Expect::Access)
            .await
    }

    /// The token checked against this issuer for one of `audiences`, as `expect` says.
    pub(crate) async fn verify_as(
        &self,
        token: &str,
        audiences: &[String],
        expect: Expect<'_>,
    ) -> Result<Verified, TokenError> {
        let access = matches!(expect, Expect::Access);
        let header =
            jsonwebtoken::decode_header(token).map_err(|e| TokenError::Malformed(e.to_string()))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(TokenError::Algorithm(format!("{:?}", header.alg)));
        }
        let typ = header.typ.as_deref().map(str::to_ascii_lowercase);
        let typed_at = matches!(typ.as_deref(), Some("at+jwt" | "application/at+jwt"));
        if access && self.spec.require_at_jwt && !typed_at {
            return Err(TokenError::NotAccessToken(
                "this issuer's access tokens are typed at+jwt (RFC 9068) and this one is not",
            ));
        }
        if !typed_at && !matches!(typ.as_deref(), None | Some("jwt")) {
            return Err(TokenError::NotAccessToken(
                "its type is neither at+jwt nor JWT",
            ));
        }
        let keys = (self.keys.for_kid(header.kid.as_deref()).await)
            .map_err(TokenError::IssuerUnavailable)?;
        let key = keys
            .find(header.kid.as_deref())
            .ok_or_else(|| TokenError::UnknownKey(header.kid.clone().unwrap_or_default()))?;
        if key.alg.is_some_and(|alg| alg != header.alg) {
            return Err(TokenError::Algorithm(format!("{:?}", header.alg)));
        }
        let leeway = self.leeway();
        let mut validation = Validation::new(header.alg);
        validation.leeway = leeway;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.spec.issuer]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.set_audience(audiences);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation)
            .map_err(|e| classify(e.into_kind(), token, &audiences[0]))?;
        let claims = data.claims;
        let id_token = claims.contains_key("nonce")
            || claims.contains_key("at_hash")
            || claims.get("typ").and_then(Value::as_str) == Some("ID");
        let sign_in_client = self.spec.sign_in.as_ref().map(|c| c.client_id.as_str());
        match expect {
            // An OpenID ID token proves a sign-in to a client; it never grants access.
            Expect::Access if id_token => {
                return Err(TokenError::NotAccessToken(
                    "it is an OpenID ID token; send the access token",
                ));
            }
            Expect::Access if only_client_audience(&claims, sign_in_client) => {
                return Err(TokenError::NotAccessToken(
                    "its only audience is a client id, as an OpenID ID token's is; send the access token",
                ));
            }
            Expect::Id { nonce } if claims.get("nonce").and_then(Value::as_str) != Some(nonce) => {
                return Err(TokenError::NotAccessToken(
                    "the ID token's nonce is not the one of this sign-in",
                ));
            }
            _ => {}
        }
        let now = jsonwebtoken::get_current_timestamp();
        if claims
            .get("iat")
            .and_then(Value::as_u64)
            .is_some_and(|iat| iat > now + leeway)
        {
            return Err(TokenError::NotYetValid("issued in the future"));
        }
        let expires_at = claims.get("exp").and_then(Value::as_u64).unwrap_or(0);
        Ok(map(&self.spec, &claims, expires_at))
    }
}

/// Whether every audience of a token is a client's id (its `azp` or `client_id`, or the
/// gateway's own sign-in client): the shape of an ID token, even one without `nonce`.
fn only_client_audience(claims: &Map<String, Value>, sign_in_client: Option<&str>) -> bool {
    let audiences = crate::claims::values_at(claims, "aud");
    let mut clients: Vec<&str> = ["azp", "client_id"]
        .iter()
        .filter_map(|name| claims.get(*name).and_then(Value::as_str))
        .collect();
    clients.extend(sign_in_client);
    !audiences.is_empty() && audiences.iter().all(|a| clients.contains(&a.as_str()))
}

/// A library error as the gateway's kind.
fn classify(kind: JwtError, token: &str, resource: &str) -> TokenError {
    match kind {
        JwtError::ExpiredSignature => TokenError::Expired,
        JwtError::ImmatureSignature => TokenError::NotYetValid("its nbf is ahead"),
        JwtError::InvalidAudience => TokenError::Audience {
            found: audience_of(token),
            expected: resource.to_string(),
        },
        JwtError::InvalidSignature => TokenError::Signature,
        JwtError::InvalidAlgorithm | JwtError::MissingAlgorithm => {
            TokenError::Algorithm("an algorithm its key does not fit".into())
        }
        JwtError::MissingRequiredClaim(claim) => TokenError::MissingClaim(claim),
        other => TokenError::Malformed(format!("{other:?}")),
    }
}

/// The token's `aud`, as written, for a message.
fn audience_of(token: &str) -> String {
    jsonwebtoken::dangerous::insecure_decode::<Map<String, Value>>(token)
        .ok()
        .and_then(|d| d.claims.get("aud").cloned())
        .map(|aud| aud.to_string())
        .unwrap_or_else(|| "(none)".into())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_token_for_a_client_alone_is_no_access_token() {
        let shape = |v: serde_json::Value, client| {
            super::only_client_audience(v.as_object().unwrap(), client)
        };
        let api = "https://mcp.example.com/mcp";
        assert!(shape(json!({"aud": "app-1", "azp": "app-1"}), None));
        assert!(shape(json!({"aud": ["dashboard"]}), Some("dashboard")));
        assert!(!shape(
            json!({"aud": [api], "azp": "app-1"}),
            Some("dashboard")
        ));
        assert!(!shape(json!({"aud": [api, "app-1"], "azp": "app-1"}), None));
        assert!(!shape(
            json!({"aud": "api://switchboard", "azp": "app-1"}),
            None
        ));
    }
}
