//! What both direct paths (Streamable HTTP, stdio) send and wait on for one `tools/call`.

use crate::call::CallOptions;
use crate::route::{CallTap, Route};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, GetMeta, NumberOrString, ProgressToken,
    RequestId, RequestMetaObject,
};
use std::sync::Arc;

/// The request for direct call number `n`: its id and progress token are `sb-N` (never a
/// number, so never one of the ids rmcp's peer gives the connection's requests), its `_meta`
/// carries the caller's end user and, for a 2026-07-28 server, `stateless`.
pub(crate) fn tool_call(
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
pub(crate) fn tap(opts: &CallOptions) -> (CallTap, Arc<()>) {
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
pub(crate) async fn cancelled(opts: &CallOptions) {
    match &opts.cancel {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}
