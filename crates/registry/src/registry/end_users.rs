//! Calls to per-end-user servers: whose credential a call may use, the end user's own
//! session, and what a changed grant does to the sessions and to a server waiting for one.

use super::Registry;
use crate::GrantWait;
use crate::entry::ServerEntry;
use std::collections::HashMap;
use std::sync::Arc;
use switchboard_core::end_user::untrusted_end_user;
use switchboard_core::{CallError, EndUserGrants, ErrorKind, Grant, GrantKey, ServerStatus};
use switchboard_upstream::{CallOptions, Connection, UpstreamError};
use tokio::sync::broadcast::error::RecvError;

/// The issuer of the caller's access token (`issuer#subject`): where the person signs in.
pub(super) fn token_issuer(caller: &switchboard_core::Caller) -> Option<&str> {
    (caller.subject.as_deref())
        .and_then(|s| s.split_once('#'))
        .map(|(issuer, _)| issuer)
}

fn unavailable(message: String) -> CallError {
    CallError::new(ErrorKind::AuthUnavailable, message)
}

impl Registry {
    /// The session of the call's end user with per-end-user `entry`, and the key its grant is
    /// stored under; never a shared session, and `auth_unavailable` naming what is missing
    /// when the call has no end user it may act as, or that user no credential.
    pub(super) async fn end_user_connection(
        &self,
        entry: &ServerEntry,
        opts: &CallOptions,
    ) -> Result<(Arc<Connection>, String, Arc<Grant>), CallError> {
        let server = entry.spec.name.as_str();
        let each = (entry.spec.end_user_credentials.as_ref())
            .ok_or_else(|| unavailable(format!("server {server} is not per end user")))?;
        let user = opts.end_user_id.as_deref();
        if let Some(why) = untrusted_end_user(server, each, &opts.caller, user) {
            return Err(unavailable(why));
        }
        let user = user.unwrap_or_default();
        let key = GrantKey::for_call(&opts.caller, user, &self.inner.owner, server);
        let store_key = key.store_key();
        let grant = match each.exchange {
            true => self.exchanged(entry, opts, &store_key).await?,
            false => self.stored_grant(&key, &store_key, opts).await?,
        };
        (opts.relay_notes).note("credentials", format!("grant {}", grant.id));
        let sessions = &self.inner.end_user_sessions;
        let slot = sessions.slot(&entry.spec, &store_key, &grant)?;
        let connect = &self.inner.connect;
        match (sessions.connection(slot, &entry.spec, connect, (&store_key, &grant))).await {
            Ok(conn) => Ok((conn, store_key, grant)),
            Err(e) => {
                let failed = (user, store_key.as_str(), grant.as_ref());
                let issuer = token_issuer(&opts.caller);
                Err(self.end_user_failed(entry, failed, e, issuer).await)
            }
        }
    }

    /// The end user's grant kept in the store under `store_key`; a consent link (or what
    /// sets one) when there is none.
    async fn stored_grant(
        &self,
        key: &GrantKey,
        store_key: &str,
        opts: &CallOptions,
    ) -> Result<Arc<Grant>, CallError> {
        let (server, user) = (key.server.as_str(), key.end_user.as_str());
        let Some(grants) = &self.inner.grants else {
            return Err(unavailable(format!(
                "server {server} uses each end user's own credential, and this gateway keeps none (no store): run it with `switchboard serve`"
            )));
        };
        let grant = grants.grant(store_key).await.map_err(|e| {
            CallError::new(
                ErrorKind::TransportError,
                format!("cannot read end user {user:?}'s credential for server {server}: {e}"),
            )
        })?;
        match grant {
            Some(grant) => Ok(grant),
            None => {
                self.inner.end_user_sessions.close(server, store_key);
                let issuer = token_issuer(&opts.caller);
                Err(self.ask_consent(grants.as_ref(), key, issuer).await)
            }
        }
    }

    /// The caller's own access token exchanged for the upstream (`token_exchange`), kept
    /// per end user until the earlier expiry.
    async fn exchanged(
        &self,
        entry: &ServerEntry,
        opts: &CallOptions,
        store_key: &str,
    ) -> Result<Arc<Grant>, CallError> {
        let server = entry.spec.name.as_str();
        let Some(inbound) = &opts.caller.inbound else {
            return Err(unavailable(format!(
                "server {server} exchanges the caller's own access token, and this call came with none: call with the end user's access token"
            )));
        };
        let Some(exchange) = self.inner.exchange.get() else {
            return Err(unavailable(format!(
                "server {server} exchanges callers' access tokens, and no issuer here may: add token_exchange = {{ client_id = …, client_secret = … }} to the issuer's [[identity.issuers]] entry"
            )));
        };
        let switchboard_core::Transport::Http(http) = &entry.spec.transport else {
            return Err(unavailable(format!(
                "server {server} is not a remote server"
            )));
        };
        (exchange.exchange(store_key, inbound, &http.url).await).map_err(|e| {
            unavailable(format!(
                "{} refused to exchange the caller's token for server {server}: {e}",
                inbound.issuer
            ))
        })
    }

    /// `key`'s end user has no grant: a consent link for them where one can be made (a
    /// `-32042` error carrying it), else what sets one.
    async fn ask_consent(
        &self,
        grants: &dyn EndUserGrants,
        key: &GrantKey,
        issuer: Option<&str>,
    ) -> CallError {
        let (server, user) = (key.server.as_str(), key.end_user.as_str());
        match grants.ask_consent(key, issuer).await {
            Ok(Some(link)) => return switchboard_core::consent_required(server, user, &link),
            Ok(None) => {}
            Err(e) => tracing::warn!(server, "cannot make a consent link: {e}"),
        }
        unavailable(format!(
            "end user {user:?} has no credential for server {server}: set one with `switchboard end-users set-key --end-user {user} --server {server}` or PUT /api/end-users/{{end_user}}/credentials/{server}"
        ))
    }

    /// The store key of the grant the live consent `id` asks for (`None`: unknown, used,
    /// expired, or unreadable now), from the store, so any replica can wait for it.
    pub async fn consent_grant_key(&self, id: &str) -> Option<String> {
        let grants = self.inner.grants.as_ref()?;
        match grants.consent_key(id).await {
            Ok(key) => key,
            Err(e) => {
                tracing::warn!("cannot read a consent link: {e}");
                None
            }
        }
    }

    /// Waits until the grant kept as `store_key` is there, or `until`: a grant change heard
    /// here (any replica's, by its notice) looks again at once; each call reads it once.
    pub async fn await_grant(&self, store_key: &str, until: tokio::time::Instant) -> GrantWait {
        let Some(grants) = &self.inner.grants else {
            return GrantWait::NotYet;
        };
        let mut changed = self.inner.consent_waits.subscribe();
        loop {
            if let Ok(Some(_)) = grants.grant(store_key).await {
                return GrantWait::Arrived;
            }
            loop {
                tokio::select! {
                    heard = changed.recv() => match heard {
                        Ok(k) if k == store_key => break,
                        Ok(_) => {}
                        Err(RecvError::Lagged(_)) => break,
                        Err(RecvError::Closed) => return GrantWait::NotYet,
                    },
                    _ = tokio::time::sleep_until(until) => return GrantWait::NotYet,
                }
            }
        }
    }

    /// How long a call waits for its end user's consent (`[limits] consent_timeout_secs`).
    pub fn consent_timeout(&self) -> std::time::Duration {
        let secs = self.inner.connect.limits.consent_timeout_secs.clamp(1, 600);
        std::time::Duration::from_secs(secs as u64)
    }

    /// A failure on an end user's own session, as the caller hears it (the user's secret
    /// hidden like the server's): refused credentials name the user and the fix (and close
    /// the session), lost connections close it too. Refused OAuth tokens that cannot be
    /// refreshed are dropped, and the end user is asked to authorize again.
    pub(super) async fn end_user_failed(
        &self,
        entry: &ServerEntry,
        (user, store_key, grant): (&str, &str, &Grant),
        e: UpstreamError,
        issuer: Option<&str>,
    ) -> CallError {
        let server = entry.spec.name.as_str();
        let refused = e.kind() == ErrorKind::AuthUnavailable;
        if refused || e.connection_lost() {
            self.inner.end_user_sessions.close(server, store_key);
        }
        // Refused for good (not a missing scope, not a store or network failure).
        let for_good = matches!(
            e,
            UpstreamError::Unauthorized(_)
                | UpstreamError::Challenged {
                    insufficient_scope: false,
                    ..
                }
        );
        let error = entry.call_error_hiding(e, Some(&grant.secret));
        let oauth = (entry.spec.end_user_credentials.as_ref()).is_some_and(|each| each.oauth);
        match (refused, oauth) {
            (true, true) if !for_good => error,
            (true, true) => {
                let why = format!(
                    "server {server} refused end user {user:?}'s tokens and they could not be refreshed ({})",
                    error.message
                );
                Box::pin(self.end_user_oauth_refused((store_key, &grant.id), why, issuer)).await
            }
            (true, false) => unavailable(format!(
                "server {server} refused end user {user:?}'s credential ({}): set a new one with `switchboard end-users set-key --end-user {user} --server {server}`",
                error.message
            )),
            (false, _) => error,
        }
    }

    /// An end user's OAuth grant the upstream refused for good: removed (audited, told to
    /// every replica), and the call answers with a new consent link where one can be made.
    async fn end_user_oauth_refused(
        &self,
        (store_key, grant_id): (&str, &str),
        why: String,
        issuer: Option<&str>,
    ) -> CallError {
        let (Some(grants), Some(key)) = (&self.inner.grants, GrantKey::parse(store_key)) else {
            return unavailable(why);
        };
        tracing::warn!(grant = store_key, "{why}; asking the end user again");
        if let Err(e) = grants.refused(store_key, grant_id, &why).await {
            tracing::warn!("cannot drop a refused grant: {e}");
        }
        self.end_user_grant_changed(store_key);
        match self.ask_consent(grants.as_ref(), &key, issuer).await {
            consent if consent.code == Some(switchboard_core::consent::URL_REQUIRED) => consent,
            _ => unavailable(format!(
                "{why}: the end user authorizes it again from a consent link, which this gateway cannot make (no public URL or sign-in)"
            )),
        }
    }

    /// A per-end-user server was replaced or removed: its end users' sessions close (they
    /// reach the server as it was), and grants are read from the store again.
    pub(super) fn end_user_server_gone(&self, spec: &switchboard_core::ServerSpec) {
        if spec.end_user_credentials.is_none() {
            return;
        }
        self.inner
            .end_user_sessions
            .close_server(spec.name.as_str());
        if let Some(grants) = &self.inner.grants {
            grants.forget(None);
        }
    }

    /// End users' sessions open per server now.
    pub fn end_user_sessions(&self) -> HashMap<String, usize> {
        self.inner.end_user_sessions.open_per_server()
    }

    /// A grant changed here, on another replica or from the CLI: its session closes, and it is
    /// read again at its next use; a server that lists its tools with it (no discovery credential) lists them again
    /// with the grant in force now (never a revoked or replaced secret).
    pub fn end_user_grant_changed(&self, store_key: &str) {
        if let Some(grants) = &self.inner.grants {
            grants.forget(Some(store_key));
        }
        // The session opened with the old grant ends now (a stdio server's process stops),
        // not at the user's next call.
        if let Some(key) = GrantKey::parse(store_key) {
            self.inner.end_user_sessions.close(&key.server, store_key);
        }
        self.inner.consent_waits.changed(store_key);
        let listing: Vec<_> = (self.inner.servers.read().iter())
            .filter(|e| (e.state().discovery_grant.as_ref()).is_some_and(|g| g.key == store_key))
            .cloned()
            .collect();
        for entry in listing {
            let registry = self.clone();
            tokio::spawn(async move {
                entry.close().await;
                entry.state().discovery_grant = None;
                registry.start(&entry).await;
                registry.rebuild();
            });
        }
    }

    /// An end user was granted `server`: a server of this registry that waits for its first
    /// grant to list its tools (no discovery credential) starts now.
    pub async fn end_user_granted(&self, server: &str) {
        let Some(entry) = self.entry(server) else {
            return;
        };
        if entry.spec.end_user_credentials.is_some() && entry.status() != ServerStatus::Ready {
            self.start(&entry).await;
            self.rebuild();
        }
    }

    /// Before a per-end-user server starts: what its shared connection (used to list its
    /// tools, never for a call) opens with. Its discovery credential, else the most recently
    /// used end user's grant; `false` with neither, and it waits in `authenticating` saying so.
    pub(super) async fn prepare_end_user_server(&self, entry: &ServerEntry) -> bool {
        if entry.spec.has_discovery_credential() {
            return true;
        }
        let server = entry.spec.name.as_str();
        let found = match &self.inner.grants {
            Some(grants) => grants.any_for_server(&self.inner.owner, server).await,
            None => Ok(None),
        };
        let mut state = entry.state();
        match found {
            Ok(Some((key, grant))) => {
                state.discovery_grant = Some(crate::entry::DiscoveryGrant {
                    key,
                    id: grant.id.clone(),
                    secret: grant.secret.clone(),
                });
                true
            }
            // An OAuth server lists its tools with its own authorization meanwhile: the
            // operator authorizes it (status shows the URL); no call ever uses it.
            Ok(None)
                if entry
                    .spec
                    .end_user_credentials
                    .as_ref()
                    .is_some_and(|e| e.oauth) =>
            {
                true
            }
            Ok(None) | Err(_) => {
                if let Err(e) = found {
                    tracing::warn!(server, "cannot read end users' grants: {e}");
                }
                state.set_status(ServerStatus::Authenticating);
                state.last_error = Some(format!(
                    "server {server} has no discovery credential and no end user has a credential for it yet: its tools are listed with the first one set (switchboard end-users set-key --end-user USER --server {server}), or give its auth a token or key to list them with"
                ));
                false
            }
        }
    }
}
