//! The OpenAPI description of the routes the console reads beside the core API: call
//! figures, the agents list, and the resources and prompts browser.

use serde_json::{Map, Value, json};

/// Their paths, each response list completed by `with` (the common error answers).
pub(super) fn paths(with: &dyn Fn(Value) -> Value) -> Map<String, Value> {
    let paths = json!({
    "/api/stats": {
        "get": {
            "summary": "The org's calls per server over a window, computed by the gateway from every replica's audit rows: calls, errors, calls/s, p50 and p99 (from latency histograms, within one bucket, 26 %), totals and per-slot series; `all` is every server together (role integrations:view)",
            "parameters": [
                {"name": "window_s", "in": "query", "schema": {"type": "integer", "default": 300, "maximum": 86400}},
                {"name": "step_s", "in": "query", "schema": {"type": "integer", "default": 10}, "description": "a divisor of window_s; at most 360 slots"}
            ],
            "responses": with(json!({"200": {"description": "{window_s, step_s, since_ms, servers: [{server, calls, errors, p50_ms, p99_ms, calls_per_s, series: [{at_ms, calls, errors, p50_ms, p99_ms}]}], all}"}}))
        }
    },
    "/api/agents": {
        "get": {
            "summary": "Every agent of the org with an action toggled, with how many are on (role integrations:view)",
            "responses": with(json!({"200": {"description": "{agents: [{agent_id, enabled, updated_at}]}"}}))
        }
    },
    "/api/catalog": {
        "get": {
            "summary": "The resources, resource templates and prompts of every server the org reaches, each with its server and source (role integrations:view)",
            "responses": with(json!({"200": {"description": "{resources, resource_templates, prompts}"}}))
        }
    },
    "/api/catalog/resources/read": {
        "post": {
            "summary": "Read one resource by its exposed URI through the registry (role integrations:manage)",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["uri"], "properties": {"uri": {"type": "string"}}}}}},
            "responses": with(json!({"200": {"description": "{result: ReadResourceResult}"}}))
        }
    },
    "/api/catalog/prompts/get": {
        "post": {
            "summary": "Get one prompt by its exposed name through the registry (role integrations:manage)",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "arguments": {"type": "object", "additionalProperties": {"type": "string"}}}}}}},
            "responses": with(json!({"200": {"description": "{result: GetPromptResult}"}}))
        }
    }
    });
    paths.as_object().cloned().unwrap_or_default()
}
