//! Answers what an upstream asks of the caller during a call (sampling, elicitation, roots,
//! pings) on that caller's own request stream, and delivers its notifications before the result.
#![allow(deprecated)] // sampling, roots, logging: deprecated by 2026-07-28, live in older revisions

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use rmcp::model::GetExtensions;
use rmcp::model::{
    ClientCapabilities, ClientResult, ErrorData, InputRequests, InputResponses, ServerNotification,
    ServerRequest,
};
use rmcp::service::{OriginatingRequestId, RequestContext, RoleServer, ServiceError};
use switchboard_upstream::method_name;
use switchboard_upstream::{
    Declined, RelayNotes, Upcall, as_server_request, declined_round, level_rank,
};
use tokio::sync::mpsc;

/// How many upcalls may wait for the caller before the upstream's stream is held back.
pub(crate) const UPCALL_QUEUE: usize = 64;

/// Runs `call` while relaying its upcalls to the caller behind `ctx`. Everything here runs
/// in the downstream request's own task, so rmcp sends the relayed requests on that
/// request's stream (never another session's).
pub(crate) async fn relay_while<T>(
    // Pinned by the caller: a future moved in and pinned here would take its room twice in
    // this function's own future.
    mut call: std::pin::Pin<&mut impl Future<Output = T>>,
    mut upcalls: mpsc::Receiver<Upcall>,
    ctx: &RequestContext<RoleServer>,
    min_log: u8,
    notes: &RelayNotes,
) -> T {
    // The caller's answers being awaited: single requests and whole rounds.
    let mut asks: FuturesUnordered<futures::future::BoxFuture<'_, ()>> = FuturesUnordered::new();
    loop {
        tokio::select! {
            biased;
            Some(upcall) = upcalls.recv() => match upcall {
                Upcall::Notification(n) => deliver(n, ctx, min_log).await,
                Upcall::Request { request, reply } => asks.push(Box::pin(async move {
                    let _ = reply.send(ask(request, ctx, notes).await);
                })),
                Upcall::Round { requests, reply } => asks.push(Box::pin(async move {
                    let _ = reply.send(ask_round(requests, ctx, notes).await);
                })),
            },
            Some(()) = asks.next(), if !asks.is_empty() => {}
            result = &mut call => {
                drain(&mut upcalls, ctx, min_log, notes).await;
                return result;
            }
        }
    }
}

/// After a call's result: what the upstream sent before it is queued already and goes
/// first; a request still queued can no longer be answered.
pub(crate) async fn drain(
    upcalls: &mut mpsc::Receiver<Upcall>,
    ctx: &RequestContext<RoleServer>,
    min_log: u8,
    notes: &RelayNotes,
) {
    while let Ok(upcall) = upcalls.try_recv() {
        match upcall {
            Upcall::Notification(n) => deliver(n, ctx, min_log).await,
            Upcall::Request { request, reply } => {
                let _ = reply.send(Err(notes.refuse(&request, Declined::CallEnded)));
            }
            Upcall::Round { reply, .. } => {
                let refusal = declined_round(Declined::CallEnded);
                notes.push(refusal.message.to_string());
                let _ = reply.send(Err(refusal));
            }
        }
    }
}

/// Sends one notification of the call to its caller (progress under the caller's own token;
/// log lines below the level the caller's session asked for are left out).
pub(crate) async fn deliver(
    notification: ServerNotification,
    ctx: &RequestContext<RoleServer>,
    min_log: u8,
) {
    if let ServerNotification::LoggingMessageNotification(n) = &notification
        && level_rank(n.params.level) < min_log
    {
        return;
    }
    let notification = match notification {
        ServerNotification::ProgressNotification(mut n) => {
            let Some(token) = ctx.meta.get_progress_token() else {
                return;
            };
            n.params.progress_token = token;
            ServerNotification::ProgressNotification(n)
        }
        other => other,
    };
    // Over Streamable HTTP this puts it on the call's own stream (`mcp::sessions::ordered`).
    let mut notification = notification;
    notification
        .extensions_mut()
        .insert(OriginatingRequestId(ctx.id.clone()));
    if let Err(e) = ctx.peer.send_notification(notification).await {
        tracing::debug!("a relayed notification did not reach the caller: {e}");
    }
}

/// A 2026-07-28 upstream's round of questions, asked of a caller on an older revision as the
/// server-to-client requests that revision has, all at once; the answers go back by key.
async fn ask_round(
    requests: InputRequests,
    ctx: &RequestContext<RoleServer>,
    notes: &RelayNotes,
) -> Result<InputResponses, ErrorData> {
    let asked = requests.into_iter().map(|(key, request)| async move {
        let request = as_server_request(request).ok_or_else(|| {
            ErrorData::invalid_params(format!("input {key:?} cannot be relayed"), None)
        })?;
        let answer = ask(request, ctx, notes).await?;
        let answer = serde_json::to_value(answer)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok::<_, ErrorData>((key, answer))
    });
    futures::future::try_join_all(asked)
        .await
        .map(|answers| answers.into_iter().collect())
}

/// Asks the caller, when it declared it can answer; else the protocol's refusal.
async fn ask(
    request: ServerRequest,
    ctx: &RequestContext<RoleServer>,
    notes: &RelayNotes,
) -> Result<ClientResult, ErrorData> {
    let method = method_name(&request).to_string();
    let caps = ctx.client_capabilities().unwrap_or_default();
    if !can_answer(&request, &caps) {
        Err(notes.refuse(&request, Declined::NotDeclared))
    } else {
        // rmcp tags it too, but only inside its own service task; the fast path runs
        // the handler outside that task, and its stream takes what is tagged.
        let mut request = request;
        request
            .extensions_mut()
            .insert(OriginatingRequestId(ctx.id.clone()));
        ctx.peer.send_request(request).await.map_err(|e| match e {
            ServiceError::McpError(error) => error,
            other => ErrorData::internal_error(
                format!("{method} did not reach the caller: {other}"),
                None,
            ),
        })
    }
}

/// Whether the caller declared the capability the request needs.
#[allow(deprecated)] // sampling and roots: deprecated by 2026-07-28, live in older revisions
pub(crate) fn can_answer(request: &ServerRequest, caps: &ClientCapabilities) -> bool {
    match request {
        ServerRequest::PingRequest(_) | ServerRequest::CustomRequest(_) => true,
        ServerRequest::CreateMessageRequest(_) => caps.sampling.is_some(),
        ServerRequest::ListRootsRequest(_) => caps.roots.is_some(),
        ServerRequest::ElicitRequest(r) => match &caps.elicitation {
            None => false,
            // An empty elicitation capability means form mode only.
            Some(e)
                if matches!(
                    r.params,
                    rmcp::model::ElicitRequestParams::UrlElicitationParams { .. }
                ) =>
            {
                e.url.is_some()
            }
            Some(_) => true,
        },
        _ => false,
    }
}
