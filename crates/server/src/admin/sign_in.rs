//! People sign in to the dashboard and REST with the organisation's OpenID Connect provider:
//! `/auth/login` sends the browser there (authorization code + PKCE), `/auth/callback` trades
//! the code for a verified ID token and opens a session (a Secure, HttpOnly, SameSite cookie),
//! `/auth/logout` ends it on every replica. Roles come from the issuer's claim mapping.

use crate::control_plane::people::{self, COOKIE, CSRF_HEADER, LIFETIME_MS, Person};
use crate::control_plane::{ApiError, ControlPlane};
use crate::edge::identity::ResourceServer;
use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use switchboard_core::ErrorKind;
use switchboard_identity::sign_in::{Pending, secret};
use switchboard_store::{hash_api_token, now_ms};

/// How long a begun sign-in may take.
const PENDING_FOR_MS: i64 = 10 * 60 * 1000;
/// The cookie binding a begun sign-in to the browser that began it (against login CSRF: a
/// callback carrying someone else's code and state is refused).
const BROWSER_COOKIE: &str = "sb_signin";

#[derive(Clone)]
struct SignIn {
    control: ControlPlane,
    resource: ResourceServer,
}

impl SignIn {
    fn redirect_uri(&self) -> String {
        format!("{}/auth/callback", self.resource.public_url())
    }

    fn cookie(&self, value: &str, max_age_secs: i64) -> String {
        self.cookie_named(COOKIE, "/", value, max_age_secs)
    }

    /// The cookie that binds a begun sign-in to this browser (sent back to `/auth` only).
    fn browser_cookie(&self, value: &str, max_age_secs: i64) -> String {
        self.cookie_named(BROWSER_COOKIE, "/auth", value, max_age_secs)
    }

    fn cookie_named(&self, name: &str, path: &str, value: &str, max_age_secs: i64) -> String {
        let secure = match self.resource.public_url().starts_with("https://") {
            true => "; Secure",
            false => "",
        };
        format!(
            "{name}={value}; Path={path}; HttpOnly; SameSite=Lax; Max-Age={max_age_secs}{secure}"
        )
    }
}

/// The sign-in routes, when an issuer has a `sign_in` client and there is a store.
pub(crate) fn router(control: Option<ControlPlane>, resource: Option<ResourceServer>) -> Router {
    let (Some(control), Some(resource)) = (control, resource) else {
        return Router::new();
    };
    if resource.issuers().sign_in_issuers().is_empty() {
        return Router::new();
    }
    Router::new()
        .route("/auth/providers", get(providers))
        .route("/auth/login", get(login))
        .route("/auth/callback", get(callback))
        .route("/auth/logout", post(logout))
        .with_state(SignIn { control, resource })
}

/// `GET /auth/providers`: the issuers people may sign in through (for the dashboard).
async fn providers(State(s): State<SignIn>) -> Response {
    axum::Json(serde_json::json!({ "issuers": s.resource.issuers().sign_in_issuers() }))
        .into_response()
}

#[derive(Deserialize)]
struct LoginQuery {
    issuer: Option<String>,
    /// Where to go once signed in: a consent page only (never another site).
    then: Option<String>,
}

/// `then` when it is a consent page of this gateway (anything else: the dashboard).
fn return_to(then: Option<&str>) -> Option<&str> {
    let id = then?.strip_prefix("/consent/")?;
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    (!id.is_empty() && id.len() <= 128 && id.chars().all(plain)).then_some(then?)
}

/// `GET /auth/login[?issuer=…]`: to the provider's sign-in.
async fn login(State(s): State<SignIn>, Query(q): Query<LoginQuery>) -> Response {
    let issuers = s.resource.issuers().sign_in_issuers();
    let Some(issuer) = q.issuer.or_else(|| issuers.first().cloned()) else {
        return ApiError::NotFound("no issuer offers sign-in".into()).into_response();
    };
    if !issuers.contains(&issuer) {
        let known = issuers.join(", ");
        return ApiError::Invalid(format!("{issuer} offers no sign-in; these do: {known}"))
            .into_response();
    }
    let state = secret();
    let begun = (s.resource.issuers())
        .sign_in_url(&issuer, &s.redirect_uri(), &state)
        .await;
    let (url, pending) = match begun {
        Ok(found) => found,
        Err(e) => {
            let unreachable = format!("cannot reach {issuer}: {e}");
            let failed = switchboard_core::CallError::new(ErrorKind::TransportError, unreachable);
            return ApiError::Call(failed).into_response();
        }
    };
    let browser = secret();
    let saved = serde_json::json!({"pending": pending, "at": now_ms(),
        "browser": hash_api_token(&browser), "then": return_to(q.then.as_deref())})
    .to_string();
    if let Err(e) = s
        .control
        .store
        .save_session(&pending_key(&state), &saved)
        .await
    {
        return ApiError::from(e).into_response();
    }
    let bind = s.browser_cookie(&browser, PENDING_FOR_MS / 1000);
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, url), (header::SET_COOKIE, bind)],
    )
        .into_response()
}

fn pending_key(state: &str) -> String {
    format!("signin/{}", hash_api_token(state))
}

#[derive(Deserialize)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /auth/callback`: the provider's answer; a session, then the dashboard.
async fn callback(
    State(s): State<SignIn>,
    Query(q): Query<CallbackQuery>,
    headers: HeaderMap,
) -> Response {
    let browser = people::cookie_named(&headers, BROWSER_COOKIE);
    match finish(&s, q, browser.as_deref()).await {
        // Two cookies: appended, as a header array would keep only the last.
        Ok((cookie, then)) => (
            StatusCode::SEE_OTHER,
            axum::response::AppendHeaders([
                (header::LOCATION, then),
                (header::SET_COOKIE, cookie),
                (header::SET_COOKIE, s.browser_cookie("", 0)),
            ]),
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

/// The session cookie of a finished sign-in, and where the browser goes next.
async fn finish(
    s: &SignIn,
    q: CallbackQuery,
    browser: Option<&str>,
) -> Result<(String, String), ApiError> {
    if let Some(error) = q.error {
        let detail = q.error_description.unwrap_or_default();
        return Err(ApiError::Unauthenticated(format!(
            "the provider refused the sign-in: {error} {detail}"
        )));
    }
    let (Some(code), Some(state)) = (q.code, q.state) else {
        return Err(ApiError::Invalid(
            "the callback needs code and state".into(),
        ));
    };
    let key = pending_key(&state);
    let saved = s.control.store.load_session(&key).await?;
    s.control.store.delete_session(&key).await?;
    let expired = || {
        ApiError::Unauthenticated(
            "this sign-in expired or was used: start again at /auth/login".into(),
        )
    };
    let saved: serde_json::Value = saved
        .and_then(|j| serde_json::from_str(&j).ok())
        .ok_or_else(expired)?;
    if saved["at"]
        .as_i64()
        .is_none_or(|at| now_ms() - at > PENDING_FOR_MS)
    {
        return Err(expired());
    }
    let begun_here = (saved["browser"].as_str()).is_some_and(|hash| {
        let sent = hash_api_token(browser.unwrap_or_default());
        crate::edge::callers::constant_time_eq(sent.as_bytes(), hash.as_bytes())
    });
    if !begun_here {
        return Err(ApiError::Forbidden(
            "this sign-in was begun in another browser (or this browser did not keep its cookie): start again at /auth/login".into(),
        ));
    }
    let pending: Pending =
        serde_json::from_value(saved["pending"].clone()).map_err(|_| expired())?;
    let person = (s.resource.issuers())
        .finish_sign_in(&pending, &code, &s.redirect_uri())
        .await
        .map_err(|e| {
            tracing::info!(reason = e.reason(), "sign-in refused: {e}");
            ApiError::Unauthenticated(format!("sign-in refused: {e}"))
        })?;
    let Some(org_name) = &person.org else {
        return Err(ApiError::Forbidden(
            "your account maps to no org: map the org claim in the issuer's claims.org".into(),
        ));
    };
    let org = (s.control.store.org_by_name(org_name).await?)
        .ok_or_else(|| ApiError::Forbidden(format!("your org {org_name:?} does not exist here")))?;
    let session = Person {
        principal: person.principal(),
        org_id: org.id,
        roles: person.roles.clone(),
        end_user: person.end_user.clone(),
        csrf: secret(),
        expires_at_ms: now_ms() + LIFETIME_MS,
    };
    let id = s.control.sign_in_person(&session).await?;
    tracing::info!(person = %session.principal, org = %org_name, roles = ?session.roles, "signed in");
    audit(
        s,
        "sign_in",
        &session,
        &format!("roles={}", session.roles.join(",")),
    );
    let then = return_to(saved["then"].as_str()).unwrap_or("/").to_string();
    Ok((s.cookie(&id, LIFETIME_MS / 1000), then))
}

/// `POST /auth/logout`: ends the session everywhere (with its CSRF token).
async fn logout(State(s): State<SignIn>, headers: HeaderMap) -> Response {
    let Some(session) = people::session_cookie(&headers) else {
        return StatusCode::NO_CONTENT.into_response();
    };
    let person = match s.control.person(&session).await {
        Ok(person) => person,
        Err(_) => return StatusCode::NO_CONTENT.into_response(),
    };
    let sent = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
    let matches =
        |s: &str| crate::edge::callers::constant_time_eq(s.as_bytes(), person.csrf.as_bytes());
    if !sent.is_some_and(matches) {
        return ApiError::Forbidden(format!("signing out needs the {CSRF_HEADER} header"))
            .into_response();
    }
    if let Err(e) = s.control.sign_out_person(&session).await {
        return e.into_response();
    }
    tracing::info!(person = %person.principal, "signed out");
    audit(&s, "sign_out", &person, "");
    (
        StatusCode::NO_CONTENT,
        [(header::SET_COOKIE, s.cookie("", 0))],
    )
        .into_response()
}

/// An audit row of a person signing in or out (`identity.sign_in|sign_out`), under the
/// person's id as the token (`person:<issuer>#<sub>`, as their REST changes are).
fn audit(s: &SignIn, action: &str, person: &Person, detail: &str) {
    s.control.audit.record_now(switchboard_store::AuditEntry {
        at: now_ms(),
        org_id: Some(person.org_id.clone()),
        token_id: Some(format!("person:{}", person.principal)),
        action_id: format!("identity.{action}"),
        verdict: "allowed".into(),
        outcome: "ok".into(),
        detail: (!detail.is_empty()).then(|| detail.to_string()),
        ..Default::default()
    });
}

#[cfg(test)]
mod tests {
    use super::return_to;

    #[test]
    fn a_sign_in_returns_only_to_a_consent_page_of_this_gateway() {
        assert_eq!(return_to(Some("/consent/Ab3_-x")), Some("/consent/Ab3_-x"));
        for elsewhere in [
            "https://evil.example/consent/x",
            "//evil.example/consent/x",
            "/consent/",
            "/consent/x/../../api",
            "/consent/x?y=1",
            "/api/me",
        ] {
            assert_eq!(return_to(Some(elsewhere)), None, "{elsewhere}");
        }
        assert_eq!(return_to(None), None);
    }
}
