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

    /// Refuses an MCP Apps UI that is not the one its tools were reviewed with: content, MIME
    /// type or `_meta.ui` (CSP, permissions) changed after discovery, or one that was never
    /// reviewed (it could not be read at discovery). A change has the server discovered again
    /// (at most once per [`REVIEW_AGAIN_EVERY`]), so it is reviewed and its tools held.
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
        let of_server = (catalog.tools.iter()).filter(|t| t.server.as_str() == server);
        let naming: Vec<_> = of_server
            .filter(|t| {
                crate::catalog::ui_uris::app_of(&t.tool).is_some_and(|app| {
                    t.app
                        .as_ref()
                        .map_or(app == uri, |reviewed| reviewed["uri"] == uri)
                })
            })
            .collect();
        if naming.is_empty() {
            return Ok(()); // no tool names it: not an app's UI
        }
        let refuse = |why: String| Err(CallError::new(ErrorKind::PolicyDenied, why));
        let Some(reviewed) = naming.iter().find_map(|t| t.app.clone()) else {
            return refuse(format!(
                "the UI {uri} of server {server} was never reviewed (it could not be read at discovery): it is not served; `switchboard server refresh {server}` reads it again"
            ));
        };
        if naming.iter().all(|t| t.quarantined().is_some()) {
            return refuse(format!(
                "the UI {uri} of server {server} is held with its tools until an operator approves them (switchboard tools diff {server} / tools approve)"
            ));
        }
        let as_reviewed = |contents: &ResourceContents| {
            let (body, mime, meta) = match contents {
                ResourceContents::TextResourceContents {
                    text,
                    mime_type,
                    meta,
                    ..
                } => (text, mime_type, meta),
                ResourceContents::BlobResourceContents {
                    blob,
                    mime_type,
                    meta,
                    ..
                } => (blob, mime_type, meta),
                _ => return false,
            };
            let ui = meta.as_ref().and_then(|m| m.get("ui").cloned());
            hex::encode(sha2::Sha256::digest(body.as_bytes())) == reviewed["sha256"]
                && serde_json::to_value(mime).ok().as_ref() == Some(&reviewed["mimeType"])
                && ui.unwrap_or(Value::Null) == reviewed["ui"]
        };
        if !read.contents.is_empty() && read.contents.iter().all(as_reviewed) {
            return Ok(());
        }
        if review_again_due(&self.owner().key(), server) {
            tracing::warn!(
                server,
                uri,
                "an app's UI changed since its tools were reviewed; discovering the server again"
            );
            let (registry, name) = (self.clone(), server.to_string());
            tokio::spawn(async move { registry.rediscover(&name).await });
        }
        refuse(format!(
            "the UI {uri} of server {server} changed since its tools were reviewed: it is reviewed again now, and its tools are held until an operator approves the change (switchboard tools diff {server} / tools approve)"
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

/// How often a changed UI may have its server discovered again (reads of it in between are
/// refused without another discovery: a caller looping on reads cannot make work).
pub(crate) const REVIEW_AGAIN_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Whether a rediscovery for a changed UI of `server` (of registry `owner`) may start now.
fn review_again_due(owner: &str, server: &str) -> bool {
    static LAST: std::sync::LazyLock<
        switchboard_sync::Mutex<std::collections::HashMap<String, std::time::Instant>>,
    > = std::sync::LazyLock::new(Default::default);
    let mut last = LAST.lock();
    let now = std::time::Instant::now();
    last.retain(|_, at| now.duration_since(*at) < REVIEW_AGAIN_EVERY);
    let key = format!("{owner}|{server}");
    if last.contains_key(&key) {
        return false;
    }
    last.insert(key, now);
    true
}
