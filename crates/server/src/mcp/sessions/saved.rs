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

    /// Marks a saved session used now (the store prunes those unused past their expiry).
    pub async fn mark_used(&self, id: &str) -> Result<(), switchboard_store::StoreError> {
        self.store.touch_session(&self.key(id)).await
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
        Ok(self.store.delete_session(&self.key(id)).await?)
    }
}
