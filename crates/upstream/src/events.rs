//! Our rmcp client handler: routes upstream progress to the waiting caller and reports changes.

use crate::call::Progress;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ProgressNotificationParam, ProgressToken,
    ProtocolVersion,
};
use rmcp::service::{NotificationContext, RoleClient};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use switchboard_core::ServerSlug;
use tokio::sync::mpsc;

/// A change an upstream announced; the registry re-discovers on these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamEvent {
    ToolsChanged(ServerSlug),
    ResourcesChanged(ServerSlug),
    PromptsChanged(ServerSlug),
}

type ProgressRoutes = Arc<Mutex<HashMap<ProgressToken, mpsc::Sender<Progress>>>>;

#[derive(Clone)]
pub struct EventHandler {
    server: ServerSlug,
    info: ClientConfig,
    progress: ProgressRoutes,
    events: Option<mpsc::Sender<UpstreamEvent>>,
}

impl EventHandler {
    pub fn new(
        server: ServerSlug,
        protocol: ProtocolVersion,
        events: Option<mpsc::Sender<UpstreamEvent>>,
    ) -> Self {
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("switchboard", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(protocol);
        Self {
            server,
            info,
            progress: Arc::default(),
            events,
        }
    }

    /// Sends progress for `token` to `sink` until the returned guard is dropped.
    pub fn route_progress(
        &self,
        token: ProgressToken,
        sink: mpsc::Sender<Progress>,
    ) -> ProgressRoute {
        lock(&self.progress).insert(token.clone(), sink);
        ProgressRoute {
            routes: self.progress.clone(),
            token,
        }
    }

    fn emit(&self, event: UpstreamEvent) {
        if let Some(tx) = &self.events
            && tx.try_send(event).is_err()
        {
            tracing::debug!(server = %self.server, "change event dropped: receiver busy or gone");
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes a progress route when the call ends, however it ends.
pub struct ProgressRoute {
    routes: ProgressRoutes,
    token: ProgressToken,
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        lock(&self.routes).remove(&self.token);
    }
}

impl rmcp::ClientHandler for EventHandler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let sink = lock(&self.progress).get(&params.progress_token).cloned();
        if let Some(sink) = sink {
            // Progress is advisory: a slow consumer loses updates rather than stalling the connection.
            let _ = sink.try_send(Progress {
                progress: params.progress,
                total: params.total,
                message: params.message,
            });
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.emit(UpstreamEvent::ToolsChanged(self.server.clone()));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.emit(UpstreamEvent::ResourcesChanged(self.server.clone()));
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.emit(UpstreamEvent::PromptsChanged(self.server.clone()));
    }
}
