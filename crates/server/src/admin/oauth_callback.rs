//! `GET /oauth/callback/{server}`: where an authorization server sends the browser back; the
//! code is exchanged for tokens (state checked, single use) and the server reconnected.

use crate::control_plane::ControlPlane;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;
use switchboard_registry::Registry;

#[derive(Clone)]
pub(crate) struct CallbackState {
    pub registry: Registry,
    pub control: Option<ControlPlane>,
}

/// `GET /oauth/callback/{server}`: config-file servers of `registry`, and the orgs' API
/// servers when `control` is given.
pub(crate) fn router(registry: Registry, control: Option<ControlPlane>) -> axum::Router {
    axum::Router::new()
        .route("/oauth/callback/{server}", axum::routing::get(finish))
        .with_state(CallbackState { registry, control })
}

#[derive(Debug, Deserialize)]
pub(crate) struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    iss: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

fn page(status: StatusCode, title: &str, text: &str) -> Response {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>{t}</title><h1>{t}</h1><p>{x}</p>",
        t = escape(title),
        x = escape(text)
    );
    let csp = (
        axum::http::header::CONTENT_SECURITY_POLICY,
        "default-src 'none'",
    );
    (status, [csp], Html(body)).into_response()
}

/// A callback that did not finish: the page says why, and a config-file server waiting for
/// it shows why too (so `switchboard auth login` and the dashboard stop waiting).
async fn failed(cb: &CallbackState, server: &str, state: &str, title: &str, why: &str) -> Response {
    cb.registry.authorization_failed(server, state, why);
    page(
        StatusCode::BAD_REQUEST,
        title,
        &format!("{why}. Reauthorize {server} to try again."),
    )
}

pub(crate) async fn finish(
    State(cb): State<CallbackState>,
    Path(server): Path<String>,
    Query(q): Query<CallbackQuery>,
    headers: axum::http::HeaderMap,
) -> Response {
    let Some(oauth) = cb.registry.oauth() else {
        return page(
            StatusCode::NOT_FOUND,
            "Not available",
            "this gateway runs no OAuth flows",
        );
    };
    let Some(state) = q.state.as_deref() else {
        return page(
            StatusCode::BAD_REQUEST,
            "Authorization failed",
            "the callback has no state parameter; start again from the server's authorize URL",
        );
    };
    // An end user's authorization (from a consent page) comes back only to its browser.
    let end_user_flow = match &cb.control {
        Some(control) => match control.consent_flow(state).await {
            Ok(flow) => flow.map(|flow| (control, flow)),
            Err(e) => {
                tracing::warn!("cannot read a consent's authorization: {e:?}");
                None
            }
        },
        None => None,
    };
    if let Some((control, flow)) = &end_user_flow
        && let Some(refused) = super::consent_oauth::refused_elsewhere(state, flow, &headers)
    {
        oauth.flows.cancel(state, oauth).await;
        control.forget_consent_flow(state).await;
        return refused;
    }
    if let Some(error) = &q.error {
        oauth.flows.cancel(state, oauth).await;
        if let Some((control, _)) = &end_user_flow {
            control.forget_consent_flow(state).await;
            let detail = q.error_description.as_deref().unwrap_or("");
            let why = format!(
                "the authorization server answered {error}: {detail}. Open the consent link again to retry"
            );
            return page(StatusCode::BAD_REQUEST, "Authorization refused", &why);
        }
        let detail = q.error_description.as_deref().unwrap_or("");
        return failed(
            &cb,
            &server,
            state,
            "Authorization refused",
            &format!("the authorization server answered {error}: {detail}"),
        )
        .await;
    }
    let Some(code) = q.code.as_deref() else {
        return page(
            StatusCode::BAD_REQUEST,
            "Authorization failed",
            "the callback has no code",
        );
    };
    let done = match cb
        .registry
        .complete_authorization(state, code, q.iss.as_deref())
        .await
    {
        Ok(done) => done,
        Err(e) if end_user_flow.is_some() => {
            let why = format!("{e}. Open the consent link again to retry");
            return page(StatusCode::BAD_REQUEST, "Authorization failed", &why);
        }
        Err(e) => {
            return failed(&cb, &server, state, "Authorization failed", &e.to_string()).await;
        }
    };
    if let Some((control, flow)) = &end_user_flow {
        return super::consent_oauth::granted(control, state, flow).await;
    }
    // An end user's tokens without the consent that began them belong to nobody.
    if done.key.starts_with("eu:") {
        if let Err(e) = oauth.tokens.delete(&done.key).await {
            tracing::warn!("cannot drop tokens no consent asked for: {e}");
        }
        let why = "this authorization belongs to no consent link: open the link your agent gave you again";
        return page(StatusCode::BAD_REQUEST, "Authorization failed", why);
    }
    let info = match (done.origin.strip_prefix("api:"), &cb.control) {
        (Some(row_id), Some(control)) => control.reconnect_row(&done.server, row_id).await,
        (_, control) => {
            let info = cb.registry.refresh(&done.server).await;
            // The tokens are in the shared store: the other replicas connect with them too.
            if let Some(control) = control {
                control
                    .announce_config(&done.server, switchboard_store::ChangeKind::Refreshed)
                    .await;
            }
            info.map(|i| (i.status.to_string(), i.last_error))
        }
    };
    match info {
        Some((status, None)) => page(
            StatusCode::OK,
            "Authorized",
            &format!("{} is {status}. You can close this window.", done.server),
        ),
        Some((status, Some(error))) => page(
            StatusCode::OK,
            "Authorized, but the server is not ready",
            &format!("{} is {status}: {error}", done.server),
        ),
        None => page(
            StatusCode::OK,
            "Authorized",
            &format!(
                "the tokens of {} are saved; it is no longer configured here",
                done.server
            ),
        ),
    }
}
