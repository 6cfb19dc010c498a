//! The aggregated MCP server: lists the registry's catalogue and forwards each request upstream
//! with progress, cancellation and the caller's end-user id.
#![allow(deprecated)] // logging: deprecated by the 2026-07-28 revision, live in older ones

use crate::relay::relay_while;
use crate::resume;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, ErrorData, GetPromptRequestParams, GetPromptResponse, Implementation, JsonObject,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    MetaObject, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ResultType, ServerCapabilities, ServerConfig, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU8, Ordering};
use switchboard_core::{CallError, Caller, ErrorKind};
use switchboard_registry::{CallOptions, Registry};
use switchboard_upstream::Upcall;
use tokio::sync::mpsc;

/// Where a failed tool result carries its machine-readable kind.
pub const KIND_META_KEY: &str = "switchboard/error";

/// One downstream session's view: the operator's config-file registry, plus an org's
/// registry when the request carries the org's API token (or the endpoint is an agent's).
#[derive(Clone)]
pub struct Gateway {
    registry: Registry,
    orgs: Option<crate::api::ApiState>,
    agent: Option<AgentScope>,
    /// This session's own id, for information-flow taint where the transport has none
    /// (stdio: one client per process).
    instance: std::sync::Arc<str>,
    /// The least log level this session asked for (`logging/setLevel`); 0 (debug) until then.
    log_level: std::sync::Arc<AtomicU8>,
}

/// The most verbose log level any session of this process asked upstreams for.
static UPSTREAM_LOG_LEVEL: AtomicU8 = AtomicU8::new(u8::MAX);

/// Limits a gateway to one agent of one org (`/mcp/agents/{agent}`): the policy pipeline
/// shows and calls only the agent's enabled actions.
#[derive(Clone, Debug)]
pub struct AgentScope {
    pub org_id: String,
    pub agent_id: String,
}

/// The API token behind one HTTP request, put in its extensions so every call is audited
/// under the token that made it.
#[derive(Debug, Clone)]
pub struct CallerToken(pub String);

/// The org whose API token authorised a `/mcp` request (put in its extensions by the
/// endpoint's token check).
#[derive(Debug, Clone)]
pub struct OrgCaller {
    pub org_id: String,
    pub token_id: String,
}

/// Who one request is for and which registries it sees, in lookup order.
struct View {
    caller: Caller,
    registries: Vec<Registry>,
}

/// Where a caller's `_meta` names its conversation (information-flow taint is kept per
/// conversation, or per MCP session without one).
pub const CONVERSATION_META_KEY: &str = "switchboard/conversation_id";

impl Gateway {
    pub fn new(registry: Registry) -> Self {
        Self {
            registry,
            orgs: None,
            agent: None,
            instance: new_instance(),
            log_level: Default::default(),
        }
    }

    /// A gateway that also serves orgs' registries to requests carrying an org token.
    pub fn with_orgs(registry: Registry, api: crate::api::ApiState) -> Self {
        Self {
            registry,
            orgs: Some(api),
            agent: None,
            instance: new_instance(),
            log_level: Default::default(),
        }
    }

    /// A gateway for one agent of one org.
    pub fn for_agent(registry: Registry, api: crate::api::ApiState, agent: AgentScope) -> Self {
        Self {
            registry,
            orgs: Some(api),
            agent: Some(agent),
            instance: new_instance(),
            log_level: Default::default(),
        }
    }

    fn view(
        &self,
        extensions: &rmcp::model::Extensions,
        meta: Option<&rmcp::model::RequestMetaObject>,
    ) -> View {
        let parts = extensions.get::<axum::http::request::Parts>();
        let conversation = meta
            .and_then(|m| m.0.get(CONVERSATION_META_KEY))
            .and_then(Value::as_str)
            .map(|id| format!("conv:{id}"));
        let transport = parts
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok())
            .map(|id| format!("mcp:{id}"));
        let token = parts
            .and_then(|p| p.extensions.get::<CallerToken>())
            .map(|t| t.0.clone());
        let org = parts.and_then(|p| p.extensions.get::<OrgCaller>());
        let (org_id, agent_id, token_id) = match (&self.agent, org) {
            (Some(a), _) => (Some(a.org_id.clone()), Some(a.agent_id.clone()), token),
            (None, Some(o)) => (Some(o.org_id.clone()), None, Some(o.token_id.clone())),
            (None, None) => (None, None, None),
        };
        // Taint is kept per org, so one org's conversation ids never meet another's.
        let scope = org_id.as_deref().unwrap_or("operator");
        let session = Some(format!(
            "{scope}|{}",
            conversation
                .or(transport)
                .unwrap_or_else(|| format!("gateway:{}", self.instance))
        ));
        let mut registries = Vec::with_capacity(2);
        if let (Some(api), Some(org)) = (&self.orgs, &org_id) {
            registries.push(api.org_registry(org));
        }
        registries.push(self.registry.clone());
        View {
            caller: Caller {
                org_id,
                agent_id,
                token_id,
                surface: "mcp",
                session,
            },
            registries,
        }
    }

    /// Per-call options from the request context: cancellation, end user, and the channel
    /// that carries the upstream's requests and notifications back to this caller (drain it
    /// with `relay::relay_while`).
    fn call_options(
        &self,
        ctx: &RequestContext<RoleServer>,
        caller: Caller,
    ) -> (CallOptions, mpsc::Receiver<Upcall>) {
        let (tx, rx) = mpsc::channel::<Upcall>(crate::relay::UPCALL_QUEUE);
        let mut opts = CallOptions::default()
            .with_cancel(ctx.ct.clone())
            .with_caller(caller)
            .with_upcalls(tx);
        if let Some(user) = ctx.meta.0.get("bound_end_user_id").and_then(Value::as_str) {
            opts = opts.with_end_user(user);
        }
        (opts, rx)
    }
}

impl Gateway {
    fn min_log(&self) -> u8 {
        self.log_level.load(Ordering::Relaxed)
    }

    /// A tool call from a 2026-07-28 caller: what the upstream asks mid-call becomes an
    /// `input_required` round trip, resumed by the caller's retry with `requestState`.
    async fn call_tool_in_rounds(
        &self,
        registry: Registry,
        request: CallToolRequestParams,
        caller: &Caller,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // 2026-07-28 has no sessions: the handle is bound to the token, agent and tool.
        let owner = format!(
            "{:?}|{:?}|{:?}|{}",
            caller.org_id, caller.agent_id, caller.token_id, request.name
        );
        let flight = match &request.request_state {
            Some(state) => resume::resume(state, &owner, request.input_responses.clone())?,
            None => {
                let (mut opts, upcalls) = self.call_options(context, caller.clone());
                // The call outlives this request while it waits for answers: it is cancelled
                // when abandoned (its flight is dropped), not when this request ends.
                opts.cancel = None;
                let name = request.name.clone();
                let arguments = request.arguments.map(Value::Object);
                let call = async move {
                    match registry.call_tool(&name, arguments, opts).await {
                        Ok(result) => result,
                        Err(error) => failed_result(error),
                    }
                };
                resume::Flight::start(call, upcalls, owner)
            }
        };
        let mut response = resume::drive(flight, context, self.min_log()).await;
        if let CallToolResponse::Complete(result) = &mut response {
            result.result_type.get_or_insert(ResultType::COMPLETE);
        }
        Ok(response)
    }
}

/// The items (resources, templates, prompts) of every registry in `view` whose server the
/// caller sees; each server's visibility is asked once.
async fn visible_items<T>(
    view: &View,
    items: impl Fn(&switchboard_registry::Catalog) -> Vec<(switchboard_core::ServerSlug, T)>,
) -> Vec<T> {
    let mut seen: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for registry in &view.registries {
        for (server, item) in items(&registry.catalog()) {
            let key = format!("{}|{server}", registry.owner().key());
            let visible = match seen.get(&key) {
                Some(v) => *v,
                None => {
                    let v = registry.server_visible(&view.caller, server.as_str()).await;
                    seen.insert(key, v);
                    v
                }
            };
            if visible {
                out.push(item);
            }
        }
    }
    out
}

fn new_instance() -> std::sync::Arc<str> {
    switchboard_store::new_id("session").into()
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
    let mut meta = Value::Object(meta);
    if let Some(ms) = error.retry_after_ms {
        meta[KIND_META_KEY]["retry_after_ms"] = json!(ms);
    }
    result.meta = match meta {
        Value::Object(meta) => Some(MetaObject(meta)),
        _ => None,
    };
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
            .enable_logging()
            .enable_completions()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(
                "switchboard",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions("Switchboard: tools of several MCP servers behind one endpoint.")
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        for registry in self.view(&context.extensions, None).registries {
            forward_changes(&registry, context.peer.clone());
        }
    }

    #[allow(deprecated)] // logging: deprecated by 2026-07-28, live in older revisions
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let rank = crate::relay::level_rank(request.level);
        self.log_level.store(rank, Ordering::Relaxed);
        // Upstreams send what the most verbose session wants; each session filters its own.
        if UPSTREAM_LOG_LEVEL.fetch_min(rank, Ordering::Relaxed) > rank {
            for registry in self
                .view(&context.extensions, Some(&context.meta))
                .registries
            {
                registry.set_log_level(request.level).await;
            }
        }
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        let opts = CallOptions::default()
            .with_cancel(context.ct.clone())
            .with_caller(view.caller.clone());
        let mut last = None;
        for registry in &view.registries {
            match registry.complete(request.clone(), opts.clone()).await {
                Ok(mut result) => {
                    result.result_type.get_or_insert(ResultType::COMPLETE);
                    return Ok(result);
                }
                Err(e) => last = Some(e),
            }
        }
        Err(error_data(last.unwrap_or_else(|| {
            CallError::new(ErrorKind::InvalidRequest, "nothing to complete")
        })))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        let mut tools = Vec::new();
        for registry in &view.registries {
            tools.extend(
                registry
                    .visible_tools(&view.caller)
                    .await
                    .into_iter()
                    .map(|t| t.tool),
            );
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        // The registry that knows the name; the first otherwise (it answers tool_not_found
        // and audits the attempt).
        let registry = view
            .registries
            .iter()
            .find(|r| r.catalog().tool(&request.name).is_some())
            .unwrap_or(&view.registries[0]);
        if context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
        {
            return self
                .call_tool_in_rounds(registry.clone(), request, &view.caller, &context)
                .await;
        }
        let (opts, upcalls) = self.call_options(&context, view.caller.clone());
        let arguments = request.arguments.map(Value::Object);
        let call = registry.call_tool(&request.name, arguments, opts);
        let mut result = match relay_while(call, upcalls, &context, self.min_log()).await {
            Ok(result) => result,
            Err(error) => failed_result(error),
        };
        // An upstream on an older revision sends no `resultType`; 2026-07-28 callers need
        // it (rmcp strips `complete` again for older callers).
        result.result_type.get_or_insert(ResultType::COMPLETE);
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        if self.agent.is_some() {
            return Ok(ListResourcesResult::default());
        }
        let items = visible_items(&view, |c| {
            c.resources
                .iter()
                .map(|r| (r.server.clone(), r.resource.clone()))
                .collect()
        })
        .await;
        Ok(ListResourcesResult::with_all_items(items))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        if self.agent.is_some() {
            return Ok(ListResourceTemplatesResult::default());
        }
        let items = visible_items(&view, |c| {
            c.resource_templates
                .iter()
                .map(|r| (r.server.clone(), r.template.clone()))
                .collect()
        })
        .await;
        Ok(ListResourceTemplatesResult::with_all_items(items))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if self.agent.is_some() {
            return Err(agents_get_actions_only());
        }
        let view = self.view(&context.extensions, Some(&context.meta));
        let registry = view
            .registries
            .iter()
            .find(|r| r.catalog().route_resource(&request.uri).is_some())
            .unwrap_or(&view.registries[0]);
        let (opts, upcalls) = self.call_options(&context, view.caller.clone());
        relay_while(
            registry.read_resource(&request.uri, opts),
            upcalls,
            &context,
            self.min_log(),
        )
        .await
        .map(|mut result| {
            result.result_type.get_or_insert(ResultType::COMPLETE);
            ReadResourceResponse::Complete(result)
        })
        .map_err(error_data)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        if self.agent.is_some() {
            return Ok(ListPromptsResult::default());
        }
        let items = visible_items(&view, |c| {
            c.prompts
                .iter()
                .map(|r| (r.server.clone(), r.prompt.clone()))
                .collect()
        })
        .await;
        Ok(ListPromptsResult::with_all_items(items))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if self.agent.is_some() {
            return Err(agents_get_actions_only());
        }
        let view = self.view(&context.extensions, Some(&context.meta));
        let registry = view
            .registries
            .iter()
            .find(|r| r.catalog().route_prompt(&request.name).is_some())
            .unwrap_or(&view.registries[0]);
        let (opts, upcalls) = self.call_options(&context, view.caller.clone());
        let arguments = request.arguments.map(Value::Object);
        let call = registry.get_prompt(&request.name, arguments, opts);
        relay_while(call, upcalls, &context, self.min_log())
            .await
            .map(|mut result| {
                result.result_type.get_or_insert(ResultType::COMPLETE);
                GetPromptResponse::Complete(result)
            })
            .map_err(error_data)
    }
}
