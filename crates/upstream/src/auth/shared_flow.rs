//! Flows any replica can finish: what a flow needs after the browser comes back (the client,
//! the PKCE verifier) is kept in the token store, so the callback may reach another replica
//! than the one that began it, or the same one after a restart.

use super::store::KeyedCredentials;
use super::{AuthorizationDone, FlowError, OAuthContext, RegisteredClient};
use crate::UpstreamHttp;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, OAuthClientConfig, StateStore,
    StoredAuthorizationState,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use switchboard_sync::Mutex;

/// Flows in the store are keyed `flow:<state>`.
pub const FLOW_KEY_PREFIX: &str = "flow:";

pub(super) fn flow_key(state: &str) -> String {
    format!("{FLOW_KEY_PREFIX}{state}")
}

/// Everything needed to finish a flow elsewhere.
#[derive(Serialize, Deserialize)]
pub(super) struct SavedFlow {
    pub key: String,
    pub server: String,
    pub origin: String,
    pub url: String,
    pub redirect_uri: String,
    pub client_id: String,
    pub client_secret: Option<String>,
    pub registered: Option<RegisteredClient>,
    pub started_ms: u64,
    pub pkce: StoredAuthorizationState,
    /// The refusal that began it: discovery finds the same authorization server from it.
    #[serde(default)]
    pub challenge: Option<String>,
    /// The authorization server the flow began with (no discovery needed to finish it).
    #[serde(default)]
    pub metadata: Option<AuthorizationMetadata>,
}

pub(super) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// rmcp's PKCE state for one flow, held here so it can be saved with the flow.
#[derive(Clone, Default)]
pub(super) struct CapturedState(pub Arc<Mutex<Option<StoredAuthorizationState>>>);

impl CapturedState {
    pub(super) fn take(&self) -> Option<StoredAuthorizationState> {
        self.0.lock().clone()
    }
}

#[async_trait::async_trait]
impl StateStore for CapturedState {
    async fn save(&self, _csrf: &str, state: StoredAuthorizationState) -> Result<(), AuthError> {
        *self.0.lock() = Some(state);
        Ok(())
    }
    async fn load(&self, csrf: &str) -> Result<Option<StoredAuthorizationState>, AuthError> {
        Ok(self.take().filter(|s| s.csrf_token == csrf))
    }
    async fn delete(&self, _csrf: &str) -> Result<(), AuthError> {
        *self.0.lock() = None;
        Ok(())
    }
}

/// Finishes a flow this process did not begin (or no longer remembers), from the store.
pub(super) async fn finish_saved(
    state: &str,
    code: &str,
    issuer: Option<&str>,
    http: &UpstreamHttp,
    ctx: &OAuthContext,
    lifetime: Duration,
) -> Result<AuthorizationDone, FlowError> {
    let json = ctx
        .tokens
        .take_flow(&flow_key(state))
        .await
        .map_err(FlowError::Exchange)?
        .ok_or(FlowError::UnknownState)?;
    let flow: SavedFlow =
        serde_json::from_str(&json).map_err(|e| FlowError::Exchange(e.to_string()))?;
    if now_ms().saturating_sub(flow.started_ms) > lifetime.as_millis() as u64 {
        return Err(FlowError::UnknownState);
    }
    let failed = |e: AuthError| FlowError::Exchange(e.to_string());
    let mut manager =
        AuthorizationManager::new_with_oauth_http_client(flow.url.as_str(), http.oauth_client())
            .await
            .map_err(failed)?;
    let credentials = ctx.credentials_at(&flow.key, &flow.url);
    manager.set_credential_store(credentials.clone());
    let metadata = match flow.metadata {
        Some(kept) => kept,
        None => {
            manager
                .resolve_metadata_from_challenge(flow.challenge.as_deref())
                .await
                .map_err(failed)?
                .metadata
        }
    };
    manager.set_metadata(metadata.clone());
    let mut config = OAuthClientConfig::new(flow.client_id.clone(), flow.redirect_uri.clone());
    if let Some(secret) = &flow.client_secret {
        config = config.with_client_secret(secret.clone());
    }
    manager.configure_client(config).map_err(failed)?;
    manager.set_state_store(CapturedState(Arc::new(Mutex::new(Some(flow.pkce)))));
    manager
        .exchange_code_for_token_with_issuer(code, state, issuer)
        .await
        .map_err(failed)?;
    keep_client(&credentials, flow.registered, metadata).await?;
    Ok(AuthorizationDone {
        key: flow.key,
        server: flow.server,
        origin: flow.origin,
    })
}

/// Keeps what a finished flow found: the client it registered (so refreshes, here and after
/// restarts, use it) and the authorization server (so connects need no discovery).
pub(super) async fn keep_client(
    credentials: &KeyedCredentials,
    registered: Option<RegisteredClient>,
    metadata: AuthorizationMetadata,
) -> Result<(), FlowError> {
    credentials
        .update_guarded(|r| {
            if registered.is_some() {
                r.client = registered;
            }
            r.authorization_server = Some(metadata);
        })
        .await
        .map_err(|e| FlowError::Exchange(e.to_string()))
}
