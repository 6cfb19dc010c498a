//! A consent for a per-end-user OAuth server: the upstream's authorization begun for the one
//! end user a consent link was made for, its `state` bound to the browser that began it, and
//! the grant stored (with the tokens the upstream client saved) when the callback finishes it.

use super::consents::{Consent, record_key};
use super::end_users::grant_audit_entry;
use super::grants::OAUTH;
use super::people::Person;
use super::{ApiError, ControlPlane};
use serde::{Deserialize, Serialize};
use switchboard_core::{GrantKey, Surface};
use switchboard_store::{GrantRow, hash_api_token, now_ms};

/// How long a begun authorization may take to come back (the upstream flow's own limit).
const FLOW_FOR_MS: i64 = 15 * 60 * 1000;

/// A begun end user's authorization, kept until its callback.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ConsentFlow {
    /// The consent link's id (used up when the grant is stored).
    consent_id: String,
    consent: Consent,
    /// The person who began it (`person:<principal>` on the audit row).
    principal: String,
    /// The hash of the browser's cookie value: a callback in another browser is refused.
    browser: String,
    at: i64,
}

impl ConsentFlow {
    pub(crate) fn server(&self) -> &str {
        &self.consent.server
    }
}

/// The cookie that binds the authorization begun with `state` to its browser (its own name
/// per flow, so two authorizations in one browser do not undo each other).
pub(crate) fn browser_cookie_name(state: &str) -> String {
    format!("sb_consent_{}", &hash_api_token(state)[..16])
}

fn flow_key(state: &str) -> String {
    format!("consent-flow/{}", hash_api_token(state))
}

/// The `state` of an authorize URL.
fn state_of(authorize_url: &str) -> Option<String> {
    let url = url::Url::parse(authorize_url).ok()?;
    let state = url.query_pairs().find(|(k, _)| k == "state")?.1;
    Some(state.into_owned())
}

/// What a begun authorization hands the consent page: where the browser goes, and the
/// cookie (name, value) that binds it to this browser.
pub(crate) struct Begun {
    pub(crate) authorize_url: String,
    pub(crate) cookie: (String, String),
}

impl ControlPlane {
    /// Begins `person`'s authorization of the server the consent `id` names (already checked
    /// to be theirs).
    pub(crate) async fn begin_consent_flow(
        &self,
        id: &str,
        consent: &Consent,
        person: &Person,
    ) -> Result<Begun, ApiError> {
        let key = GrantKey::parse(&consent.key)
            .ok_or_else(|| ApiError::Internal(format!("a damaged consent: {}", consent.key)))?;
        let registry = self.registry_of(&key.owner);
        let authorize_url = (registry.begin_end_user_authorization(&key.server, &consent.key))
            .await
            .map_err(|why| {
                ApiError::Invalid(format!(
                    "{} cannot be authorized now: {why}. Ask your agent again later",
                    key.server
                ))
            })?;
        let state = state_of(&authorize_url)
            .ok_or_else(|| ApiError::Internal("the authorize URL has no state".into()))?;
        let nonce = switchboard_identity::sign_in::secret();
        let flow = ConsentFlow {
            consent_id: id.to_string(),
            consent: consent.clone(),
            principal: person.principal.clone(),
            browser: hash_api_token(&nonce),
            at: now_ms(),
        };
        let json = serde_json::to_string(&flow).map_err(|e| ApiError::Internal(e.to_string()))?;
        self.store.save_session(&flow_key(&state), &json).await?;
        Ok(Begun {
            authorize_url,
            cookie: (browser_cookie_name(&state), nonce),
        })
    }

    /// The end user's authorization `state` belongs to, if it is one (else a server's own).
    pub(crate) async fn consent_flow(&self, state: &str) -> Result<Option<ConsentFlow>, ApiError> {
        let found = self.store.load_session(&flow_key(state)).await?;
        let flow = found.and_then(|json| serde_json::from_str::<ConsentFlow>(&json).ok());
        Ok(flow.filter(|f| now_ms() - f.at <= FLOW_FOR_MS))
    }

    /// Whether `cookie` (the browser's value of [`browser_cookie_name`]) is the one the
    /// flow was begun with.
    pub(crate) fn same_browser(flow: &ConsentFlow, cookie: Option<&str>) -> bool {
        let sent = hash_api_token(cookie.unwrap_or_default());
        crate::edge::callers::constant_time_eq(sent.as_bytes(), flow.browser.as_bytes())
    }

    /// Forgets the flow `state` belongs to (refused, or finished).
    pub(crate) async fn forget_consent_flow(&self, state: &str) {
        if let Err(e) = self.store.delete_session(&flow_key(state)).await {
            tracing::warn!("cannot forget a consent's authorization: {e:?}");
        }
    }

    /// The authorization `flow` finished: its tokens are kept under the grant key; the grant
    /// is stored and audited under the person, told to every replica (a waiting call
    /// resumes), and the consent link used up.
    pub(crate) async fn finish_consent_flow(
        &self,
        state: &str,
        flow: &ConsentFlow,
    ) -> Result<GrantRow, ApiError> {
        let consent = &flow.consent;
        let key = GrantKey::parse(&consent.key)
            .ok_or_else(|| ApiError::Internal(format!("a damaged consent: {}", consent.key)))?;
        let sealed = (self.store.load_oauth_tokens(&consent.key).await?).ok_or_else(|| {
            ApiError::Internal("the authorization finished but kept no tokens".into())
        })?;
        let record = self
            .registry_of(&key.owner)
            .oauth_record(&consent.key)
            .await;
        let granted = record.as_ref().and_then(|r| r.credentials.as_ref());
        let row = GrantRow {
            key: consent.key.clone(),
            id: switchboard_store::new_id("grant"),
            org_id: key.org.clone(),
            owner: key.owner.clone(),
            server: key.server.clone(),
            end_user: key.end_user.clone(),
            kind: OAUTH.into(),
            scopes: granted
                .map(|c| c.granted_scopes.clone())
                .unwrap_or_default(),
            issued_at: now_ms(),
            last_used_at: None,
            expires_at: None,
        };
        self.store.save_grant(&row, &sealed).await?;
        let token_id = format!("person:{}", flow.principal);
        let entry = grant_audit_entry(&row, "end_user.grant", Surface::Rest, Some(&token_id));
        self.audit.record_now(entry);
        let registry = self.registry_of(&key.owner);
        self.grant_changed(&row.key, Some(&registry)).await;
        self.store
            .delete_session(&record_key(&flow.consent_id))
            .await?;
        self.forget_consent_flow(state).await;
        Ok(row)
    }
}
