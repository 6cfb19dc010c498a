//! A call whose end user has not yet granted its per-end-user server a credential, from a
//! caller that declared URL-mode elicitation: the caller is sent the consent link, the call
//! waits for the grant (with progress), says `notifications/elicitation/complete`, and runs
//! again from the start (policy and all). Any other caller gets the link in a `-32042` error.

use super::Gateway;
use rmcp::model::{
    ClientResult, CustomNotification, ElicitRequest, ElicitRequestParams, ElicitationAction,
    GetExtensions, InputRequest, InputRequests, InputRequiredResult, InputResponses,
    ProgressNotification, ProgressNotificationParam, ServerNotification, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, RequestContext, RoleServer};
use std::time::Duration;
use switchboard_core::{CallError, ConsentAsked, ErrorKind};
use switchboard_registry::{GrantWait, Registry};
use tokio::time::Instant;

/// How often a waiting call tells its caller it still waits.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

impl Gateway {
    /// Whether this session's caller declared URL-mode elicitation.
    pub(super) fn elicits_urls(&self, ctx: &RequestContext<RoleServer>) -> bool {
        let (caps, _) = self.declared(ctx);
        (caps.elicitation.as_ref()).is_some_and(|e| e.url.is_some())
    }

    /// `Ok` once the end user granted what `error` asks for (run the call again); else what
    /// to answer: a decline, or `error` itself (its link still works) when the caller could
    /// not be asked or the grant did not come within `[limits] consent_timeout_secs`.
    pub(super) async fn consented(
        &self,
        registry: &Registry,
        error: CallError,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(), CallError> {
        let Some(asked) = ConsentAsked::of(&error) else {
            return Err(error);
        };
        // Read once: the link is deleted when used, the grant stays.
        let Some(key) = registry.consent_grant_key(&asked.id).await else {
            return Err(error);
        };
        let timeout = registry.consent_timeout();
        let (started, until) = (Instant::now(), Instant::now() + timeout);
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: asked.message.clone(),
            url: asked.url.clone(),
            elicitation_id: asked.id.clone(),
        };
        let mut request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        request
            .extensions_mut()
            .insert(OriginatingRequestId(ctx.id.clone()));
        let mut ask = std::pin::pin!(ctx.peer.send_request(request));
        let mut answered = false;
        loop {
            let step = (Instant::now() + PROGRESS_EVERY).min(until);
            tokio::select! {
                _ = ctx.ct.cancelled() => return Err(cancelled()),
                answer = &mut ask, if !answered => {
                    answered = true;
                    match answer {
                        Ok(ClientResult::ElicitResult(r)) if r.action == ElicitationAction::Accept => {}
                        Ok(ClientResult::ElicitResult(r)) => return Err(declined(&asked, r.action)),
                        Ok(_) | Err(_) => return Err(error),
                    }
                }
                waited = registry.await_grant(&key, step) => match waited {
                    GrantWait::Arrived => {
                        completed(ctx, &asked.id).await;
                        return Ok(());
                    }
                    GrantWait::NotYet if Instant::now() < until => {
                        let waiting = format!(
                            "waiting for the end user to grant {} at {}",
                            asked.server, asked.url
                        );
                        progress(ctx, started.elapsed(), timeout, &waiting).await;
                    }
                    GrantWait::NotYet => return Err(timed_out(error, timeout)),
                },
            }
        }
    }
}

/// The `requestState` of the gateway's consent round (never an upstream's handle).
const ROUND_STATE: &str = "sb-consent:";

/// Whether a stateless call's caller declared URL-mode elicitation (its per-request
/// capabilities, already in its options).
pub(super) fn elicits_urls(opts: &switchboard_upstream::CallOptions) -> bool {
    (opts.caller_capabilities.as_ref())
        .and_then(|caps| caps.elicitation.as_ref())
        .is_some_and(|e| e.url.is_some())
}

/// A 2026-07-28 caller's round for the consent `error` asks (`None`: not a consent error):
/// one URL-mode elicitation, and a state that names the link (any replica can wait for it).
pub(super) fn round(error: &CallError) -> Option<InputRequiredResult> {
    let asked = ConsentAsked::of(error)?;
    let params = ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message: asked.message,
        url: asked.url,
        elicitation_id: asked.id.clone(),
    };
    let request = InputRequest::Elicitation(ElicitRequest::new(params));
    let requests: InputRequests = [("consent".to_string(), request)].into_iter().collect();
    Some(InputRequiredResult::new(
        Some(requests),
        Some(format!("{ROUND_STATE}{}", asked.id)),
    ))
}

/// The consent id a retry's `requestState` names, when it answers the gateway's round.
pub(super) fn resumed(state: &str) -> Option<&str> {
    state.strip_prefix(ROUND_STATE)
}

/// The caller's answer to the consent round: `Err` when the end user declined or cancelled.
pub(super) fn answer(responses: Option<InputResponses>) -> Result<(), CallError> {
    let action = (responses.as_ref())
        .and_then(|r| r.get("consent"))
        .and_then(|a| a.get("action"))
        .and_then(serde_json::Value::as_str);
    let how = match action {
        Some("decline") => "declined",
        Some("cancel") => "cancelled",
        _ => return Ok(()),
    };
    Err(CallError::new(
        ErrorKind::AuthUnavailable,
        format!("the end user {how} granting the server their credential: the call needs it"),
    ))
}

/// A 2026-07-28 caller answered the consent round `id`: wait (up to `[limits]
/// consent_timeout_secs`, looking again every 5 s and at each grant change, progress
/// meanwhile) until its grant is there, the link is gone, or the caller cancels. The call
/// then runs anew and tells which. A link made for another org, or for another end user than
/// the caller's token names, is not waited for (a forged state).
pub(super) async fn await_round(
    registry: &Registry,
    id: &str,
    caller: &switchboard_core::Caller,
    ctx: &RequestContext<RoleServer>,
) -> Result<(), CallError> {
    let Some(key) = registry.consent_grant_key(id).await else {
        return Ok(());
    };
    let Some(made_for) = switchboard_core::GrantKey::parse(&key) else {
        return Ok(());
    };
    let org = caller.org_id.as_deref().unwrap_or("operator");
    let token_user = super::view::token_end_user(ctx);
    if made_for.org != org || token_user.is_some_and(|u| u != made_for.end_user) {
        return Ok(());
    }
    let timeout = registry.consent_timeout();
    let (started, until) = (Instant::now(), Instant::now() + timeout);
    let waiting = "waiting for the end user to grant the server at the consent link";
    loop {
        let step = (Instant::now() + PROGRESS_EVERY).min(until);
        tokio::select! {
            _ = ctx.ct.cancelled() => return Err(cancelled()),
            waited = registry.await_grant(&key, step) => match waited {
                GrantWait::Arrived => return Ok(()),
                GrantWait::NotYet if Instant::now() < until => {
                    progress(ctx, started.elapsed(), timeout, waiting).await;
                }
                GrantWait::NotYet => return Ok(()),
            },
        }
    }
}

fn cancelled() -> CallError {
    CallError::new(
        ErrorKind::InvalidRequest,
        "the caller cancelled the call while it waited for the end user's consent",
    )
}

/// The end user said no in their client.
fn declined(asked: &ConsentAsked, action: ElicitationAction) -> CallError {
    let how = match action {
        ElicitationAction::Cancel => "cancelled",
        _ => "declined",
    };
    CallError::new(
        ErrorKind::AuthUnavailable,
        format!(
            "the end user {how} granting {} their credential: the call needs it",
            asked.server
        ),
    )
}

/// The grant did not come in time: the same link, for a retry.
fn timed_out(mut error: CallError, waited: Duration) -> CallError {
    error.message = format!(
        "no grant came within {} s: {}",
        waited.as_secs(),
        error.message
    );
    error
}

/// `notifications/elicitation/complete`: the caller may close what it showed.
async fn completed(ctx: &RequestContext<RoleServer>, id: &str) {
    let params = serde_json::json!({ "elicitationId": id });
    let mut done = ServerNotification::CustomNotification(CustomNotification::new(
        "notifications/elicitation/complete",
        Some(params),
    ));
    send(ctx, &mut done).await;
}

/// Progress while the call waits, when the caller gave a progress token.
async fn progress(
    ctx: &RequestContext<RoleServer>,
    waited: Duration,
    timeout: Duration,
    message: &str,
) {
    let Some(token) = ctx.meta.get_progress_token() else {
        return;
    };
    let mut param = ProgressNotificationParam::new(token, waited.as_secs() as f64);
    param.total = Some(timeout.as_secs() as f64);
    param.message = Some(message.to_string());
    let mut note = ServerNotification::ProgressNotification(ProgressNotification::new(param));
    send(ctx, &mut note).await;
}

/// On the call's own stream.
async fn send(ctx: &RequestContext<RoleServer>, notification: &mut ServerNotification) {
    notification
        .extensions_mut()
        .insert(OriginatingRequestId(ctx.id.clone()));
    if let Err(e) = ctx.peer.send_notification(notification.clone()).await {
        tracing::debug!("a consent notice did not reach the caller: {e}");
    }
}
