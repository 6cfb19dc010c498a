//! What both direct paths (Streamable HTTP, stdio) send and wait on for one `tools/call`.

use super::Link;
use crate::UpstreamError;
use crate::call::{CallOptions, CancelOnDrop};
use crate::route::{CallTap, Route, TapGuard};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, GetMeta, NumberOrString, ProgressToken,
    RequestId, RequestMetaObject, ServerResult,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One direct call about to go out: its request, and its tap (where its upstream's requests
/// and notifications go), forgotten when `untap` is dropped however the call ends.
pub(crate) struct Outgoing<'a> {
    pub id: RequestId,
    pub progress: ProgressToken,
    pub request: ClientRequest,
    pub tap: CallTap,
    pub untap: TapGuard<'a>,
}

/// The next direct call on a connection (`next` numbers them), with `link`'s `_meta`.
pub(crate) fn outgoing<'a>(
    next: &AtomicU64,
    link: &mut Link<'a>,
    params: CallToolRequestParams,
    opts: &CallOptions,
) -> Outgoing<'a> {
    let n = next.fetch_add(1, Ordering::Relaxed);
    let (id, progress, request) = tool_call(n, params, link.request_meta.take(), opts);
    let (tap, alive) = tap(opts);
    let mut untap = link.handler.taps.guard(alive);
    untap.sent(id.clone(), progress.clone());
    Outgoing {
        id,
        progress,
        request,
        tap,
        untap,
    }
}

/// Runs `exchange` (the call sent and its answer read) within `link.timeout` and until the
/// caller cancels; unless it ended, the upstream is told to cancel request `id`. `None` from
/// the exchange: rmcp sends the call instead.
pub(crate) async fn bounded(
    link: &Link<'_>,
    id: &RequestId,
    opts: &CallOptions,
    exchange: impl Future<Output = Option<Result<ServerResult, UpstreamError>>>,
) -> Option<Result<ServerResult, UpstreamError>> {
    let mut cancel = CancelOnDrop::new(link.peer.clone(), id.clone());
    tokio::select! {
        answered = exchange => {
            cancel.disarm();
            answered
        }
        _ = tokio::time::sleep(link.timeout) => {
            cancel.set_reason("request timeout");
            Some(Err(UpstreamError::Timeout(link.timeout)))
        }
        _ = cancelled(opts) => Some(Err(UpstreamError::Cancelled)),
    }
}

/// The request for direct call number `n`: its id and progress token are `sb-N` (never a
/// number, so never one of the ids rmcp's peer gives the connection's requests), its `_meta`
/// carries the caller's end user and, for a 2026-07-28 server, `stateless`.
fn tool_call(
    n: u64,
    params: CallToolRequestParams,
    stateless: Option<RequestMetaObject>,
    opts: &CallOptions,
) -> (RequestId, ProgressToken, ClientRequest) {
    let name: Arc<str> = format!("sb-{n}").into();
    let id = RequestId::String(name.clone());
    let progress = ProgressToken(NumberOrString::String(name));
    let mut request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let meta = request.get_meta_mut();
    if let Some(stateless) = stateless {
        meta.extend(stateless);
    }
    if let Some(user) = &opts.end_user_id {
        meta.0
            .insert("bound_end_user_id".into(), user.clone().into());
    }
    meta.set_progress_token(progress.clone());
    (id, progress, request)
}

/// The call's tap (where its upstream's requests and notifications go), alive while the
/// returned handle is.
fn tap(opts: &CallOptions) -> (CallTap, Arc<()>) {
    let alive = Arc::new(());
    let tap = CallTap {
        route: Route::of(opts),
        alive: Arc::downgrade(&alive),
        notes: opts.relay_notes.clone(),
        trace: switchboard_telemetry::current_traceparent(),
    };
    (tap, alive)
}

/// Ready when the caller cancels the call; never without a cancel token.
async fn cancelled(opts: &CallOptions) {
    match &opts.cancel {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}
