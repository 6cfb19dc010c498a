//! The REST API (`/api/…`): remote MCP servers per org, the audit log, the OpenAPI document.

mod agent_mcp;
mod agents;
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
    /// The gateway's registry (config servers); org registries are made as its siblings.
    pub registry: Registry,
    pub store: Arc<dyn Store>,
    pub sealer: Arc<Sealer>,
    pub audit: AuditWriter,
    pub orgs: OrgRegistries,
    agent_endpoints: agent_mcp::AgentEndpoints,
}

/// One registry per org for the servers it connected through the API, so slugs and tools of
/// different orgs never meet.
#[derive(Clone, Default)]
pub struct OrgRegistries(Arc<std::sync::Mutex<std::collections::HashMap<String, Registry>>>);

impl OrgRegistries {
    pub fn get(&self, base: &Registry, org_id: &str) -> Registry {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(org_id.to_string())
            .or_insert_with(|| base.sibling())
            .clone()
    }

    /// Stops every org's servers.
    pub async fn shutdown(&self) {
        let all: Vec<Registry> = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect();
        for registry in all {
            registry.shutdown().await;
        }
    }
}

impl ApiState {
    pub fn new(
        registry: Registry,
        store: Arc<dyn Store>,
        sealer: Arc<Sealer>,
        audit: AuditWriter,
    ) -> Self {
        Self {
            registry,
            store,
            sealer,
            audit,
            orgs: OrgRegistries::default(),
            agent_endpoints: Default::default(),
        }
    }

    /// The registry of `org_id`'s API-connected servers.
    pub fn org_registry(&self, org_id: &str) -> Registry {
        self.orgs.get(&self.registry, org_id)
    }

    /// Connects every live API server found in the store (at start-up), concurrently.
    pub async fn load_servers(&self) -> Result<usize, ApiError> {
        let rows: Vec<_> = self
            .store
            .all_servers()
            .await?
            .into_iter()
            .filter(|r| r.deleted_at.is_none())
            .collect();
        let count = rows.len();
        futures::future::join_all(rows.into_iter().map(|mut row| async move {
            let bearer = servers::stored_bearer(self, &row).unwrap_or_default();
            self.connect(&mut row, bearer).await;
            if let Err(e) = self.store.update_server(&row).await {
                tracing::warn!(server = %row.id, "cannot record status: {e}");
            }
        }))
        .await;
        Ok(count)
    }
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
        .route("/api/agents/{agent}/actions", get(agents::list))
        .route(
            "/api/agents/{agent}/actions/{action_id}",
            axum::routing::put(agents::set),
        )
        .route(
            "/api/agents/{agent}/actions/{action_id}/invoke",
            post(agents::invoke),
        )
        .route("/api/openapi.json", get(openapi::document))
        .route("/mcp/agents/{agent}", axum::routing::any(agent_mcp::handle))
        .with_state(state)
}
