//! The REST API (`/api/…`): remote MCP servers per org, agents' actions, policy, the org's
//! issuers, end users' credentials, the audit log, the OpenAPI document.

mod agents;
mod audit;
pub(crate) mod auth;
mod console;
mod end_users;
mod events;
mod identity;
mod openapi;
mod openapi_console;
mod openapi_tenancy;
mod operations;
mod policy;
mod replicas;
mod servers;
mod tenancy;

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
        .route("/api/stats", get(console::stats))
        .route("/api/agents", get(console::list_agents))
        .route(
            "/api/agents/{agent}/actions",
            get(agents::list).put(console::set_many),
        )
        .route("/api/catalog", get(console::catalog))
        .route("/api/catalog/resources/read", post(console::read_resource))
        .route("/api/catalog/prompts/get", post(console::get_prompt))
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
        .route(
            "/api/orgs",
            get(tenancy::list_orgs).post(tenancy::create_org),
        )
        .route(
            "/api/orgs/{name}",
            patch(tenancy::update_org).delete(tenancy::delete_org),
        )
        .route(
            "/api/tokens",
            get(tenancy::list_tokens).post(tenancy::create_token),
        )
        .route(
            "/api/tokens/{id}",
            axum::routing::delete(tenancy::revoke_token),
        )
        .route("/api/openapi.json", get(openapi::document))
        .with_state(state)
}

/// A query string read into `T`; one that does not fit is a JSON `invalid_request` naming the
/// parameter, like every other REST error (axum's own answer is plain text).
pub(crate) struct ApiQuery<T>(pub T);

impl<T, S> axum::extract::FromRequestParts<S> for ApiQuery<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = crate::control_plane::ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(query)) => Ok(ApiQuery(query)),
            Err(e) => Err(crate::control_plane::ApiError::Invalid(format!(
                "{}; /api/openapi.json lists each route's parameters",
                e.body_text()
            ))),
        }
    }
}
