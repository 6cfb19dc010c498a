//! OAuth for remote servers: tokens that renew themselves (refresh, client credentials), the
//! authorization code flow with PKCE for a person, and where the tokens are kept.

mod client;
mod flow;
mod http;
#[cfg(feature = "keychain")]
mod keychain;
mod shared_flow;
mod source;
mod store;

pub(crate) use client::Authorized;
pub use flow::{AuthorizationDone, FLOW_LIFETIME, FlowError, Flows};
pub(crate) use http::GuardedOAuthHttp;
#[cfg(feature = "keychain")]
pub use keychain::KeychainTokens;
pub use shared_flow::FLOW_KEY_PREFIX;
pub use store::{FileTokens, MemoryTokens, RegisteredClient, TokenRecord, TokenStore};

use crate::{UpstreamError, UpstreamHttp};
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, ClientCredentialsConfig,
    OAuthClientConfig, OAuthTokenResponse, StoredCredentials,
};
use source::TokenSource;
use std::collections::HashMap;
use std::sync::Arc;
use store::KeyedCredentials;
use switchboard_core::{OAuthSpec, ServerSpec};
use switchboard_sync::Mutex;

/// What OAuth connections share: where tokens are kept, the flows waiting for a person, and
/// the base of the redirect URI authorization servers send people back to.
#[derive(Clone)]
pub struct OAuthContext {
    pub tokens: Arc<dyn TokenStore>,
    pub flows: Flows,
    /// e.g. `http://127.0.0.1:8750`; the redirect URI is `{base}/oauth/callback/{server}`.
    pub redirect_base: String,
    refreshing: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
    /// Records read lately, so a call does not read and unseal its tokens from the store.
    cache: store::RecordCache,
    /// Wall time for token expiry.
    clock: switchboard_core::SharedClock,
}

impl std::fmt::Debug for OAuthContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthContext")
            .field("redirect_base", &self.redirect_base)
            .finish_non_exhaustive()
    }
}

impl OAuthContext {
    pub fn new(tokens: Arc<dyn TokenStore>, redirect_base: impl Into<String>) -> Self {
        Self {
            tokens,
            flows: Flows::default(),
            redirect_base: redirect_base.into().trim_end_matches('/').to_string(),
            refreshing: Default::default(),
            cache: Default::default(),
            clock: Default::default(),
        }
    }

    /// Token expiry read from `clock` instead of the system's (tests jump it).
    pub fn with_clock(mut self, clock: switchboard_core::SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// Tokens kept in memory only, with a loopback redirect base (tests, one-shot commands).
    pub fn in_memory() -> Self {
        Self::new(Arc::new(MemoryTokens::default()), "http://127.0.0.1:8750")
    }

    pub fn with_redirect_base(mut self, base: impl Into<String>) -> Self {
        self.redirect_base = base.into().trim_end_matches('/').to_string();
        self
    }

    /// The redirect URI for `spec`'s authorization code flow.
    pub fn redirect_uri(&self, spec: &ServerSpec) -> String {
        format!(
            "{}/oauth/callback/{}",
            self.redirect_base,
            callback_id(spec)
        )
    }

    pub(crate) fn credentials(&self, spec: &ServerSpec) -> KeyedCredentials {
        let url = match &spec.transport {
            switchboard_core::Transport::Http(http) => http.url.clone(),
            switchboard_core::Transport::Stdio(_) => String::new(),
        };
        self.credentials_at(&token_key(spec), &url)
    }

    /// The record `key` of the server at `url`.
    pub(crate) fn credentials_at(&self, key: &str, url: &str) -> KeyedCredentials {
        let (key, url) = (key.to_string(), url.to_string());
        let refreshing = self
            .refreshing
            .lock()
            .entry(key.clone())
            .or_default()
            .clone();
        KeyedCredentials {
            store: self.tokens.clone(),
            key,
            url,
            refreshing,
            cache: self.cache.clone(),
            clock: self.clock.clone(),
        }
    }

    /// Remembers that a call to `spec` needs `scopes` (an `insufficient_scope` refusal): the
    /// next authorization, here or by `switchboard auth login`, asks for them too.
    pub async fn want_scopes(&self, spec: &ServerSpec, scopes: Vec<String>) -> Result<(), String> {
        self.credentials(spec)
            .update_guarded(|r| r.wanted_scopes = scopes)
            .await
            .map_err(|e| e.to_string())
    }
}

/// Where a server's tokens are kept: an end user's grant key on their own session with a
/// per-end-user server, else its API row, or its config name.
pub fn token_key(spec: &ServerSpec) -> String {
    if let Some(key) = &spec.oauth_key {
        return key.clone();
    }
    server_token_key(spec)
}

/// Where the server itself keeps its tokens and client registration (never an end user's).
pub fn server_token_key(spec: &ServerSpec) -> String {
    if spec.origin.starts_with("api:") {
        spec.origin.clone()
    } else {
        format!("config:{}", spec.name)
    }
}

/// The path segment of a server's redirect URI: its API row id, or its config name.
pub fn callback_id(spec: &ServerSpec) -> String {
    spec.origin
        .strip_prefix("api:")
        .map(String::from)
        .unwrap_or_else(|| spec.name.to_string())
}

fn auth_failed(e: AuthError) -> UpstreamError {
    UpstreamError::Unauthorized(e.to_string())
}

/// An OAuth failure classified once: refused credentials need new ones (`Unauthorized`);
/// an unreachable or failing token endpoint, a broken store, is worth retrying (`Transport`),
/// never a reason to send a person through authorization again.
pub(crate) fn classify(e: &AuthError) -> UpstreamError {
    let refused = match e {
        AuthError::AuthorizationRequired
        | AuthError::TokenRefreshRejected(_)
        | AuthError::NoAuthorizationSupport => true,
        AuthError::ClientCredentialsError(reason) | AuthError::TokenRefreshFailed(reason) => [
            "invalid_client",
            "unauthorized_client",
            "invalid_grant",
            "invalid_scope",
        ]
        .iter()
        .any(|code| reason.contains(code)),
        _ => false,
    };
    if refused {
        UpstreamError::Unauthorized(e.to_string())
    } else {
        UpstreamError::Transport(format!("OAuth: {e}"))
    }
}

/// A bearer token response made of given values (tokens handed over by a person).
pub(crate) fn token_response(
    access: &str,
    refresh: Option<&str>,
) -> Result<OAuthTokenResponse, UpstreamError> {
    let mut json = serde_json::json!({"access_token": access, "token_type": "Bearer"});
    if let Some(refresh) = refresh {
        json["refresh_token"] = refresh.into();
    }
    serde_json::from_value(json).map_err(|e| UpstreamError::Unauthorized(e.to_string()))
}

/// Stores tokens the configuration gave, unless these very tokens were stored before (then
/// the refreshed ones kept since are newer).
async fn seed(
    credentials: &KeyedCredentials,
    client_id: &str,
    access: &str,
    refresh: Option<&str>,
) -> Result<(), UpstreamError> {
    use sha2::Digest;
    let hash = hex::encode(sha2::Sha256::digest(format!(
        "{access}\n{}",
        refresh.unwrap_or("")
    )));
    let record = credentials.record().await.map_err(auth_failed)?;
    if record.seed.as_deref() == Some(hash.as_str()) {
        return Ok(());
    }
    let response = token_response(access, refresh)?;
    credentials
        .update_guarded(|r| {
            r.credentials = Some(StoredCredentials::new(
                client_id.to_string(),
                Some(response),
                Vec::new(),
                None,
            ));
            r.seed = Some(hash);
        })
        .await
        .map_err(auth_failed)
}

/// The authorization server of a connection's tokens: kept with them, or discovered once and
/// kept (a connect then costs no discovery round trips).
async fn authorization_server(
    manager: &AuthorizationManager,
    credentials: &KeyedCredentials,
) -> Result<AuthorizationMetadata, AuthError> {
    if let Some(kept) = credentials.record().await?.authorization_server {
        return Ok(kept);
    }
    let found = manager.resolve_metadata().await?.metadata;
    let keep = found.clone();
    credentials
        .update_guarded(|r| r.authorization_server = Some(keep))
        .await?;
    Ok(found)
}

fn metadata_with_token_url(token_url: &str) -> AuthorizationMetadata {
    let mut metadata = AuthorizationMetadata::default();
    metadata.authorization_endpoint = token_url.to_string();
    metadata.token_endpoint = token_url.to_string();
    metadata
}

/// The token source of one connection to `spec` (an OAuth server).
pub(crate) async fn token_source(
    spec: &ServerSpec,
    oauth: &OAuthSpec,
    url: &str,
    http: &UpstreamHttp,
    ctx: &OAuthContext,
) -> Result<TokenSource, UpstreamError> {
    let mut manager = AuthorizationManager::new_with_oauth_http_client(url, http.oauth_client())
        .await
        .map_err(auth_failed)?;
    let credentials = ctx.credentials(spec);
    // A new connection reads the store afresh (another replica or `auth login` may have
    // saved new tokens since).
    credentials.forget_cached();
    // Client-credentials tokens live in the connection only (a new one is exchanged for).
    if !matches!(oauth, OAuthSpec::ClientCredentials { .. }) {
        manager.set_credential_store(credentials.clone());
    }
    let redirect = ctx.redirect_uri(spec);
    match oauth {
        OAuthSpec::ClientCredentials {
            token_url,
            client,
            scopes,
        } => {
            manager.set_metadata(metadata_with_token_url(token_url));
            let config = ClientCredentialsConfig::ClientSecret {
                client_id: client.id.clone(),
                client_secret: client.secret.clone().unwrap_or_default(),
                scopes: scopes.clone(),
                resource: Some(url.to_string()),
            };
            manager
                .configure_client_credentials(&config)
                .map_err(auth_failed)?;
            Ok(TokenSource::ClientCredentials {
                manager,
                config,
                current: Default::default(),
                clock: ctx.clock.clone(),
            })
        }
        OAuthSpec::Tokens {
            access_token,
            refresh_token,
            client,
            token_url,
        } => {
            let client_id = client
                .as_ref()
                .map_or_else(|| "switchboard".to_string(), |c| c.id.clone());
            seed(
                &credentials,
                &client_id,
                access_token,
                refresh_token.as_deref(),
            )
            .await?;
            if refresh_token.is_some() {
                let metadata = match token_url {
                    Some(token_url) => Some(metadata_with_token_url(token_url)),
                    None => match authorization_server(&manager, &credentials).await {
                        Ok(found) => Some(found),
                        Err(e) => {
                            tracing::warn!(server = %spec.name, "no token endpoint found, so tokens cannot be refreshed: {e}; set tokenUrl");
                            None
                        }
                    },
                };
                if let Some(metadata) = metadata {
                    manager.set_metadata(metadata);
                    let mut config = OAuthClientConfig::new(client_id, redirect);
                    if let Some(secret) = client.as_ref().and_then(|c| c.secret.clone()) {
                        config = config.with_client_secret(secret);
                    }
                    manager.configure_client(config).map_err(auth_failed)?;
                }
            }
            Ok(TokenSource::Refreshing {
                manager: tokio::sync::Mutex::new(manager),
                credentials,
            })
        }
        OAuthSpec::AuthorizationCode {
            client,
            seed: seed_tokens,
            ..
        } => {
            if let Some((access, refresh)) = seed_tokens {
                let id = client.as_ref().map_or("switchboard", |c| c.id.as_str());
                seed(&credentials, id, access, refresh.as_deref()).await?;
            }
            // A store that cannot be read is worth retrying, not a refusal.
            let record = credentials.record().await.map_err(|e| classify(&e))?;
            if let Some(stored) = &record.credentials {
                // Refreshing needs the authorization server and the client the tokens
                // belong to; without them the tokens are used until refused.
                match authorization_server(&manager, &credentials).await {
                    // Tokens are the issuer's: a server now naming another authorization server
                    // gets none of them (it must be authorized again).
                    Ok(found)
                        if stored.issuer.is_some()
                            && found.issuer.is_some()
                            && stored.issuer != found.issuer =>
                    {
                        tracing::warn!(
                            server = %spec.name,
                            kept = ?stored.issuer,
                            now = ?found.issuer,
                            "the server names another authorization server; its kept tokens are not sent"
                        );
                        credentials
                            .update_guarded(|r| r.credentials = None)
                            .await
                            .map_err(auth_failed)?;
                    }
                    Ok(found) => {
                        manager.set_metadata(found);
                        // The client the tokens belong to: the configured one, or the one
                        // registered for them.
                        let kept = record.client.as_ref().filter(|c| c.id == stored.client_id);
                        let secret = client
                            .as_ref()
                            .filter(|c| c.id == stored.client_id)
                            .and_then(|c| c.secret.clone())
                            .or_else(|| kept.and_then(|c| c.secret.clone()));
                        let redirect = kept.map_or(redirect, |c| c.redirect_uri.clone());
                        let mut config = OAuthClientConfig::new(stored.client_id.clone(), redirect);
                        if let Some(secret) = secret {
                            config = config.with_client_secret(secret);
                        }
                        if let Err(e) = manager.configure_client(config) {
                            tracing::warn!(server = %spec.name, "tokens cannot be refreshed: {e}");
                        }
                    }
                    Err(e) => {
                        tracing::warn!(server = %spec.name, "no authorization server metadata, so tokens cannot be refreshed: {e}")
                    }
                }
            }
            Ok(TokenSource::Refreshing {
                manager: tokio::sync::Mutex::new(manager),
                credentials,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_need_new_credentials_and_outages_are_retried() {
        let refused = |e: AuthError| matches!(classify(&e), UpstreamError::Unauthorized(_));
        assert!(refused(AuthError::AuthorizationRequired));
        assert!(refused(AuthError::TokenRefreshRejected(
            "invalid_grant".into()
        )));
        assert!(refused(AuthError::ClientCredentialsError(
            "Token exchange failed: Server returned error response: invalid_client".into()
        )));
        // A token endpoint that is down or failing: retry later, no person needed.
        assert!(!refused(AuthError::TokenRefreshFailed(
            "Request failed: connection refused".into()
        )));
        assert!(!refused(AuthError::ClientCredentialsError(
            "Token exchange failed: Server returned 503".into()
        )));
        assert!(!refused(AuthError::CredentialStoreError(
            "disk full".into()
        )));
    }
}
