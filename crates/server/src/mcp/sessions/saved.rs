//! Downstream MCP sessions saved in the store, so any replica can serve any session's next
//! request: a load balancer in front of several replicas needs no sticky sessions.

use rmcp::transport::streamable_http_server::session::store::{
    SessionState, SessionStore, SessionStoreError,
};
use std::sync::Arc;
use switchboard_store::Store;

/// Sessions of one endpoint (`/mcp`, or one agent's), kept apart from other endpoints' by a
/// key prefix so a session id is only ever resumed where it began.
pub struct SharedSessions {
    store: Arc<dyn Store>,
    scope: String,
}

impl SharedSessions {
    pub fn new(store: Arc<dyn Store>, scope: impl Into<String>) -> Self {
        Self {
            store,
            scope: scope.into(),
        }
    }

    fn key(&self, id: &str) -> String {
        format!("{}/{id}", self.scope)
    }

    /// Where a session's owner is kept, beside its state (pruned and deleted with it).
    fn owner_key(&self, id: &str) -> String {
        format!("{}/{id}/owner", self.scope)
    }

    /// Marks a saved session used now (the store prunes those unused past their expiry).
    pub async fn mark_used(&self, id: &str) -> Result<(), switchboard_store::StoreError> {
        self.store.touch_session(&self.key(id)).await?;
        self.store.touch_session(&self.owner_key(id)).await
    }

    /// Who opened session `id` (see `owners`), if saved.
    pub async fn load_owner(
        &self,
        id: &str,
    ) -> Result<Option<String>, switchboard_store::StoreError> {
        self.store.load_session(&self.owner_key(id)).await
    }

    pub async fn save_owner(
        &self,
        id: &str,
        owner: &str,
    ) -> Result<(), switchboard_store::StoreError> {
        self.store.save_session(&self.owner_key(id), owner).await
    }
}

#[async_trait::async_trait]
impl SessionStore for SharedSessions {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let Some(json) = self.store.load_session(&self.key(id)).await? else {
            return Ok(None);
        };
        Ok(Some(serde_json::from_str(&json)?))
    }

    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let json = serde_json::to_string(state)?;
        Ok(self.store.save_session(&self.key(id), &json).await?)
    }

    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        self.store.delete_session(&self.owner_key(id)).await?;
        Ok(self.store.delete_session(&self.key(id)).await?)
    }
}
