//! `GET /api/integrations/mcp/events`: server states as server-sent events: first every
//! server as it is now, then each change (the org's API servers and the config-file servers).

use crate::control_plane::ApiError;
use crate::control_plane::callers::{ApiCaller, OPERATE, VIEW};
use crate::control_plane::{ControlPlane, Source};
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt};
use serde_json::json;
use std::convert::Infallible;
use switchboard_registry::ServerInfo;
use tokio::sync::broadcast;

/// One server's state as the API shows it. A config-file server's authorize URL is for
/// operators only: whoever opens it links their account to a server every org shares.
pub(super) fn status_json(info: &ServerInfo, source: Source, operator: bool) -> serde_json::Value {
    let authorize_url = match source {
        Source::Config if !operator => None,
        _ => info.authorize_url.clone(),
    };
    let id = match source {
        Source::Api => info.origin.trim_start_matches("api:").to_string(),
        Source::Config => format!("config:{}", info.name),
    };
    json!({
        "id": id,
        "server": info.name,
        "source": source.as_str(),
        "transport": info.transport,
        "status": info.status,
        "tool_count": info.tool_count,
        "calls_in_flight": info.calls_in_flight,
        "pid": info.pid,
        "last_error": info.last_error,
        "authorize_url": authorize_url,
        "status_history": info.status_history,
        "protocol_version": info.protocol_version,
    })
}

fn event(info: &ServerInfo, source: Source, operator: bool) -> Result<Event, Infallible> {
    Ok(Event::default()
        .event("status")
        .data(status_json(info, source, operator).to_string()))
}

/// The changes one registry announces, skipping ahead when this reader falls behind.
fn changes(
    rx: broadcast::Receiver<ServerInfo>,
    source: Source,
    operator: bool,
) -> impl Stream<Item = Result<Event, Infallible>> {
    futures::stream::unfold(rx, move |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(info) => return Some((event(&info, source, operator), rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
}

pub(super) async fn stream(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    caller.require(VIEW)?;
    let org = state.org_registry(&caller.org.id);
    // Subscribe before reading the current states, so no change falls between the two.
    let operator = caller.has_role(OPERATE);
    let org_changes = changes(org.subscribe_status(), Source::Api, operator);
    let config_changes = changes(state.registry.subscribe_status(), Source::Config, operator);
    let now: Vec<_> = org
        .servers()
        .iter()
        .map(|s| event(s, Source::Api, operator))
        .chain(
            state
                .registry
                .servers()
                .iter()
                .map(|s| event(s, Source::Config, operator)),
        )
        .collect();
    // The stream ends when the gateway shuts down, so watchers never hold up the shutdown.
    let shutdown = state.shutdown.clone();
    let stream = futures::stream::iter(now)
        .chain(futures::stream::select(org_changes, config_changes))
        .take_until(shutdown.cancelled_owned());
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
