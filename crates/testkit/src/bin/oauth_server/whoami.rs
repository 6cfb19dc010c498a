//! The oauth-server fixture's MCP side: `whoami` and `write`, answering with the calling
//! token's scopes (and user), which the token check put in the request.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult,
};
use rmcp::model::{PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;
use std::sync::Arc;

#[derive(Clone)]
pub(crate) struct Scope(pub(crate) String);

#[derive(Clone)]
pub(crate) struct WhoAmI;

impl rmcp::ServerHandler for WhoAmI {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = Arc::new(serde_json::Map::from_iter([(
            "type".to_string(),
            json!("object"),
        )]));
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("whoami", "The scopes of the calling token", schema.clone()),
            Tool::new("write", "Needs the scope write", schema),
        ]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let scope = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|p| p.extensions.get::<Scope>())
            .map_or_else(|| "unknown".to_string(), |s| s.0.clone());
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(format!("scope: {scope}")),
        ])))
    }
}
