//! The consent page an end user reaches from a consent link (`{public_url}/consent/{id}`): it
//! first establishes who the person is (a sign-in with the org's provider), refuses anyone but
//! the end user the link was made for, and only then takes their key for the server.

use crate::control_plane::consents::{Consent, ConsentError};
use crate::control_plane::people::{self, Person};
use crate::control_plane::{ApiError, ControlPlane};
use axum::Router;
use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

/// The consent routes, when people can sign in (without a sign-in no link is made).
pub(crate) fn router(control: Option<ControlPlane>, signs_in: bool) -> Router {
    match (control, signs_in) {
        (Some(control), true) => Router::new()
            .route("/consent/{id}", get(show).post(submit))
            .with_state(control),
        _ => Router::new(),
    }
}

/// `GET /consent/{id}`: to the sign-in first; then, for the right person, the form.
async fn show(
    State(c): State<ControlPlane>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let (consent, person) = match bound(&c, &id, &headers).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    if c.registry_of(&owner_of(&consent))
        .authorized_per_end_user(&consent.server)
    {
        return super::consent_oauth::show(&consent, &person);
    }
    let server = escape(&consent.server);
    let body = format!(
        "<h1>Give {server} your key</h1>\
         <p>An agent acting for you ({user}) needs your own credential for <b>{server}</b>. \
         It is kept sealed by the gateway, sent only to {server} on your calls, and never shown again. \
         You can revoke it at any time.</p>\
         <form method=post><input type=hidden name=csrf value=\"{csrf}\">\
         <label>Key or token for {server} <input type=password name=secret required autocomplete=off autofocus></label> \
         <button type=submit>Save</button></form>",
        user = escape(&consent.end_user),
        csrf = escape(&person.csrf),
    );
    page(
        StatusCode::OK,
        &format!("Give {} your key", consent.server),
        &body,
    )
}

#[derive(Deserialize)]
struct Submitted {
    /// The key typed (absent on an OAuth server's page, which only continues).
    #[serde(default)]
    secret: Option<String>,
    csrf: String,
}

/// The owner key of the server a consent is for.
fn owner_of(consent: &Consent) -> String {
    (switchboard_core::GrantKey::parse(&consent.key)).map_or_else(String::new, |k| k.owner)
}

/// `POST /consent/{id}`: the right person's key, stored as their grant; the link is used up.
async fn submit(
    State(c): State<ControlPlane>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Form(form): Form<Submitted>,
) -> Response {
    let (consent, person) = match bound(&c, &id, &headers).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let same = crate::edge::callers::constant_time_eq(form.csrf.as_bytes(), person.csrf.as_bytes());
    if !same {
        let why = "this form was not sent by the consent page: open the link again";
        return message(StatusCode::FORBIDDEN, "Refused", why);
    }
    if c.registry_of(&owner_of(&consent))
        .authorized_per_end_user(&consent.server)
    {
        return super::consent_oauth::begin(&c, &id, &consent, &person).await;
    }
    let Some(secret) = form.secret else {
        return message(StatusCode::BAD_REQUEST, "Not saved", "the form sent no key");
    };
    match c.grant_by_consent(&id, &consent, &person, &secret).await {
        Ok(()) => message(
            StatusCode::OK,
            "Saved",
            &format!(
                "{} can now act as you. You can close this window: your agent goes on.",
                consent.server
            ),
        ),
        Err(ApiError::Invalid(why)) => message(StatusCode::BAD_REQUEST, "Not saved", &why),
        Err(e) => {
            tracing::warn!("a consent could not be saved: {e:?}");
            message(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Not saved",
                "the gateway could not save your key: try the link again",
            )
        }
    }
}

/// The consent `id` names and the signed-in person it was made for; anything else is the
/// page that says why (a sign-in first, when nobody is signed in).
async fn bound(
    c: &ControlPlane,
    id: &str,
    headers: &HeaderMap,
) -> Result<(Consent, Person), Response> {
    let consent = match c.consent(id).await {
        Ok(consent) => consent,
        Err(ConsentError::Gone) => {
            let why =
                "This link expired or was already used. Ask your agent again: it makes a new one.";
            return Err(message(StatusCode::GONE, "Link expired", why));
        }
        Err(ConsentError::Store(e)) => {
            tracing::warn!("cannot read a consent: {e}");
            let why = "The gateway cannot read this link now: try again shortly.";
            return Err(message(StatusCode::SERVICE_UNAVAILABLE, "Try again", why));
        }
    };
    let signed_in = match people::session_cookie(headers) {
        Some(session) => c.person(&session).await.ok(),
        None => None,
    };
    let Some(person) = signed_in else {
        // Through the issuer of the token whose call made the link, when it offers sign-in.
        let offers = |iss: &&String| {
            (c.resource.as_ref()).is_some_and(|r| r.issuers().sign_in_issuers().contains(iss))
        };
        let through = match consent.issuer.as_ref().filter(offers) {
            Some(issuer) => {
                let issuer: String =
                    url::form_urlencoded::byte_serialize(issuer.as_bytes()).collect();
                format!("issuer={issuer}&")
            }
            None => String::new(),
        };
        let then = format!("/auth/login?{through}then=/consent/{id}");
        return Err((StatusCode::SEE_OTHER, [(header::LOCATION, then)]).into_response());
    };
    if person.org_id != consent.org_id || person.end_user.as_deref() != Some(&consent.end_user) {
        tracing::warn!(
            person = %person.principal,
            "a consent link was opened by someone it was not made for"
        );
        let why = format!(
            "This link was made for another person, and you are signed in as {}. Only the person the agent acts for can grant access; sign out and open it as them.",
            person.principal
        );
        return Err(message(StatusCode::FORBIDDEN, "Not your link", &why));
    }
    Ok((consent, person))
}

pub(super) fn message(status: StatusCode, title: &str, text: &str) -> Response {
    page(
        status,
        title,
        &format!("<h1>{}</h1><p>{}</p>", escape(title), escape(text)),
    )
}

/// A page that no other site may frame, script or read back (the link's id stays out of
/// referrers, and nothing is cached).
pub(super) fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><meta charset=utf-8><meta name=viewport content=\"width=device-width\">\
         <title>{}</title><body style=\"font-family:sans-serif;max-width:36em;margin:3em auto\">{body}",
        escape(title)
    );
    let headers = [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        ),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ];
    (status, headers, Html(html)).into_response()
}

pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
