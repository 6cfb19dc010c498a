//! The authorization code flow (OAuth 2.1 with PKCE) for a person: begun when a server
//! refuses us, finished when the authorization server sends the browser back with a code.

use super::shared_flow::{CapturedState, SavedFlow, finish_saved, flow_key, keep_client, now_ms};
use super::{OAuthContext, RegisteredClient, auth_failed};
use crate::{UpstreamError, UpstreamHttp};
use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadata, AuthorizationRequest, AuthorizationSession,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_core::{OAuthSpec, ServerSpec};
use switchboard_sync::Mutex;

/// A flow not finished within this long is forgotten.
pub const FLOW_LIFETIME: Duration = Duration::from_secs(15 * 60);
/// Flows waiting at once, at most (older ones are dropped first).
const MAX_FLOWS: usize = 1000;

fn auth_failed_text(reason: String) -> UpstreamError {
    UpstreamError::Unauthorized(reason)
}

/// Flows waiting for their callback, by their `state` value (single use).
#[derive(Clone, Default)]
pub struct Flows(Arc<Mutex<HashMap<String, Pending>>>);

struct Pending {
    key: String,
    metadata: AuthorizationMetadata,
    credentials: super::store::KeyedCredentials,
    server: String,
    origin: String,
    session: AuthorizationSession,
    client: Option<RegisteredClient>,
    /// Kept in the store too: whoever takes it from there first finishes it.
    shared: bool,
    started: Instant,
}

/// A finished authorization: whose tokens were saved.
#[derive(Debug, Clone)]
pub struct AuthorizationDone {
    pub key: String,
    /// The server's name and where it was declared (`api:<row id>` for API servers).
    pub server: String,
    pub origin: String,
}

#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    #[error(
        "this authorization link is unknown, used or expired (links work once, for 15 minutes, on the gateway that made them); reauthorize the server (dashboard, `switchboard server reauthorize ID`, or `switchboard auth login NAME`) for a new one"
    )]
    UnknownState,
    #[error("this gateway serves no OAuth servers, so it has no authorization to finish")]
    NoOAuth,
    #[error("exchanging the code for tokens failed: {0}")]
    Exchange(String),
}

impl Flows {
    /// Starts a flow for `spec` after `challenge` (the `WWW-Authenticate` value of the
    /// refusal, if any): discovers the authorization server, picks the client (configured,
    /// metadata document, kept registration, or a new registration), and returns the URL a
    /// person opens.
    pub async fn begin(
        &self,
        spec: &ServerSpec,
        url: &str,
        challenge: Option<&str>,
        http: &UpstreamHttp,
        ctx: &OAuthContext,
    ) -> Result<String, UpstreamError> {
        let Some(OAuthSpec::AuthorizationCode {
            scopes,
            client,
            client_metadata_url,
            ..
        }) = http_oauth(spec)
        else {
            return Err(UpstreamError::Unauthorized(
                "the server refused the credentials and has no authorization flow (auth type authorizationCode) to get new ones; give it new credentials".into(),
            ));
        };
        let mut manager =
            AuthorizationManager::new_with_oauth_http_client(url, http.oauth_client())
                .await
                .map_err(auth_failed)?;
        let credentials = ctx.credentials(spec);
        manager.set_credential_store(credentials.clone());
        let found = manager
            .resolve_metadata_from_challenge(challenge.filter(|c| !c.is_empty()))
            .await
            .map_err(|e| {
                UpstreamError::Unauthorized(format!(
                    "cannot find the server's authorization server: {e}; check the server's url, or give its tokens (auth type oauth2 or clientCredentials with tokenUrl)"
                ))
            })?;
        let issuer = found.metadata.issuer.clone();
        let cimd = found
            .metadata
            .additional_fields
            .get("client_id_metadata_document_supported")
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        let can_register = found.metadata.registration_endpoint.is_some();
        let metadata = found.metadata.clone();
        manager.set_metadata(found.metadata);
        let record = credentials.record().await.map_err(auth_failed)?;
        // The client is the server's, registered once: an end user's flow (tokens kept
        // under their grant key) uses and keeps it under the server's own key.
        let home = match spec.oauth_key {
            Some(_) => ctx.credentials_at(&super::server_token_key(spec), url),
            None => credentials.clone(),
        };
        let kept_client = match spec.oauth_key {
            Some(_) => home.record().await.map_err(auth_failed)?.client,
            None => record.client.clone(),
        };
        let redirect = ctx.redirect_uri(spec);

        // Configured scopes, plus (after an `insufficient_scope`) the ones a tool asked for
        // and the ones granted so far: a step-up never loses what already worked.
        let mut wanted: Vec<String> = scopes.clone();
        if !record.wanted_scopes.is_empty() {
            let granted = record.credentials.iter().flat_map(|c| &c.granted_scopes);
            for scope in record.wanted_scopes.iter().chain(granted) {
                if !wanted.contains(scope) {
                    wanted.push(scope.clone());
                }
            }
        }
        let mut request =
            AuthorizationRequest::new(redirect.clone()).with_client_name("Switchboard");
        if !wanted.is_empty() {
            request = request.with_scopes(wanted.iter().map(String::as_str));
        }
        if let Some(challenge) = challenge.filter(|c| !c.is_empty()) {
            request = request.with_challenge(challenge);
        }
        // Which client: the configured one, a metadata document where supported, the
        // registration kept from last time, or a new registration (kept, secret included).
        let mut registered = None;
        let (client_id, client_secret);
        if let Some(client) = client {
            request = request.with_preregistered_client(client.id.clone());
            if let Some(secret) = &client.secret {
                request = request.with_client_secret(secret.clone());
            }
            (client_id, client_secret) = (client.id.clone(), client.secret.clone());
        } else if let Some(metadata_url) = client_metadata_url.as_ref().filter(|_| cimd) {
            request = request.with_client_metadata_url(metadata_url.clone());
            (client_id, client_secret) = (metadata_url.clone(), None);
        } else if let Some(kept) = kept_client
            .clone()
            .filter(|c| c.redirect_uri == redirect && c.issuer == issuer)
        {
            request = request.with_preregistered_client(kept.id.clone());
            if let Some(secret) = &kept.secret {
                request = request.with_client_secret(secret.clone());
            }
            (client_id, client_secret) = (kept.id.clone(), kept.secret.clone());
            registered = Some(kept);
        } else if can_register {
            let scope_refs: Vec<&str> = wanted.iter().map(String::as_str).collect();
            let config = manager
                .register_client("Switchboard", &redirect, &scope_refs)
                .await
                .map_err(|e| {
                    UpstreamError::Unauthorized(format!("client registration failed: {e}"))
                })?;
            let kept = RegisteredClient {
                id: config.client_id.clone(),
                secret: config.client_secret.clone(),
                redirect_uri: redirect.clone(),
                issuer: issuer.clone(),
            };
            // Kept at once: the next flow (a restart, a reauthorize, a step-up) reuses it
            // instead of registering again.
            let keep = kept.clone();
            home.update_guarded(|r| r.client = Some(keep))
                .await
                .map_err(auth_failed)?;
            request = request.with_preregistered_client(kept.id.clone());
            if let Some(secret) = &kept.secret {
                request = request.with_client_secret(secret.clone());
            }
            (client_id, client_secret) = (kept.id.clone(), kept.secret.clone());
            registered = Some(kept);
        } else {
            return Err(UpstreamError::Unauthorized(
                "the authorization server offers no client registration; register a client there and set auth.clientId (and clientSecret)".into(),
            ));
        }
        let pkce = CapturedState::default();
        manager.set_state_store(pkce.clone());
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, e)| auth_failed(e))?;
        let authorize_url = session.auth_url.clone();
        // It is shown to people and opened in browsers: nothing but a web address.
        if !matches!(
            url::Url::parse(&authorize_url)
                .map(|u| u.scheme().to_string())
                .as_deref(),
            Ok("https" | "http")
        ) {
            return Err(UpstreamError::Unauthorized(format!(
                "the authorization server's authorize endpoint is not a web address: {authorize_url:?}"
            )));
        }
        let state = url::Url::parse(&authorize_url)
            .ok()
            .and_then(|u| {
                u.query_pairs()
                    .find(|(k, _)| k == "state")
                    .map(|(_, v)| v.into_owned())
            })
            .ok_or_else(|| UpstreamError::Unauthorized("the authorize URL has no state".into()))?;
        // Kept in the store too, so any replica (or this one after a restart) can finish it.
        let mut shared = false;
        if let Some(pkce) = pkce.take() {
            let saved = SavedFlow {
                key: credentials.key.clone(),
                server: spec.name.to_string(),
                origin: spec.origin.clone(),
                url: url.to_string(),
                redirect_uri: redirect.clone(),
                client_id,
                client_secret,
                registered: registered.clone(),
                started_ms: now_ms(),
                pkce,
                challenge: challenge.filter(|c| !c.is_empty()).map(String::from),
                metadata: Some(metadata.clone()),
            };
            let json =
                serde_json::to_string(&saved).map_err(|e| auth_failed_text(e.to_string()))?;
            match ctx.tokens.save_flow(&flow_key(&state), &json).await {
                Ok(kept) => shared = kept,
                Err(e) => {
                    tracing::warn!(server = %spec.name, "the flow is not shared with other replicas: {e}")
                }
            }
        }
        let mut flows = self.0.lock();
        flows.retain(|_, p| p.started.elapsed() < FLOW_LIFETIME);
        if flows.len() >= MAX_FLOWS
            && let Some(oldest) = flows
                .iter()
                .min_by_key(|(_, p)| p.started)
                .map(|(k, _)| k.clone())
        {
            flows.remove(&oldest);
        }
        flows.insert(
            state,
            Pending {
                key: credentials.key.clone(),
                metadata,
                credentials: credentials.clone(),
                server: spec.name.to_string(),
                origin: spec.origin.clone(),
                session,
                client: registered,
                shared,
                started: Instant::now(),
            },
        );
        Ok(authorize_url)
    }

    /// Finishes the flow `state` belongs to with `code` (once): the tokens are saved. A flow
    /// begun by another replica (or before a restart) is finished from the store.
    pub async fn complete(
        &self,
        state: &str,
        code: &str,
        issuer: Option<&str>,
        http: &UpstreamHttp,
        ctx: &OAuthContext,
    ) -> Result<AuthorizationDone, FlowError> {
        let pending = self
            .0
            .lock()
            .remove(state)
            .filter(|p| p.started.elapsed() < FLOW_LIFETIME);
        let Some(pending) = pending else {
            return finish_saved(state, code, issuer, http, ctx, FLOW_LIFETIME).await;
        };
        // Used here: no other replica may use it again (and if one did, it is used up).
        match ctx.tokens.take_flow(&flow_key(state)).await {
            Ok(None) if pending.shared => return Err(FlowError::UnknownState),
            Ok(_) => {}
            // Unsure whether another replica may still use it: refuse rather than use it twice.
            Err(e) if pending.shared => return Err(FlowError::Exchange(e)),
            Err(e) => tracing::warn!("cannot forget a finished flow: {e}"),
        }
        pending
            .session
            .handle_callback_with_issuer(code, state, issuer)
            .await
            .map_err(|e| FlowError::Exchange(e.to_string()))?;
        keep_client(&pending.credentials, pending.client, pending.metadata).await?;
        Ok(AuthorizationDone {
            key: pending.key,
            server: pending.server,
            origin: pending.origin,
        })
    }

    /// Forgets the flow `state` belongs to (the authorization server sent an error back),
    /// here and in the store.
    pub async fn cancel(&self, state: &str, ctx: &OAuthContext) -> Option<AuthorizationDone> {
        if let Err(e) = ctx.tokens.take_flow(&flow_key(state)).await {
            tracing::warn!("cannot forget a refused flow: {e}");
        }
        let pending = self.0.lock().remove(state)?;
        Some(AuthorizationDone {
            key: pending.key,
            server: pending.server,
            origin: pending.origin,
        })
    }
}

fn http_oauth(spec: &ServerSpec) -> Option<&OAuthSpec> {
    match &spec.transport {
        switchboard_core::Transport::Http(http) => http.oauth.as_ref(),
        switchboard_core::Transport::Stdio(_) => None,
    }
}
