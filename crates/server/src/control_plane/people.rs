//! People signed in through an issuer (`admin::sign_in`): their sessions, kept in the store so
//! every replica knows them and a sign-out ends one everywhere at once. The browser holds only
//! a random session id (an HttpOnly cookie); the store holds its hash.

use super::ControlPlane;
use super::callers::ApiCaller;
use crate::control_plane::ApiError;
use serde::{Deserialize, Serialize};
use switchboard_store::{ApiToken, hash_api_token};

/// The cookie that carries a person's session id.
pub(crate) const COOKIE: &str = "sb_session";
/// The header a signed-in page sends its session's CSRF token in, on every change it asks.
pub(crate) const CSRF_HEADER: &str = "x-switchboard-csrf";
/// How long a sign-in lasts.
pub(crate) const LIFETIME_MS: i64 = 8 * 3600 * 1000;

/// One person's session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Person {
    /// `issuer#sub`.
    pub(crate) principal: String,
    pub(crate) org_id: String,
    pub(crate) roles: Vec<String>,
    /// The end user the issuer's claims map the person to (`claims.end_user`): who may
    /// answer a consent link.
    #[serde(default)]
    pub(crate) end_user: Option<String>,
    /// Sent back by the page on changes (never in a cookie).
    pub(crate) csrf: String,
    pub(crate) expires_at_ms: i64,
}

fn key(session: &str) -> String {
    format!("people/{}", hash_api_token(session))
}

impl ControlPlane {
    /// Saves a new session of `person`; its id, for the cookie.
    pub(crate) async fn sign_in_person(&self, person: &Person) -> Result<String, ApiError> {
        let session = switchboard_identity::sign_in::secret();
        let json = serde_json::to_string(person).map_err(|e| ApiError::Internal(e.to_string()))?;
        self.store.save_session(&key(&session), &json).await?;
        Ok(session)
    }

    /// Ends a session on every replica.
    pub(crate) async fn sign_out_person(&self, session: &str) -> Result<(), ApiError> {
        Ok(self.store.delete_session(&key(session)).await?)
    }

    /// The live session `session`, or `unauthenticated`.
    pub(crate) async fn person(&self, session: &str) -> Result<Person, ApiError> {
        let gone = || {
            ApiError::Unauthenticated("your sign-in has ended: sign in again (/auth/login)".into())
        };
        let json = self
            .store
            .load_session(&key(session))
            .await?
            .ok_or_else(gone)?;
        let person: Person = serde_json::from_str(&json).map_err(|_| gone())?;
        if person.expires_at_ms < switchboard_store::now_ms() {
            return Err(gone());
        }
        Ok(person)
    }

    /// The API caller a person's session stands for: their org, with their roles.
    pub(crate) async fn caller_for_person(&self, session: &str) -> Result<ApiCaller, ApiError> {
        let person = self.person(session).await?;
        let org = (self.store.org(&person.org_id).await?)
            .ok_or_else(|| ApiError::Unauthenticated("your org no longer exists".into()))?;
        let token = ApiToken {
            id: format!("person:{}", person.principal),
            org_id: org.id.clone(),
            roles: person.roles.clone(),
            created_at: 0,
            revoked_at: None,
            expires_at: None,
        };
        Ok(ApiCaller {
            org,
            token,
            csrf: Some(person.csrf),
            end_user: None,
            person_end_user: person.end_user,
            inbound: None,
        })
    }
}

/// The session id a request's cookies carry.
pub(crate) fn session_cookie(headers: &axum::http::HeaderMap) -> Option<String> {
    cookie_named(headers, COOKIE)
}

/// The value of the cookie `wanted` a request carries.
pub(crate) fn cookie_named(headers: &axum::http::HeaderMap, wanted: &str) -> Option<String> {
    (headers.get_all(axum::http::header::COOKIE).iter())
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == wanted)
        .map(|(_, value)| value.to_string())
}
