//! The aggregated MCP server: lists the registry's catalogue and forwards each request upstream
//! with progress, cancellation and the caller's end-user id.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    GetPromptRequestParams, GetPromptResponse, Implementation, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, MetaObject,
    PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};
use serde_json::{Value, json};
use switchboard_core::{CallError, Caller, ErrorKind};
use switchboard_registry::{CallOptions, Progress, Registry};
use tokio::sync::mpsc;

/// Where a failed tool result carries its machine-readable kind.
pub const KIND_META_KEY: &str = "switchboard/error";

/// One downstream session's view of the registry.
#[derive(Clone)]
pub struct Gateway {
    registry: Registry,
    scope: Option<AgentScope>,
}

/// Limits a gateway to one agent's enabled actions (`/mcp/agents/{agent}`).
#[derive(Clone)]
pub struct AgentScope {
    pub store: std::sync::Arc<dyn switchboard_store::Store>,
    /// Org and agent; the token id is taken from each request (see [`CallerToken`]).
    pub caller: Caller,
    /// The operator's config-file servers, whose actions agents may be given too.
    pub shared: Option<Registry>,
}

/// The API token behind one HTTP request, put in its extensions by the agent endpoint so
/// every call is audited under the token that made it.
#[derive(Debug, Clone)]
pub struct CallerToken(pub String);

impl AgentScope {
    async fn enabled(&self) -> Vec<String> {
        let (Some(org), Some(agent)) = (&self.caller.org_id, &self.caller.agent_id) else {
            return Vec::new();
        };
        self.store
            .enabled_actions(org, agent)
            .await
            .unwrap_or_else(|e| {
                tracing::error!("cannot read enabled actions: {e}");
                Vec::new()
            })
    }
}

impl Gateway {
    pub fn new(registry: Registry) -> Self {
        Self {
            registry,
            scope: None,
        }
    }

    /// A gateway that shows and calls only `scope`'s enabled actions.
    pub fn scoped(registry: Registry, scope: AgentScope) -> Self {
        Self {
            registry,
            scope: Some(scope),
        }
    }

    /// Every registry this gateway shows tools of: its own, then the shared one if scoped.
    fn registries(&self) -> impl Iterator<Item = &Registry> {
        std::iter::once(&self.registry).chain(self.scope.as_ref().and_then(|s| s.shared.as_ref()))
    }

    /// The registry that knows tool `exposed` (its own when none does: the call then fails
    /// there as `tool_not_found`).
    fn route(&self, exposed: &str) -> &Registry {
        self.registries()
            .find(|r| r.catalog().tool(exposed).is_some())
            .unwrap_or(&self.registry)
    }

    /// The catalogue for resources and prompts: agent endpoints offer enabled actions only.
    fn unscoped_catalog(&self) -> Option<std::sync::Arc<switchboard_registry::Catalog>> {
        self.scope.is_none().then(|| self.registry.catalog())
    }

    /// Per-call options from the request context: cancellation, progress and end user.
    fn call_options(&self, ctx: &RequestContext<RoleServer>) -> CallOptions {
        let caller = match &self.scope {
            Some(scope) => Caller {
                token_id: ctx
                    .extensions
                    .get::<axum::http::request::Parts>()
                    .and_then(|p| p.extensions.get::<CallerToken>())
                    .map(|t| t.0.clone()),
                ..scope.caller.clone()
            },
            None => Caller {
                surface: "mcp",
                ..Caller::default()
            },
        };
        let mut opts = CallOptions::default()
            .with_cancel(ctx.ct.clone())
            .with_caller(caller);
        if let Some(user) = ctx.meta.0.get("bound_end_user_id").and_then(Value::as_str) {
            opts = opts.with_end_user(user);
        }
        if let Some(token) = ctx.meta.get_progress_token() {
            let (tx, mut rx) = mpsc::channel::<Progress>(32);
            let peer = ctx.peer.clone();
            tokio::spawn(async move {
                while let Some(p) = rx.recv().await {
                    let mut param = ProgressNotificationParam::new(token.clone(), p.progress);
                    param.total = p.total;
                    param.message = p.message;
                    if peer.notify_progress(param).await.is_err() {
                        break;
                    }
                }
            });
            opts = opts.with_progress(tx);
        }
        opts
    }
}

fn failed_result(error: CallError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "{}: {}",
        error.kind, error.message
    ))]);
    let mut meta = JsonObject::new();
    meta.insert(
        KIND_META_KEY.into(),
        json!({"kind": error.kind.as_str(), "message": error.message}),
    );
    result.meta = Some(MetaObject(meta));
    result
}

fn agents_get_actions_only() -> ErrorData {
    error_data(CallError::new(
        ErrorKind::PolicyDenied,
        "agent endpoints offer the agent's enabled actions only; resources and prompts are served on /mcp",
    ))
}

fn error_data(error: CallError) -> ErrorData {
    let data = Some(json!({"kind": error.kind.as_str()}));
    match error.kind {
        ErrorKind::InvalidRequest | ErrorKind::ToolNotFound => {
            ErrorData::invalid_params(error.message, data)
        }
        _ => ErrorData::internal_error(error.message, data),
    }
}

/// Re-announces catalogue changes to one downstream peer until it goes away.
fn forward_changes(registry: &Registry, peer: Peer<RoleServer>) {
    let mut changes = registry.subscribe();
    tokio::spawn(async move {
        loop {
            match changes.recv().await {
                Ok(()) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
            let sent = peer.notify_tool_list_changed().await.is_ok()
                && peer.notify_resource_list_changed().await.is_ok()
                && peer.notify_prompt_list_changed().await.is_ok();
            if !sent || peer.is_transport_closed() {
                return;
            }
        }
    });
}

impl rmcp::ServerHandler for Gateway {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_prompts()
            .enable_prompts_list_changed()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(
                "switchboard",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions("Switchboard: tools of several MCP servers behind one endpoint.")
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        for registry in self.registries() {
            forward_changes(registry, context.peer.clone());
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let enabled = match &self.scope {
            Some(scope) => Some(scope.enabled().await),
            None => None,
        };
        let mut tools = Vec::new();
        for registry in self.registries() {
            tools.extend(
                registry
                    .catalog()
                    .tools
                    .iter()
                    .filter(|t| {
                        enabled
                            .as_ref()
                            .is_none_or(|e| e.contains(&t.action_id.to_string()))
                    })
                    .map(|t| t.tool.clone()),
            );
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Unscoped (`/mcp`): one registry, and `call_tool` routes by name itself.
        let registry = match &self.scope {
            Some(_) => self.route(&request.name),
            None => &self.registry,
        };
        if let Some(scope) = &self.scope {
            let action = registry
                .catalog()
                .tool(&request.name)
                .map(|t| t.action_id.to_string());
            let allowed = match action {
                Some(action) => scope.enabled().await.contains(&action),
                None => true, // unknown names fail below as tool_not_found
            };
            if !allowed {
                return Ok(CallToolResponse::Complete(failed_result(CallError::new(
                    ErrorKind::PolicyDenied,
                    format!("{} is not enabled for this agent", request.name),
                ))));
            }
        }
        let opts = self.call_options(&context);
        let arguments = request.arguments.map(Value::Object);
        let result = match registry.call_tool(&request.name, arguments, opts).await {
            Ok(result) => result,
            Err(error) => failed_result(error),
        };
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let Some(catalog) = self.unscoped_catalog() else {
            return Ok(ListResourcesResult::default());
        };
        Ok(ListResourcesResult::with_all_items(
            catalog
                .resources
                .iter()
                .map(|r| r.resource.clone())
                .collect(),
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let Some(catalog) = self.unscoped_catalog() else {
            return Ok(ListResourceTemplatesResult::default());
        };
        Ok(ListResourceTemplatesResult::with_all_items(
            catalog
                .resource_templates
                .iter()
                .map(|t| t.template.clone())
                .collect(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.unscoped_catalog()
            .ok_or_else(agents_get_actions_only)?;
        let opts = self.call_options(&context);
        self.registry
            .read_resource(&request.uri, opts)
            .await
            .map(ReadResourceResponse::Complete)
            .map_err(error_data)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let Some(catalog) = self.unscoped_catalog() else {
            return Ok(ListPromptsResult::default());
        };
        Ok(ListPromptsResult::with_all_items(
            catalog.prompts.iter().map(|p| p.prompt.clone()).collect(),
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.unscoped_catalog()
            .ok_or_else(agents_get_actions_only)?;
        let opts = self.call_options(&context);
        let arguments = request.arguments.map(Value::Object);
        self.registry
            .get_prompt(&request.name, arguments, opts)
            .await
            .map(GetPromptResponse::Complete)
            .map_err(error_data)
    }
}
