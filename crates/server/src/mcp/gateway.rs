//! The aggregated MCP server: lists the registry's catalogue and forwards each request upstream
//! with progress, cancellation and the caller's end-user id.
#![allow(deprecated)] // logging: deprecated by the 2026-07-28 revision, live in older ones

mod caching;
mod consent;
mod extensions;
mod feeds;
mod items;
mod replies;
mod rounds;
mod search_mode;
mod session;
mod tasks;
mod view;
mod watches;
mod wire;
use crate::control_plane::callers::AgentScope;
use caching::Cacheable;
use replies::{
    agents_get_actions_only, error_data, failed_call, new_instance, resource_error, visible_items,
};
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, ErrorData, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse, ResultType,
    ServerCapabilities, ServerConfig, SetLevelRequestParams, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use serde_json::Value;
use std::sync::atomic::{AtomicU8, Ordering};
use switchboard_registry::{ListKind, Registry};
use switchboard_upstream::SessionProcesses;
use view::View;

/// Where a failed tool result carries its machine-readable kind.
pub(crate) const KIND_META_KEY: &str = "switchboard/error";

/// One downstream session's view: the operator's config-file registry, plus an org's
/// registry when the request carries the org's API token (or the endpoint is an agent's).
#[derive(Clone)]
pub struct Gateway {
    registry: Registry,
    orgs: Option<crate::control_plane::ControlPlane>,
    agent: Option<AgentScope>,
    /// This session's own id, for information-flow taint where the transport has none
    /// (stdio: one client per process).
    instance: std::sync::Arc<str>,
    /// The least log level this session asked for (`logging/setLevel`); 0 (debug) until then.
    log_level: std::sync::Arc<AtomicU8>,
    /// The resources this session subscribed to.
    watches: watches::SessionWatches,
    /// This session's own processes of stdio servers run once per session.
    processes: SessionProcesses,
    /// The task announcing catalogue changes to this session: it ends with the session.
    change_feed: std::sync::Arc<switchboard_sync::Mutex<tokio::task::JoinSet<()>>>,
    /// Where this session registers itself once initialized, so the endpoint's fast path
    /// can answer its calls (Streamable HTTP only).
    live: Option<std::sync::Arc<crate::mcp::sessions::live::LiveSessions>>,
    /// In search mode with `tools_search_lists_found`: the tools this session found.
    found: search_mode::FoundTools,
    /// The capabilities this session's client declared at `initialize`, and the set the
    /// gateway relays of them, made once (they are fixed for the session; a sessionless
    /// 2026-07-28 request carries its own).
    session_capabilities: std::sync::Arc<std::sync::OnceLock<view::Declared>>,
    /// Where task ends are audited without a control plane (`switchboard stdio`).
    audit: Option<switchboard_store::AuditWriter>,
}

/// Where a caller's `_meta` names its conversation (information-flow taint is kept per
/// conversation, or per MCP session without one).
pub(crate) const CONVERSATION_META_KEY: &str = "switchboard/conversation_id";

impl rmcp::ServerHandler for Gateway {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_logging()
            .enable_completions()
            .build();
        ServerConfig::new(self.with_extensions(capabilities))
            .with_server_info(Implementation::new(
                "switchboard",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions("Switchboard: tools of several MCP servers behind one endpoint.")
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let session = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok());
        if let (Some(live), Some(session)) = (&self.live, session) {
            live.insert(session.into(), self.clone(), context.peer.clone());
        }
        let view = self.view(&context.extensions, None);
        let announce = feeds::forward_changes(&view.registries, context.peer.clone());
        self.change_feed.lock().spawn(announce);
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        // Only this session's own processes: a shared server sees a caller's roots within
        // that caller's calls, and the operator's outside them.
        self.processes.roots_changed().await;
    }

    #[allow(deprecated)] // logging: deprecated by 2026-07-28, live in older revisions
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let rank = switchboard_upstream::level_rank(request.level);
        self.log_level.store(rank, Ordering::Relaxed);
        // Upstreams send what the most verbose session wants; each session filters its own.
        for registry in self
            .view(&context.extensions, Some(&context.meta))
            .registries
        {
            registry.set_log_level(request.level).await;
        }
        self.processes.set_log_level(request.level).await;
        Ok(())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if self.agent.is_some() {
            return Err(agents_get_actions_only());
        }
        let view = self.view(&context.extensions, Some(&context.meta));
        let opts = self.options(&context, view.caller.clone());
        self.watches
            .subscribe(&view.registries, &request.uri, opts, context.peer.clone())
            .await
            .map_err(error_data)
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // Unsubscribing from what this session never watched is not an error.
        self.watches.unsubscribe(&request.uri).await;
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        if self.agent.is_some() {
            let mut lists = requested.clone();
            lists.resource_subscriptions = None;
            return Some(lists);
        }
        let catalog = self.registry.catalog();
        let orgs = self.orgs.is_some();
        Some(watches::acceptable(requested, |uri| {
            orgs || catalog.route_resource(uri).is_some()
        }))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let request = context.request_context();
        let view = self.view(&request.extensions, Some(&request.meta));
        let opts = self.options(request, view.caller.clone());
        watches::listen(view.registries, context, opts)
            .await
            .map_err(error_data)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        let registry = view.registry_for(|c| c.offers_completion(&request.r#ref));
        let opts = self.options(&context, view.caller.clone());
        let mut result = registry.complete(request, opts).await.map_err(error_data)?;
        result.result_type.get_or_insert(ResultType::COMPLETE);
        Ok(result)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        let mode = self.mode_for(&view).await;
        // In search mode the full list is never needed: it is not made.
        if mode != switchboard_core::ToolsMode::Search {
            let mut tools = Vec::new();
            for registry in &view.registries {
                let visible = registry.visible_tools(&view.caller).await;
                tools.extend(visible.into_iter().map(|t| t.tool));
            }
            if !self.lists_meta(mode, tools.len()) {
                let result = ListToolsResult::with_all_items(tools);
                return Ok(result.cached_for(&context, || self.list_cache(&view, ListKind::Tools)));
            }
        }
        let mut tools = search_mode::meta_tools();
        tools.extend(self.found_tools(&view).await.into_iter().map(|t| t.tool));
        // What a session found changes with its searches: stale at once, its own.
        let result = ListToolsResult::with_all_items(tools);
        Ok(result.cached_for(&context, || (0, CacheScope::Private)))
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        let meta = self.meta_tool(&mut request, &view, &context.peer).await;
        if let search_mode::Meta::Answer(result) = meta {
            return Ok(CallToolResponse::Complete(result));
        }
        let registry = view.registry_for(|c| c.tool(&request.name).is_some());
        if is_stateless(&context) {
            return self
                .call_tool_in_rounds(registry.clone(), request, &view.caller, &context)
                .await;
        }
        let arguments = request.arguments.map(Value::Object);
        // Kept for a second run only where a consent may be awaited (a rare caller).
        let again = self.elicits_urls(&context).then(|| arguments.clone());
        let mut called = self
            .relayed(&context, &view, |opts| {
                registry.call_tool(&request.name, arguments, opts)
            })
            .await;
        if let (Err(error), Some(arguments)) = (&called, again) {
            called = match self.consented(registry, error.clone(), &context).await {
                Ok(()) => {
                    let call = |opts| registry.call_tool(&request.name, arguments, opts);
                    self.relayed(&context, &view, call).await
                }
                Err(error) => Err(error),
            };
        }
        let mut result = match called {
            Ok(result) => result,
            Err(error) => match tasks::created(&error) {
                Some(task) => {
                    let task = self.hand_task(registry, task, &context, &view.caller);
                    return task.await.map(CallToolResponse::Task);
                }
                None => failed_call(error)?,
            },
        };
        // An upstream on an older revision sends no `resultType`; 2026-07-28 callers need
        // it (rmcp strips `complete` again for older callers).
        result.result_type.get_or_insert(ResultType::COMPLETE);
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: Ctx,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.list_resources_here(_request, context).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: Ctx,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.list_resource_templates_here(_request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: Ctx,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.read_resource_here(request, context).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: Ctx,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.list_prompts_here(_request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: Ctx,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.get_prompt_here(request, context).await
    }

    async fn get_task(&self, r: GetTaskParams, cx: Ctx) -> Result<GetTaskResult, ErrorData> {
        self.task_get(r.task_id, &cx).await
    }

    async fn update_task(&self, r: UpdateTaskParams, cx: Ctx) -> Result<(), ErrorData> {
        self.task_update(r.task_id, r.input_responses, &cx).await
    }

    async fn cancel_task(&self, r: CancelTaskParams, cx: Ctx) -> Result<(), ErrorData> {
        self.task_cancel(r.task_id, &cx).await
    }

    async fn list_skills(
        &self,
        r: Option<PaginatedRequestParams>,
        cx: Ctx,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.skills_list(r, &cx).await
    }

    async fn get_skill(
        &self,
        r: GetSkillRequestParams,
        cx: Ctx,
    ) -> Result<GetSkillResult, ErrorData> {
        self.skill_get(r, &cx).await
    }

    async fn read_resource_directory(
        &self,
        r: ReadResourceDirectoryRequestParams,
        cx: Ctx,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.directory_read(r, &cx).await
    }
}

/// A request's context, as the extensions' handlers take it.
type Ctx = RequestContext<RoleServer>;

/// Whether the request speaks the stateless 2026-07-28 revision (answers may be rounds).
pub(super) fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}
