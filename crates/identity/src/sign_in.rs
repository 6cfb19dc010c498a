//! People's sign-in through an issuer (OpenID Connect, authorization code + PKCE): the URL a
//! browser is sent to, and the verified identity its code is traded for.

use crate::claims::Verified;
use crate::verify::Expect;
use crate::{Issuers, TokenError};
use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::Digest;

/// A sign-in begun: what the callback needs to finish it (kept by the gateway, never sent to
/// the browser).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Pending {
    pub issuer: String,
    pub nonce: String,
    pub verifier: String,
}

/// A random URL-safe secret of 32 bytes.
pub fn secret() -> String {
    let bytes: [u8; 32] = rand::random();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

impl Issuers {
    /// The issuers people may sign in through, in configuration order.
    pub fn sign_in_issuers(&self) -> Vec<String> {
        (self.order.iter())
            .filter(|iss| self.by_iss[*iss].spec.sign_in.is_some())
            .cloned()
            .collect()
    }

    /// Where to send a browser to sign in through `issuer`, coming back to `redirect_uri`
    /// with `state`; and what the callback needs.
    pub async fn sign_in_url(
        &self,
        issuer: &str,
        redirect_uri: &str,
        state: &str,
    ) -> Result<(String, Pending), String> {
        let found = (self.by_iss.get(issuer)).ok_or_else(|| format!("unknown issuer {issuer}"))?;
        let client = (found.spec.sign_in.as_ref())
            .ok_or_else(|| format!("{issuer} has no sign_in client"))?;
        let metadata = found.keys.metadata().await?;
        let endpoint = (metadata.authorization_endpoint)
            .ok_or_else(|| format!("{issuer}'s metadata names no authorization_endpoint"))?;
        let pending = Pending {
            issuer: issuer.to_string(),
            nonce: secret(),
            verifier: secret(),
        };
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(pending.verifier.as_bytes()));
        let mut scope = vec!["openid".to_string()];
        scope.extend(client.scopes.iter().cloned());
        let mut url = url::Url::parse(&endpoint).map_err(|e| format!("{endpoint}: {e}"))?;
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", &client.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("scope", &scope.join(" "))
            .append_pair("state", state)
            .append_pair("nonce", &pending.nonce)
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256");
        Ok((url.to_string(), pending))
    }

    /// Trades the callback's `code` for tokens at the issuer and verifies the ID token: the
    /// person, mapped by the issuer's claims.
    pub async fn finish_sign_in(
        &self,
        pending: &Pending,
        code: &str,
        redirect_uri: &str,
    ) -> Result<Verified, TokenError> {
        let unavailable = TokenError::IssuerUnavailable;
        let found = (self.by_iss.get(&pending.issuer))
            .ok_or_else(|| TokenError::UnknownIssuer(pending.issuer.clone()))?;
        let client =
            (found.spec.sign_in.as_ref()).ok_or_else(|| unavailable("no sign_in client".into()))?;
        let metadata = found.keys.metadata().await.map_err(unavailable)?;
        let endpoint = (metadata.token_endpoint)
            .ok_or_else(|| unavailable("the metadata names no token_endpoint".into()))?;
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", pending.verifier.as_str()),
            ("client_id", client.client_id.as_str()),
        ];
        if let Some(secret) = &client.client_secret {
            form.push(("client_secret", secret));
        }
        let answer = (found.keys.fetcher())
            .post_form(&endpoint, &form)
            .await
            .map_err(unavailable)?;
        let id_token = (answer.get("id_token").and_then(|v| v.as_str()))
            .ok_or_else(|| unavailable("the token answer holds no id_token".into()))?;
        let audiences = [client.client_id.clone()];
        let expect = Expect::Id {
            nonce: &pending.nonce,
        };
        found.verify_as(id_token, &audiences, expect).await
    }
}
