//! `GET /api/openapi.json`: the REST API described for clients and schema-based testing.

use axum::Json;
use serde_json::{Value, json};

fn error_response(description: &str) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
}

pub(super) async fn document() -> Json<Value> {
    let errors = json!({
        "400": error_response("Invalid input; the message says what to fix"),
        "401": error_response("Missing or unknown API token"),
        "403": error_response("Missing role, or the org lacks mcp_external_servers"),
        "404": error_response("No such server in this org"),
        "409": error_response("A live server (or a config-file server) has this slug"),
    });
    let audit_parameters: Vec<Value> = ["agent_id", "action_id", "server", "outcome"]
        .iter()
        .map(|n| json!({"name": n, "in": "query", "schema": {"type": "string"}}))
        .chain(
            ["after_seq", "before_seq", "since_ms", "limit"]
                .iter()
                .map(|n| json!({"name": n, "in": "query", "schema": {"type": "integer"}})),
        )
        .chain(std::iter::once(
            json!({"name": "newest_first", "in": "query", "schema": {"type": "boolean"}}),
        ))
        .collect();
    let with = |mut base: Value| {
        if let (Some(b), Some(e)) = (base.as_object_mut(), errors.as_object()) {
            b.extend(e.clone());
        }
        base
    };
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {"title": "Switchboard REST API", "version": env!("CARGO_PKG_VERSION")},
        "security": [{"bearer": []}],
        "paths": {
            "/api/integrations/mcp/servers": {
                "post": {
                    "summary": "Connect a remote MCP server: runs initialize + tools/list now",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateServer"}}}},
                    "responses": with(json!({"201": {"description": "Stored; status says whether discovery worked", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Created"}}}}}))
                },
                "get": {
                    "summary": "List the org's servers (never credentials)",
                    "parameters": [{"name": "include_deleted", "in": "query", "schema": {"type": "boolean"}}],
                    "responses": with(json!({"200": {"description": "Servers", "content": {"application/json": {"schema": {"type": "object", "properties": {"servers": {"type": "array", "items": {"$ref": "#/components/schemas/Server"}}}}}}}}))
                }
            },
            "/api/integrations/mcp/servers/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "patch": {
                    "summary": "Take changed fields and re-run discovery",
                    "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/UpdateServer"}}}},
                    "responses": with(json!({"200": {"description": "The server after discovery", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Server"}}}}}))
                },
                "delete": {
                    "summary": "Soft delete: credentials and OAuth tokens wiped, tools gone, row kept for old audit rows",
                    "responses": with(json!({"200": {"description": "Deleted"}}))
                }
            },
            "/api/integrations/mcp/servers/{id}/{operation}": {
                "parameters": [
                    {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "operation", "in": "path", "required": true, "schema": {"type": "string", "enum": ["refresh", "disable", "enable", "reauthorize"]}}
                ],
                "post": {
                    "summary": "Operate the server: refresh (reconnect and discover), disable (stop; credentials kept; survives restarts), enable, reauthorize (authorizationCode servers: a new flow; the answer carries authorize_url). Config-file servers (id config:NAME) need the role gateway:operate instead of integrations:manage",
                    "responses": with(json!({"200": {"description": "The server afterwards", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Server"}}}}}))
                }
            },
            "/api/integrations/mcp/events": {
                "get": {
                    "summary": "Server states as server-sent events (event: status): every server now, then each change",
                    "responses": with(json!({"200": {"description": "text/event-stream; data is {id, server, source, transport, status, tool_count, calls_in_flight, pid, last_error}", "content": {"text/event-stream": {}}}}))
                }
            },
            "/api/agents/{agent}/actions": {
                "parameters": [{"name": "agent", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {
                    "summary": "The actions an agent may be given (the org's API servers, then config-file servers; `source` says which), grouped by integration mcp_<slug>, with this agent's toggles",
                    "responses": with(json!({"200": {"description": "Integrations and actions"}}))
                },
                "put": {
                    "summary": "Many actions on or off in one request; an unknown action turned on refuses the whole request with nothing changed; one audit row per action",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["enabled", "action_ids"], "properties": {
                        "enabled": {"type": "boolean"},
                        "action_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 1000}}}}}},
                    "responses": with(json!({"200": {"description": "{agent, enabled, action_ids}"}, "404": {"description": "An action that does not exist (nothing changed)"}}))
                }
            },
            "/api/agents/{agent}/actions/{action_id}": {
                "parameters": [
                    {"name": "agent", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "action_id", "in": "path", "required": true, "schema": {"type": "string"}}
                ],
                "put": {
                    "summary": "Enable or disable one action for the agent",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["enabled"], "properties": {"enabled": {"type": "boolean"}}}}}},
                    "responses": with(json!({"200": {"description": "The new state"}}))
                }
            },
            "/api/agents/{agent}/actions/{action_id}/invoke": {
                "parameters": [
                    {"name": "agent", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "action_id", "in": "path", "required": true, "schema": {"type": "string"}}
                ],
                "post": {
                    "summary": "Call an enabled action; the end user travels upstream as _meta.bound_end_user_id",
                    "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"arguments": {"type": "object"}, "end_user_id": {"type": "string"}}}}}},
                    "responses": with(json!({"200": {"description": "{\"result\": CallToolResult}"}, "429": error_response("The server's calls-in-flight limit was reached"), "502": error_response("The upstream failed"), "504": error_response("The call timed out")}))
                }
            },
            "/api/policy": {
                "get": {
                    "summary": "The org's policy document (rules, rate limits, agents' server lists, labels, IFC); docs/policy.md",
                    "responses": with(json!({"200": {"description": "The document", "content": {"application/json": {"schema": {"type": "object", "properties": {"org": {"type": "string"}, "policy": {"$ref": "#/components/schemas/Policy"}}}}}}}))
                },
                "put": {
                    "summary": "Replace the org's policy document (role integrations:manage); a bad one is a 400 naming each field and changes nothing",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Policy"}}}},
                    "responses": with(json!({"200": {"description": "Saved; every replica follows"}}))
                }
            },
            "/api/identity/issuers": {
                "get": {
                    "summary": "The issuers the org trusts on its own endpoints /orgs/{org}/mcp and /orgs/{org}/mcp/agents/{agent} (secrets shown as (sealed)); docs/identity.md",
                    "responses": with(json!({"200": {"description": "The org's issuers"}}))
                },
                "put": {
                    "summary": "Add an issuer, or replace the one with the same issuer URL (role integrations:manage): fields as in [[identity.issuers]], but it maps only into this org (no claims.org, no gateway:operate or end_users:assert, no sign_in). The answer says whether its keys could be fetched",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["issuer"]}}}},
                    "responses": with(json!({"201": {"description": "Added; every replica follows within a second"}, "200": {"description": "Replaced"}}))
                },
                "delete": {
                    "summary": "Remove an issuer (role integrations:manage): its tokens are refused on every replica within a second",
                    "parameters": [{"name": "issuer", "in": "query", "required": true, "schema": {"type": "string"}}],
                    "responses": with(json!({"204": {"description": "Removed"}, "404": {"description": "No such issuer"}}))
                }
            },
            "/api/end-users/grants": {
                "get": {
                    "summary": "Every grant the org's end users hold for per-end-user servers (never a secret); docs/end-user-credentials.md",
                    "responses": with(json!({"200": {"description": "The grants"}}))
                }
            },
            "/api/end-users/{end_user}/grants": {
                "get": {
                    "summary": "One end user's grants: server, kind, scopes, issued, last used, expiry",
                    "responses": with(json!({"200": {"description": "The grants"}}))
                }
            },
            "/api/end-users/{end_user}/grants/{server}": {
                "delete": {
                    "summary": "Revoke an end user's grant (role integrations:manage): their session closes and their next call is refused on every replica within a second",
                    "responses": with(json!({"200": {"description": "Revoked"}, "404": {"description": "No such grant"}}))
                }
            },
            "/api/end-users/{end_user}/credentials/{server}": {
                "put": {
                    "summary": "Set an end user's API key or bearer token for a per-end-user server (role integrations:manage; write-only: never answered back)",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["secret"], "properties": {"secret": {"type": "string"}}}}}},
                    "responses": with(json!({"200": {"description": "Saved; every replica uses it at once"}, "400": {"description": "Not a per-end-user server, or a bad secret"}, "404": {"description": "No such server"}}))
                }
            },
            "/api/policy/pending": {
                "get": {
                    "summary": "Tool definitions quarantined until approved (changed since approval, renamed, or poisoning suspected), with the approved one",
                    "parameters": [{"name": "owner", "in": "query", "schema": {"type": "string", "enum": ["org", "operator"]}, "description": "operator: the config-file servers' (role gateway:operate)"}],
                    "responses": with(json!({"200": {"description": "Waiting definitions"}}))
                }
            },
            "/api/policy/approve": {
                "post": {
                    "summary": "Approve (pin) the waiting definition of one tool or all of a server's; audited with both hashes",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["server"], "properties": {
                        "server": {"type": "string"}, "tool": {"type": "string"}, "all": {"type": "boolean"},
                        "hash": {"type": "string", "description": "sha256 (or a prefix) of the definition reviewed: refused if it changed since"},
                        "owner": {"type": "string", "enum": ["org", "operator"]}}}}}},
                    "responses": with(json!({"200": {"description": "What was approved"}}))
                }
            },
            "/api/policy/tools": {
                "get": {
                    "summary": "Every tool the org's /mcp endpoint could offer, with visible, quarantined, hidden or withheld and why",
                    "responses": with(json!({"200": {"description": "Tools"}}))
                }
            },
            "/api/audit": {
                "get": {
                    "summary": "The org's audit rows in chain order (next page: after_seq = next_after_seq), or newest first with newest_first=true (next page: before_seq = next_before_seq)",
                    "parameters": audit_parameters,
                    "responses": with(json!({"200": {"description": "Rows and the cursor for the next page"}}))
                }
            },
            "/api/audit/verify": {
                "get": {
                    "summary": "Check the whole audit hash chain (every org's rows; role gateway:operate)",
                    "responses": with(json!({"200": {"description": "{ok, rows}, or {ok: false, problem} naming where it breaks"}}))
                }
            },
            "/api/me": {
                "get": {
                    "summary": "The calling token's org, roles and the org's features (never the token), so clients offer only what the roles allow",
                    "responses": with(json!({"200": {"description": "{org, org_id, token_id, roles, features, csrf, end_user}"}}))
                }
            },
            "/api/me/grants": {
                "get": {
                    "summary": "The calling end user's own grants (a signed-in person whose claims map to an end user, or an access token naming one; no role needed)",
                    "responses": with(json!({"200": {"description": "{end_user, grants}"}, "403": {"description": "The caller is no end user"}}))
                }
            },
            "/api/me/grants/{server}": {
                "delete": {
                    "summary": "The calling end user revokes their own grant for a per-end-user server, on every replica",
                    "responses": with(json!({"200": {"description": "Revoked"}, "403": {"description": "The caller is no end user"}, "404": {"description": "No such grant"}}))
                }
            }
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Policy": {"type": "object", "additionalProperties": false, "properties": {
                    "mode": {"type": "string", "enum": ["enforce", "observe"]},
                    "default": {"type": "string", "enum": ["allow", "deny"]},
                    "rules": {"type": "array", "items": {"type": "object", "required": ["name", "actions", "effect"], "properties": {
                        "name": {"type": "string"}, "actions": {"type": "array", "items": {"type": "string"}},
                        "orgs": {"type": "array", "items": {"type": "string"}}, "agents": {"type": "array", "items": {"type": "string"}},
                        "end_users": {"type": "array", "items": {"type": "string"}},
                        "when": {"type": "array", "items": {"type": "object", "required": ["path"]}},
                        "effect": {"type": "string", "enum": ["allow", "deny", "verify"]}, "reason": {"type": "string"},
                        "verify": {"type": "object", "properties": {"webhook": {"type": "string"}, "timeout_ms": {"type": "integer"}, "on_error": {"type": "string", "enum": ["allow", "deny"]}}}}}},
                    "rate_limits": {"type": "array", "items": {"type": "object", "required": ["scope", "rate"], "properties": {
                        "name": {"type": "string"}, "scope": {"type": "string", "enum": ["org_action", "org_server", "server"]},
                        "actions": {"type": "array", "items": {"type": "string"}}, "rate": {"type": "string", "description": "N/s, N/m or N/h"}, "burst": {"type": "integer"}}}},
                    "agents": {"type": "object", "additionalProperties": {"type": "object", "properties": {"servers": {"type": "array", "items": {"type": "string"}}}}},
                    "labels": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string", "enum": ["reads_sensitive", "sends_external", "untrusted_output", "destructive"]}}},
                    "ifc": {"type": "object", "properties": {"enabled": {"type": "boolean"}, "untrusted_requires_verify": {"type": "boolean"}, "verify": {"type": "object"}}}
                }},
                "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "object", "required": ["kind", "message"], "properties": {
                    "kind": {"type": "string", "description": "the REST API's own kinds, or a failed call's kind (invoke)", "enum": ["unauthenticated", "forbidden", "not_found", "invalid_request", "conflict", "internal", "auth_unavailable", "transport_error", "timeout", "server_error", "tool_not_found", "policy_denied", "rate_limited", "audit_unavailable", "input_required"]},
                    "message": {"type": "string"},
                    "retry_after_ms": {"type": "integer", "description": "rate_limited: when a retry may pass (also the Retry-After header)"},
                    "code": {"type": "integer", "description": "server_error: the upstream's own JSON-RPC error code (e.g. -32042, URL required)"},
                    "data": {"description": "the upstream's JSON-RPC error data, unchanged"}}}}},
                "Credentials": {"type": "object", "additionalProperties": false, "properties": {
                    "token": {"type": "string", "maxLength": 8000},
                    "access_token": {"type": "string", "maxLength": 8000},
                    "refresh_token": {"type": "string", "maxLength": 8000},
                    "key": {"type": "string", "maxLength": 8000, "description": "apiKey: the key"},
                    "header_name": {"type": "string", "description": "apiKey: the header (default Authorization)"},
                    "value_prefix": {"type": "string", "description": "apiKey: text before the key, e.g. \"Key \""},
                    "client_id": {"type": "string", "description": "oauth2, clientCredentials, authorizationCode: the OAuth client"},
                    "client_secret": {"type": "string", "maxLength": 8000, "description": "the OAuth client's secret (confidential clients)"},
                    "token_url": {"type": "string", "description": "clientCredentials (required), oauth2 (optional: discovered otherwise)"},
                    "scopes": {"type": "array", "items": {"type": "string"}, "description": "clientCredentials, authorizationCode"},
                    "client_metadata_url": {"type": "string", "description": "authorizationCode: an https client ID metadata document"}}},
                "CreateServer": {"type": "object", "additionalProperties": false, "required": ["name", "slug", "url"], "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 100},
                    "slug": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,31}$"},
                    "url": {"type": "string", "maxLength": 2048},
                    "auth_method": {"type": "string", "enum": ["none", "bearer", "apiKey", "oauth2", "clientCredentials", "authorizationCode"]},
                    "credentials": {"$ref": "#/components/schemas/Credentials"}}},
                "UpdateServer": {"type": "object", "additionalProperties": false, "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 100},
                    "url": {"type": "string", "maxLength": 2048},
                    "auth_method": {"type": "string", "enum": ["none", "bearer", "apiKey", "oauth2", "clientCredentials", "authorizationCode"]},
                    "credentials": {"$ref": "#/components/schemas/Credentials"}}},
                "Created": {"type": "object", "properties": {
                    "id": {"type": "string"}, "status": {"type": "string"},
                    "tool_count": {"type": "integer"}, "error": {"type": ["string", "null"]},
                    "authorize_url": {"type": ["string", "null"], "description": "authorizationCode: where a person authorizes the gateway (status authenticating)"}}},
                "Server": {"type": "object", "properties": {
                    "id": {"type": "string"}, "slug": {"type": "string"}, "name": {"type": "string"},
                    "url": {"type": "string"}, "auth_method": {"type": "string"},
                    "status": {"type": "string", "enum": ["connecting", "authenticating", "ready", "error", "disabled", "idle", "deleted"]},
                    "authorize_url": {"type": "string", "description": "while authenticating (or a tool waits for more scope): where a person authorizes the gateway"},
                    "last_discovered_at": {"type": ["integer", "null"]}, "last_error": {"type": ["string", "null"]},
                    "discovered_tools": {"type": "array", "items": {"type": "string"}},
                    "created_at": {"type": "integer"}, "deleted_at": {"type": ["integer", "null"]},
                    "source": {"type": "string", "enum": ["config"], "description": "present on servers declared in config files"},
                    "read_only": {"type": "boolean", "description": "true for config-file servers: PATCH and DELETE answer 403"}}}
            }
        }
    });
    if let Some(paths) = doc["paths"].as_object_mut() {
        paths.extend(super::openapi_tenancy::paths(&with));
        paths.extend(super::openapi_console::paths(&with));
    }
    Json(doc)
}
