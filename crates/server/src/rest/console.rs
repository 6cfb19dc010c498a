//! What the console reads beside the core API: call figures computed on the server from the
//! audit log, the org's agents and many toggles at once, and the resources and prompts
//! browser (listed from the catalogues, read and got through the registry like an agent's).

use super::agents::{rest_options, toggle_entry};
use crate::control_plane::callers::{ApiCaller, MANAGE, VIEW, check_agent};
use crate::control_plane::{ApiError, ControlPlane};
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_api_types::{BulkToggle, GetPrompt, ReadResource};
use switchboard_registry::Registry;
use switchboard_store::call_stats::{StatsCell, Window, summarize};
use switchboard_store::now_ms;

/// At most this many slots in a series, and this long a window (a day).
const MAX_SLOTS: i64 = 360;
const MAX_WINDOW_S: i64 = 86_400;
/// At most this many actions per bulk toggle.
const MAX_BULK: usize = 1000;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StatsQuery {
    window_s: Option<i64>,
    step_s: Option<i64>,
}

/// `GET /api/stats`: the caller's org's calls per server over `window_s` (300), in slots of
/// `step_s` (10): calls, errors, p50 and p99, totals and series.
pub(super) async fn stats(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    super::ApiQuery(q): super::ApiQuery<StatsQuery>,
) -> Result<Json<Value>, ApiError> {
    caller.require_role(VIEW)?;
    let window_s = q.window_s.unwrap_or(300);
    let step_s = q.step_s.unwrap_or(10);
    if !(1..=MAX_WINDOW_S).contains(&window_s) || step_s < 1 || window_s % step_s != 0 {
        return Err(ApiError::Invalid(format!(
            "window_s must be 1 to {MAX_WINDOW_S} and a multiple of step_s (got {window_s} and {step_s})"
        )));
    }
    if window_s / step_s > MAX_SLOTS {
        return Err(ApiError::Invalid(format!(
            "at most {MAX_SLOTS} slots: raise step_s to at least {}",
            (window_s + MAX_SLOTS - 1) / MAX_SLOTS
        )));
    }
    let step_ms = step_s * 1000;
    // Slots end at a whole step, so a chart refreshed every step moves by one slot.
    let end = (now_ms() / step_ms + 1) * step_ms;
    let window = Window {
        since_ms: end - window_s * 1000,
        step_ms,
        slots: (window_s / step_s) as usize,
    };
    let cells = state
        .store
        .call_stats(&caller.org.id, window.since_ms, step_ms)
        .await?;
    // Every server together, from the merged histograms (percentiles do not average).
    let together: Vec<StatsCell> = cells
        .iter()
        .map(|c| StatsCell {
            server: String::new(),
            ..c.clone()
        })
        .collect();
    Ok(Json(json!({
        "window_s": window_s,
        "step_s": step_s,
        "since_ms": window.since_ms,
        "servers": summarize(&cells, window),
        "all": summarize(&together, window).pop(),
    })))
}

/// `GET /api/agents`: every agent of the org with an action toggled, with how many are on.
pub(super) async fn list_agents(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Json<Value>, ApiError> {
    caller.require(VIEW)?;
    let agents = state.store.agents(&caller.org.id).await?;
    Ok(Json(json!({"agents": agents})))
}

/// `PUT /api/agents/{agent}/actions`: many actions on or off in one request; an unknown
/// action being turned on refuses the whole request before anything changes.
pub(super) async fn set_many(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path(agent): Path<String>,
    body: Result<Json<BulkToggle>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    caller.require(MANAGE)?;
    check_agent(&agent)?;
    let Json(bulk) = body.map_err(|e| ApiError::Invalid(e.body_text()))?;
    // Each action once, in the order given.
    let mut seen = std::collections::HashSet::new();
    let action_ids: Vec<String> = bulk
        .action_ids
        .iter()
        .filter(|id| seen.insert(id.as_str()))
        .cloned()
        .collect();
    if bulk.action_ids.is_empty() || bulk.action_ids.len() > MAX_BULK {
        return Err(ApiError::Invalid(format!(
            "action_ids holds 1 to {MAX_BULK} action ids"
        )));
    }
    if bulk.enabled {
        let unknown: Vec<&str> = action_ids
            .iter()
            .filter(|id| state.find_action(&caller.org.id, id).is_none())
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(ApiError::NotFound(format!(
                "no action {} in org {}; nothing was changed; GET /api/agents/{agent}/actions lists them",
                unknown.join(", "),
                caller.org.name
            )));
        }
    }
    // One transaction: every action changes, or none does.
    state
        .store
        .set_agent_actions(&caller.org.id, &agent, &action_ids, bulk.enabled)
        .await?;
    for action_id in &action_ids {
        state
            .audit
            .record_now(toggle_entry(&caller, &agent, action_id, bulk.enabled));
    }
    Ok(Json(json!({
        "agent": agent,
        "enabled": bulk.enabled,
        "action_ids": action_ids,
    })))
}

/// The session the console's reads run in (taint and limits): no agent id can name it.
fn console_session(caller: &ApiCaller) -> String {
    format!("{}|console", caller.org.id)
}

/// `GET /api/catalog`: the resources, resource templates and prompts of every server the org
/// reaches, each with its server, source and whether the org's policy shows its server.
pub(super) async fn catalog(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
) -> Result<Json<Value>, ApiError> {
    caller.require(VIEW)?;
    let (mut resources, mut templates, mut prompts) = (Vec::new(), Vec::new(), Vec::new());
    let opts = rest_options(&caller, None, console_session(&caller));
    for (registry, source) in state.registries_of(&caller.org.id) {
        let catalog = registry.catalog();
        // Whether the org's policy lets it see each server (reading a hidden one is refused).
        let mut visible = std::collections::HashMap::new();
        let servers = catalog.resources.iter().map(|r| &r.server);
        let servers = servers.chain(catalog.resource_templates.iter().map(|t| &t.server));
        for server in servers.chain(catalog.prompts.iter().map(|p| &p.server)) {
            if !visible.contains_key(server.as_str()) {
                let shown = registry.server_visible(&opts.caller, server.as_str()).await;
                visible.insert(server.as_str(), shown);
            }
        }
        let tag = |mut item: Value, server: &str| {
            item["server"] = json!(server);
            item["source"] = json!(source.as_str());
            item["visible"] = json!(visible.get(server).copied().unwrap_or(false));
            item
        };
        for r in &catalog.resources {
            resources.push(tag(json!(r.resource), r.server.as_str()));
        }
        for t in &catalog.resource_templates {
            templates.push(tag(json!(t.template), t.server.as_str()));
        }
        for p in &catalog.prompts {
            let mut prompt = json!(p.prompt);
            prompt["name"] = json!(p.exposed_name);
            prompts.push(tag(prompt, p.server.as_str()));
        }
    }
    Ok(Json(json!({
        "resources": resources,
        "resource_templates": templates,
        "prompts": prompts,
    })))
}

/// The registry whose catalogue routes `found`, else the org's own (which answers "none").
fn routing(state: &ControlPlane, org_id: &str, found: impl Fn(&Registry) -> bool) -> Registry {
    (state.registries_of(org_id).into_iter())
        .map(|(registry, _)| registry)
        .find(|r| found(r))
        .unwrap_or_else(|| state.org_registry(org_id))
}

/// `POST /api/catalog/resources/read`: one resource read through the registry, as the org.
pub(super) async fn read_resource(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    body: Result<Json<ReadResource>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    caller.require(MANAGE)?;
    let Json(read) = body.map_err(|e| ApiError::Invalid(e.body_text()))?;
    let registry = routing(&state, &caller.org.id, |r| {
        r.catalog().route_resource(&read.uri).is_some()
    });
    let opts = rest_options(&caller, None, console_session(&caller));
    let result = registry
        .read_resource(&read.uri, opts)
        .await
        .map_err(ApiError::Call)?;
    Ok(Json(json!({"result": result})))
}

/// `POST /api/catalog/prompts/get`: one prompt got through the registry, as the org.
pub(super) async fn get_prompt(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    body: Result<Json<GetPrompt>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    caller.require(MANAGE)?;
    let Json(get) = body.map_err(|e| ApiError::Invalid(e.body_text()))?;
    let registry = routing(&state, &caller.org.id, |r| {
        r.catalog().route_prompt(&get.name).is_some()
    });
    let opts = rest_options(&caller, None, console_session(&caller));
    let result = registry
        .get_prompt(&get.name, get.arguments.map(Value::Object), opts)
        .await
        .map_err(ApiError::Call)?;
    Ok(Json(json!({"result": result})))
}
