//! Requests a downstream session makes that are not calls: completions for prompt arguments
//! and resource URIs, routed to the server that offers them, resource subscriptions and the
//! upstream log level.
#![allow(deprecated)] // logging: deprecated by the 2026-07-28 revision, live in older ones

use super::Registry;
use crate::{ResourceUpdate, ResourceWatch};
use rmcp::model::{CompleteRequestParams, CompleteResult, LoggingLevel, Reference};
use switchboard_core::{CallError, ErrorKind};
use switchboard_upstream::CallOptions;
use tokio::sync::broadcast;

impl Registry {
    /// Completes a prompt argument or resource URI argument at the server that offers it.
    pub async fn complete(
        &self,
        mut params: CompleteRequestParams,
        opts: CallOptions,
    ) -> Result<CompleteResult, CallError> {
        let unknown = |what: String| CallError::new(ErrorKind::InvalidRequest, what);
        let catalog = self.catalog();
        let server = match &mut params.r#ref {
            Reference::Prompt(prompt) => {
                let (server, upstream) = catalog
                    .route_prompt(&prompt.name)
                    .map(|(s, p)| (s.clone(), p.to_string()))
                    .ok_or_else(|| unknown(format!("no prompt named {:?}", prompt.name)))?;
                prompt.name = upstream;
                server
            }
            Reference::Resource(resource) => {
                let template = catalog
                    .resource_templates
                    .iter()
                    .find(|t| t.template.uri_template == resource.uri);
                match template {
                    Some(t) => t.server.clone(),
                    None => {
                        let (server, upstream) =
                            catalog.route_resource(&resource.uri).ok_or_else(|| {
                                unknown(format!("no server offers {:?}", resource.uri))
                            })?;
                        resource.uri = upstream;
                        server
                    }
                }
            }
            _ => {
                return Err(unknown(
                    "completion for an unknown kind of reference".into(),
                ));
            }
        };
        if !self.server_visible(&opts.caller, server.as_str()).await {
            return Err(unknown("no server offers this completion".into()));
        }
        self.on_server(server.as_str(), opts, |conn, _| async move {
            conn.complete(params).await
        })
        .await
    }

    /// Asks every running server that offers logging for lines at `level` and above, when
    /// no session asked for a level as verbose before (each session filters to its own).
    pub async fn set_log_level(&self, level: LoggingLevel) {
        // Servers that connect later get it from the connect options.
        if !self.inner.connect.log_level.lower_to(level) {
            return;
        }
        let entries: Vec<_> = self.inner.servers.read().clone();
        for entry in entries {
            if let Some(conn) = entry.live_connection()
                && let Err(e) = conn.set_log_level(level).await
            {
                tracing::debug!(server = %entry.spec.name, "logging/setLevel: {e}");
            }
        }
    }

    /// Subscribes the caller to the resource exposed as `uri`: the upstream is asked once,
    /// for the first watcher; dropping the last [`ResourceWatch`] unsubscribes. Updates
    /// arrive on [`Registry::resource_updates`] under the upstream's own URI.
    pub async fn watch_resource(
        &self,
        uri: &str,
        mut opts: CallOptions,
    ) -> Result<ResourceWatch, CallError> {
        // One upstream subscription serves every session: it lives on the server's shared
        // process, also for a `per_session` server.
        opts.session_processes = None;
        let unknown = || {
            CallError::new(
                ErrorKind::InvalidRequest,
                format!("no server offers the resource {uri:?}"),
            )
        };
        let (server, upstream) = self.catalog().route_resource(uri).ok_or_else(unknown)?;
        if !self.server_visible(&opts.caller, server.as_str()).await {
            return Err(unknown());
        }
        let entry = self.entry(server.as_str()).ok_or_else(unknown)?;
        if entry.spec.end_user_credentials.is_some() {
            // One subscription serves every watcher, and each end user sees only their own.
            return Err(CallError::new(
                ErrorKind::InvalidRequest,
                format!(
                    "server {server} acts as each end user with their own credential, and resource subscriptions on it are not supported yet: read the resource instead"
                ),
            ));
        }
        let asked = upstream.clone();
        let subscribe = || {
            self.on_server(server.as_str(), opts, |conn, _| async move {
                conn.watch_resource(&asked, true).await
            })
        };
        entry.watched.add(&upstream, subscribe).await?;
        Ok(ResourceWatch::counted(entry, upstream))
    }

    /// Every resource update this registry's upstreams announce (for the URIs watched).
    pub fn resource_updates(&self) -> broadcast::Receiver<ResourceUpdate> {
        self.inner.updates.subscribe()
    }
}
