//! The REST API (`/api/…`): remote MCP servers per org, the audit log, the OpenAPI document.

mod audit;
mod auth;
mod error;
mod openapi;
mod servers;

pub use auth::{FEATURE, MANAGE, VIEW};
pub use error::ApiError;

use axum::Router;
use axum::routing::{get, patch, post};
use std::sync::Arc;
use switchboard_registry::Registry;
use switchboard_store::{AuditWriter, Sealer, Store};

/// What the API handlers share.
#[derive(Clone)]
pub struct ApiState {
    pub registry: Registry,
    pub store: Arc<dyn Store>,
    pub sealer: Arc<Sealer>,
    pub audit: AuditWriter,
}

pub fn router(state: ApiState) -> Router {
    Router::new()
        .route(
            "/api/integrations/mcp/servers",
            post(servers::create).get(servers::list),
        )
        .route(
            "/api/integrations/mcp/servers/{id}",
            patch(servers::update).delete(servers::delete),
        )
        .route("/api/audit", get(audit::list))
        .route("/api/openapi.json", get(openapi::document))
        .with_state(state)
}
