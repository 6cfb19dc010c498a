//! Where a connection's access token comes from, and how a rejected one is renewed.

use super::store::KeyedCredentials;
use oauth2::TokenResponse;
use rmcp::transport::auth::{AuthError, AuthorizationManager, ClientCredentialsConfig};
use std::time::{Duration, SystemTime};
use switchboard_core::SharedClock;

/// Renew a client-credentials token this long before it expires.
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);
/// Refresh a stored token this long before it expires (rmcp's own margin).
const REFRESH_MARGIN_SECS: u64 = 30;

/// How one connection gets tokens.
pub(crate) enum TokenSource {
    /// Stored tokens, refreshed by rmcp's manager (before expiry, and after a 401).
    Refreshing {
        manager: tokio::sync::Mutex<AuthorizationManager>,
        credentials: KeyedCredentials,
    },
    /// The client credentials grant, exchanged again before expiry or after a 401.
    ClientCredentials {
        manager: AuthorizationManager,
        config: ClientCredentialsConfig,
        /// The current token and when (wall time) it stops being usable.
        current: tokio::sync::Mutex<Option<(String, Option<SystemTime>)>>,
        clock: SharedClock,
    },
}

impl TokenSource {
    /// The token to send now; `None` sends the request without one (the server's challenge
    /// then says what it wants).
    pub(crate) async fn token(&self) -> Result<Option<String>, AuthError> {
        match self {
            // Read from the kept record (cached), without the manager's lock: concurrent
            // requests do not queue behind one another. Expiry is the gateway's clock's call;
            // an expired token goes through `renew`, which refreshes it once for everyone.
            TokenSource::Refreshing { credentials, .. } => {
                let record = credentials.shared_record().await?;
                let stored = record.credentials.as_ref();
                let Some(token) = stored.and_then(|c| c.token_response.as_ref()) else {
                    return Ok(None);
                };
                let token = token.access_token().secret().to_string();
                match expired(&record, &credentials.clock) {
                    true => self.renew(&token).await,
                    false => Ok(Some(token)),
                }
            }
            TokenSource::ClientCredentials { clock, .. } => {
                let now = clock.wall();
                self.exchanged_unless(|_, until| until.is_none_or(|u| now < u))
                    .await
            }
        }
    }

    /// Client credentials: the current token if `usable` says so, else a new exchange (one
    /// at a time: callers wait for the exchange in progress).
    async fn exchanged_unless(
        &self,
        usable: impl Fn(&str, Option<SystemTime>) -> bool,
    ) -> Result<Option<String>, AuthError> {
        let TokenSource::ClientCredentials {
            manager,
            config,
            current,
            clock,
        } = self
        else {
            return Ok(None);
        };
        let mut current = current.lock().await;
        if let Some((token, until)) = current.as_ref()
            && usable(token, *until)
        {
            return Ok(Some(token.clone()));
        }
        let fresh = exchange(manager, config, clock).await?;
        *current = Some(fresh.clone());
        Ok(Some(fresh.0))
    }

    /// A new token after `rejected` was refused; `None` when none can be had without a
    /// person (no refresh token, or it was refused).
    pub(crate) async fn renew(&self, rejected: &str) -> Result<Option<String>, AuthError> {
        match self {
            TokenSource::Refreshing {
                manager,
                credentials,
            } => {
                let manager = manager.lock().await;
                // Holding the refresh guard (here and on every replica): another request or
                // replica may have refreshed it meanwhile, so look in the store first.
                credentials
                    .while_guarded(Self::refresh_unless_renewed(
                        &manager,
                        credentials,
                        rejected,
                    ))
                    .await
            }
            // Another request may have exchanged it meanwhile.
            TokenSource::ClientCredentials { .. } => {
                self.exchanged_unless(|token, _| token != rejected).await
            }
        }
    }

    /// Inside the refresh guard: the stored token if someone renewed it since `rejected`,
    /// else a refresh; `None` when only a person can help.
    async fn refresh_unless_renewed(
        manager: &AuthorizationManager,
        credentials: &KeyedCredentials,
        rejected: &str,
    ) -> Result<Option<String>, AuthError> {
        credentials.forget_cached();
        if let Ok(token) = manager.get_access_token().await
            && token != rejected
        {
            return Ok(Some(token));
        }
        match manager.refresh_token().await {
            Ok(response) => Ok(Some(response.access_token().secret().to_string())),
            Err(
                AuthError::AuthorizationRequired
                | AuthError::TokenRefreshRejected(_)
                | AuthError::NoAuthorizationSupport,
            ) => Ok(None),
            Err(AuthError::InternalError(reason)) if reason.contains("not configured") => Ok(None),
            // The kept authorization server may have moved: the next connect finds it again.
            Err(e) => {
                let forgot = credentials
                    .update_guarded(|r| r.authorization_server = None)
                    .await;
                if let Err(store) = forgot {
                    tracing::warn!("cannot forget the kept authorization server: {store}");
                }
                Err(e)
            }
        }
    }
}

/// One client credentials exchange: the token and when (wall time) to stop using it.
async fn exchange(
    manager: &AuthorizationManager,
    config: &ClientCredentialsConfig,
    clock: &SharedClock,
) -> Result<(String, Option<SystemTime>), AuthError> {
    let response = manager.exchange_client_credentials(config).await?;
    let until = response
        .expires_in()
        .map(|lifetime| clock.wall() + lifetime.saturating_sub(EXPIRY_MARGIN));
    Ok((response.access_token().secret().to_string(), until))
}

/// Whether the stored token is (nearly) expired by `clock`'s wall time. A clock set back
/// before the token arrived counts as no time passed (the server's refusal then renews it).
fn expired(record: &super::TokenRecord, clock: &SharedClock) -> bool {
    let Some(stored) = &record.credentials else {
        return false;
    };
    let lifetime = stored.token_response.as_ref().and_then(|t| t.expires_in());
    match (lifetime, stored.token_received_at) {
        (Some(lifetime), Some(received)) => {
            let elapsed = clock.wall_secs().saturating_sub(received);
            lifetime.as_secs().saturating_sub(elapsed) < REFRESH_MARGIN_SECS
        }
        _ => false,
    }
}
