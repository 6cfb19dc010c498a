//! The REST API (`/api/…`): remote MCP servers per org, agents' actions, policy, the org's
//! issuers, end users' credentials, the audit log, the OpenAPI document.

mod agents;
mod audit;
pub(crate) mod auth;
mod end_users;
mod events;
mod identity;
mod openapi;
mod operations;
mod policy;
mod replicas;
mod servers;

pub use replicas::{JobOptions, spawn_change_listener, spawn_jobs};

use crate::control_plane::ControlPlane;
use axum::Router;
use axum::routing::{get, patch, post};

pub(crate) fn router(state: ControlPlane) -> Router {
    Router::new()
        .route(
            "/api/integrations/mcp/servers",
            post(servers::create).get(servers::list),
        )
        .route(
            "/api/integrations/mcp/servers/{id}",
            patch(servers::update).delete(servers::delete),
        )
        .route(
            "/api/integrations/mcp/servers/{id}/{operation}",
            post(operations::run),
        )
        .route("/api/integrations/mcp/events", get(events::stream))
        .route("/api/audit", get(audit::list))
        .route("/api/audit/verify", get(audit::verify))
        .route("/api/me", get(auth::me))
        .route("/api/agents/{agent}/actions", get(agents::list))
        .route(
            "/api/agents/{agent}/actions/{action_id}",
            axum::routing::put(agents::set),
        )
        .route(
            "/api/agents/{agent}/actions/{action_id}/invoke",
            post(agents::invoke),
        )
        .route("/api/policy", get(policy::get).put(policy::put))
        .route("/api/policy/pending", get(policy::pending))
        .route("/api/policy/approve", post(policy::approve))
        .route("/api/policy/tools", get(policy::tools))
        .route(
            "/api/identity/issuers",
            get(identity::list)
                .put(identity::put)
                .delete(identity::delete),
        )
        .route("/api/end-users/grants", get(end_users::list_all))
        .route("/api/me/grants", get(end_users::list_mine))
        .route(
            "/api/me/grants/{server}",
            axum::routing::delete(end_users::revoke_mine),
        )
        .route("/api/end-users/{end_user}/grants", get(end_users::list_one))
        .route(
            "/api/end-users/{end_user}/grants/{server}",
            axum::routing::delete(end_users::revoke),
        )
        .route(
            "/api/end-users/{end_user}/credentials/{server}",
            axum::routing::put(end_users::set),
        )
        .route("/api/openapi.json", get(openapi::document))
        .with_state(state)
}
