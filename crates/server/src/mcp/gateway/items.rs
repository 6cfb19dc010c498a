//! Resources and prompts as the gateway serves them: every server's the caller sees, read
//! and got through the server that offers them (in rounds for 2026-07-28 callers).

use super::caching::{self, Cacheable};
use super::{
    Gateway, agents_get_actions_only, error_data, is_stateless, resource_error, visible_items,
};
use rmcp::model::{
    ErrorData, GetPromptRequestParams, GetPromptResponse, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ResultType,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use switchboard_registry::ListKind;

impl Gateway {
    pub(super) async fn list_resources_here(
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
        let result = ListResourcesResult::with_all_items(items);
        Ok(result.cached_for(&context, || self.list_cache(&view, ListKind::Resources)))
    }

    pub(super) async fn list_resource_templates_here(
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
        let result = ListResourceTemplatesResult::with_all_items(items);
        Ok(result.cached_for(&context, || {
            self.list_cache(&view, ListKind::ResourceTemplates)
        }))
    }

    pub(super) async fn read_resource_here(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if self.agent.is_some() {
            return Err(agents_get_actions_only());
        }
        let view = self.view(&context.extensions, Some(&context.meta));
        let registry = view.registry_for(|c| c.route_resource(&request.uri).is_some());
        if is_stateless(&context) {
            return self
                .read_resource_in_rounds(registry.clone(), request, &view.caller, &context)
                .await;
        }
        let mut result = self
            .relayed(&context, &view, |opts| {
                registry.read_resource(&request.uri, opts)
            })
            .await
            .map_err(|e| resource_error(e, &request.uri))?;
        result.result_type.get_or_insert(ResultType::COMPLETE);
        Ok(ReadResourceResponse::Complete(caching::scoped_read(
            result,
            self.one_audience(),
        )))
    }

    pub(super) async fn list_prompts_here(
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
        let result = ListPromptsResult::with_all_items(items);
        Ok(result.cached_for(&context, || self.list_cache(&view, ListKind::Prompts)))
    }

    pub(super) async fn get_prompt_here(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if self.agent.is_some() {
            return Err(agents_get_actions_only());
        }
        let view = self.view(&context.extensions, Some(&context.meta));
        let registry = view.registry_for(|c| c.route_prompt(&request.name).is_some());
        if is_stateless(&context) {
            return self
                .get_prompt_in_rounds(registry.clone(), request, &view.caller, &context)
                .await;
        }
        let arguments = request.arguments.map(Value::Object);
        let mut result = self
            .relayed(&context, &view, |opts| {
                registry.get_prompt(&request.name, arguments, opts)
            })
            .await
            .map_err(error_data)?;
        result.result_type.get_or_insert(ResultType::COMPLETE);
        Ok(GetPromptResponse::Complete(result))
    }
}
