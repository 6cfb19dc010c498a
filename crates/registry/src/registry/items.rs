//! Resources and prompts read through the registry: routed by exposed name or URI, hidden
//! servers answered as absent, each in its own span of the caller's trace.

use super::Registry;
use super::calls::object_arguments;
use super::traced::{call_span, to_upstream, traced};
use rmcp::model::{GetPromptResult, ReadResourceResult, ResourceContents};
use serde_json::Value;
use sha2::Digest;
use switchboard_core::{CallError, ErrorKind};
use switchboard_upstream::CallOptions;

impl Registry {
    /// Reads a resource by its exposed URI.
    pub async fn read_resource(
        &self,
        uri: &str,
        opts: CallOptions,
    ) -> Result<ReadResourceResult, CallError> {
        let span = call_span("resources/read", uri, &opts.caller);
        traced(span, self.read_resource_routed(uri, opts), |_| false).await
    }

    async fn read_resource_routed(
        &self,
        uri: &str,
        opts: CallOptions,
    ) -> Result<ReadResourceResult, CallError> {
        let (server, upstream_uri) = self.catalog().route_resource(uri).ok_or_else(|| {
            CallError::new(
                ErrorKind::InvalidRequest,
                format!("no server offers resource {uri:?}"),
            )
        })?;
        if !self.server_visible(&opts.caller, server.as_str()).await {
            return Err(CallError::new(
                ErrorKind::InvalidRequest,
                format!("no server offers resource {uri:?}"),
            ));
        }
        let server = server.as_str();
        let asked = upstream_uri.clone();
        let mut result = self
            .on_server(server, opts, |conn, opts| async move {
                let request = conn.read_resource(&upstream_uri, opts);
                to_upstream("resources/read", &upstream_uri, server, request).await
            })
            .await?;
        self.as_reviewed(server, &asked, &result)?;
        // The contents name the URI the caller read (a prefixed one, when it was).
        for contents in &mut result.contents {
            match contents {
                ResourceContents::TextResourceContents { uri: named, .. }
                | ResourceContents::BlobResourceContents { uri: named, .. }
                    if *named == asked =>
                {
                    *named = uri.to_string();
                }
                _ => {}
            }
        }
        Ok(result)
    }

    /// Refuses an MCP Apps UI whose content is not the one its tools were reviewed with (it
    /// changed after discovery), and has the server discovered again, so the change is
    /// reviewed (its tools held until approved) before the UI is served.
    fn as_reviewed(
        &self,
        server: &str,
        uri: &str,
        read: &ReadResourceResult,
    ) -> Result<(), CallError> {
        if !uri.starts_with(crate::catalog::ui_uris::UI_SCHEME) {
            return Ok(());
        }
        let catalog = self.catalog();
        let naming: Vec<_> = (catalog.tools.iter())
            .filter(|t| t.server.as_str() == server)
            .filter(|t| t.app.as_ref().is_some_and(|app| app["uri"] == uri))
            .collect();
        let Some(reviewed) = (naming.first())
            .and_then(|t| t.app.as_ref())
            .and_then(|app| app["sha256"].as_str().map(String::from))
        else {
            return Ok(());
        };
        if naming.iter().all(|t| t.quarantined().is_some()) {
            return Err(CallError::new(
                ErrorKind::PolicyDenied,
                format!(
                    "the UI {uri} of server {server} is held with its tools until an operator approves them (switchboard tools diff {server} / tools approve)"
                ),
            ));
        }
        let body = match read.contents.first() {
            Some(ResourceContents::TextResourceContents { text, .. }) => text,
            Some(ResourceContents::BlobResourceContents { blob, .. }) => blob,
            _ => return Ok(()),
        };
        let now = hex::encode(sha2::Sha256::digest(body.as_bytes()));
        if now == reviewed {
            return Ok(());
        }
        tracing::warn!(
            server,
            uri,
            "an app's UI changed since its tools were reviewed; discovering the server again"
        );
        let (registry, name) = (self.clone(), server.to_string());
        tokio::spawn(async move { registry.rediscover(&name).await });
        Err(CallError::new(
            ErrorKind::PolicyDenied,
            format!(
                "the UI {uri} of server {server} changed since its tools were reviewed: it is reviewed again now, and its tools are held until an operator approves the change (switchboard tools diff {server} / tools approve)"
            ),
        ))
    }

    /// Gets a prompt by its exposed name.
    pub async fn get_prompt(
        &self,
        exposed: &str,
        arguments: Option<Value>,
        opts: CallOptions,
    ) -> Result<GetPromptResult, CallError> {
        let span = call_span("prompts/get", exposed, &opts.caller);
        traced(
            span,
            self.get_prompt_routed(exposed, arguments, opts),
            |_| false,
        )
        .await
    }

    async fn get_prompt_routed(
        &self,
        exposed: &str,
        arguments: Option<Value>,
        opts: CallOptions,
    ) -> Result<GetPromptResult, CallError> {
        let (server, prompt) = self
            .catalog()
            .route_prompt(exposed)
            .map(|(s, p)| (s.to_string(), p.to_string()))
            .ok_or_else(|| {
                CallError::new(
                    ErrorKind::InvalidRequest,
                    format!("no prompt named {exposed:?}"),
                )
            })?;
        if !self.server_visible(&opts.caller, &server).await {
            return Err(CallError::new(
                ErrorKind::InvalidRequest,
                format!("no prompt named {exposed:?}"),
            ));
        }
        let arguments = object_arguments(arguments)?;
        let server = server.as_str();
        self.on_server(server, opts, |conn, opts| async move {
            let request = conn.get_prompt(&prompt, arguments, opts);
            to_upstream("prompts/get", &prompt, server, request).await
        })
        .await
    }
}
