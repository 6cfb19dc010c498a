//! The consent page of a per-end-user OAuth server: the signed-in end user continues to the
//! upstream's own authorization (begun for them alone, bound to this browser by a cookie), and
//! the callback stores their grant, refusing one that comes back in another browser.

use super::consent::{escape, message, page};
use crate::control_plane::consent_flows::{ConsentFlow, browser_cookie_name};
use crate::control_plane::consents::Consent;
use crate::control_plane::people::{self, Person};
use crate::control_plane::{ApiError, ControlPlane};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// `GET /consent/{id}` for an OAuth server: what continuing does, and the button.
pub(super) fn show(consent: &Consent, person: &Person) -> Response {
    let server = escape(&consent.server);
    let body = format!(
        "<h1>Authorize {server}</h1>\
         <p>An agent acting for you ({user}) needs access to <b>{server}</b> as you. \
         You will sign in there and choose what to allow; the tokens it gives are kept sealed \
         by the gateway, sent only to {server} on your calls, and never shown. \
         You can revoke them at any time.</p>\
         <form method=post><input type=hidden name=csrf value=\"{csrf}\">\
         <button type=submit autofocus>Continue to {server}</button></form>",
        user = escape(&consent.end_user),
        csrf = escape(&person.csrf),
    );
    page(
        StatusCode::OK,
        &format!("Authorize {}", consent.server),
        &body,
    )
}

/// `POST /consent/{id}` for an OAuth server: the authorization begun for this person, and
/// the browser sent on to it with the cookie that binds the callback to it.
pub(super) async fn begin(
    c: &ControlPlane,
    id: &str,
    consent: &Consent,
    person: &Person,
) -> Response {
    let begun = match c.begin_consent_flow(id, consent, person).await {
        Ok(begun) => begun,
        Err(ApiError::Invalid(why)) => return message(StatusCode::BAD_GATEWAY, "Not now", &why),
        Err(e) => {
            tracing::warn!("a consent's authorization could not begin: {e:?}");
            let why = "the gateway could not begin the authorization: try the link again";
            return message(StatusCode::INTERNAL_SERVER_ERROR, "Not now", why);
        }
    };
    let secure = match (c.resource.as_ref()).is_some_and(|r| r.public_url().starts_with("https:")) {
        true => "; Secure",
        false => "",
    };
    let (name, value) = &begun.cookie;
    let cookie = format!(
        "{name}={value}; Path=/oauth/callback; HttpOnly; SameSite=Lax; Max-Age=900{secure}"
    );
    // A page that moves on (not a redirect: the page's form-action allows only itself).
    let url = escape(&begun.authorize_url);
    let body = format!(
        "<meta http-equiv=refresh content=\"0;url={url}\">\
         <h1>Continue to {server}</h1><p><a href=\"{url}\">Continue to {server}</a> to sign in there.</p>",
        server = escape(&consent.server)
    );
    let mut response = page(StatusCode::OK, "Continue", &body);
    if let Ok(value) = cookie.parse() {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

/// A callback whose `state` belongs to an end user's authorization: refused in any browser
/// but the one that began it (before the code is used), else `None` and the code may be used.
pub(crate) fn refused_elsewhere(
    state: &str,
    flow: &ConsentFlow,
    headers: &HeaderMap,
) -> Option<Response> {
    let cookie = people::cookie_named(headers, &browser_cookie_name(state));
    if ControlPlane::same_browser(flow, cookie.as_deref()) {
        return None;
    }
    tracing::warn!(
        server = flow.server(),
        "an end user's authorization came back in another browser than the one that began it"
    );
    let why = "This authorization was begun in another browser. Open the consent link your agent gave you, in your own browser, and continue from there.";
    Some(message(StatusCode::FORBIDDEN, "Refused", why))
}

/// The end user's authorization finished (tokens kept): their grant stored; the page says so.
pub(crate) async fn granted(c: &ControlPlane, state: &str, flow: &ConsentFlow) -> Response {
    let clear = format!(
        "{}=; Path=/oauth/callback; HttpOnly; SameSite=Lax; Max-Age=0",
        browser_cookie_name(state)
    );
    let response = match c.finish_consent_flow(state, flow).await {
        Ok(_) => message(
            StatusCode::OK,
            "Authorized",
            &format!(
                "{} can now act as you. You can close this window: your agent goes on.",
                flow.server()
            ),
        ),
        Err(e) => {
            tracing::warn!("an end user's grant could not be saved: {e:?}");
            let why = "the gateway could not save your authorization: open the link again";
            message(StatusCode::INTERNAL_SERVER_ERROR, "Not saved", why)
        }
    };
    ([(header::SET_COOKIE, clear)], response).into_response()
}
