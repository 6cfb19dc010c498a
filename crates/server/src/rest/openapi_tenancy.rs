//! The OpenAPI description of the orgs and tokens routes (`/api/orgs`, `/api/tokens`).

use serde_json::{Map, Value, json};

/// Their paths, each response list completed by `with` (the common error answers).
pub(super) fn paths(with: &dyn Fn(Value) -> Value) -> Map<String, Value> {
    let paths = json!({
    "/api/orgs": {
        "get": {
            "summary": "Every live org with its features (role gateway:operate)",
            "responses": with(json!({"200": {"description": "{orgs: [{id, name, features, created_at}]}"}}))
        },
        "post": {
            "summary": "Create an org (role gateway:operate); audited as org.create",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string", "description": "1-64 letters, digits, '-', '_' or '.'"},
                "features": {"type": "array", "items": {"type": "string"}}}}}}},
            "responses": with(json!({"201": {"description": "{org}"}, "409": {"description": "An org of that name exists"}}))
        }
    },
    "/api/orgs/{name}": {
        "patch": {
            "summary": "Replace an org's features (role gateway:operate); audited as org.update",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["features"], "properties": {
                "features": {"type": "array", "items": {"type": "string"}}}}}}},
            "responses": with(json!({"200": {"description": "{org}"}, "404": {"description": "No such org"}}))
        },
        "delete": {
            "summary": "Delete an org (role gateway:operate): its tokens are refused from the next request on every replica; its name is free again; audited as org.delete",
            "responses": with(json!({"200": {"description": "{deleted: org}"}, "409": {"description": "The org still has servers"}}))
        }
    },
    "/api/tokens": {
        "get": {
            "summary": "API tokens, never their secrets: the caller's org's (role integrations:view), or any org's with gateway:operate",
            "parameters": [{"name": "org", "in": "query", "schema": {"type": "string"}}],
            "responses": with(json!({"200": {"description": "{tokens: [{id, org, roles, state: live|revoked|expired, created_at, expires_at, revoked_at}]}"}}))
        },
        "post": {
            "summary": "Create a token (role integrations:manage, or gateway:operate for another org) with only roles the caller holds; the secret is in this answer only; audited as token.create",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["roles"], "properties": {
                "org": {"type": "string", "description": "default: the caller's org"},
                "roles": {"type": "array", "items": {"type": "string", "enum": ["integrations:manage", "integrations:view", "gateway:operate", "end_users:assert"]}},
                "expires": {"type": "string", "description": "a duration such as 30d, 12h or 90m; none: never"}}}}}},
            "responses": with(json!({"201": {"description": "{id, token, org, roles, state, created_at, expires_at}"}, "403": {"description": "A role the caller lacks"}}))
        }
    },
    "/api/tokens/{id}": {
        "delete": {
            "summary": "Revoke a token (role integrations:manage in its org, or gateway:operate): refused from the next request on every replica, with a 401 that says revoked; audited as token.revoke",
            "responses": with(json!({"200": {"description": "{revoked: token}"}, "404": {"description": "No such token"}, "409": {"description": "Already revoked"}}))
        }
    }
    });
    paths.as_object().cloned().unwrap_or_default()
}
