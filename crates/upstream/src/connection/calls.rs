//! Tool calls: sent directly (Streamable HTTP, stdio) where the connection can, else through
//! rmcp; in rounds on a 2026-07-28 server; results held to the size limit.

use super::{Connection, Direct};
use crate::UpstreamError;
use crate::call::CallOptions;
use crate::direct::Link;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, JsonObject, ServerResult,
};

impl Connection {
    /// Calls one tool. On timeout or when `opts.cancel` fires, the upstream is told to cancel.
    pub async fn call_tool(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        opts: CallOptions,
    ) -> Result<CallToolResult, UpstreamError> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        // Only a 2026-07-28 server asks for input by answering `input_required`; the others
        // get the call once.
        let answer = if self.asks_for_input {
            let build = |responses, state| {
                let mut params = params.clone();
                params.input_responses = responses;
                params.request_state = state;
                params
            };
            let send = |params, opts| self.send_call(params, opts);
            self.request_in_rounds(build, send, opts).await?
        } else {
            self.send_call(params, opts).await?
        };
        match answer {
            ServerResult::CallToolResult(result) => self.sized(result),
            ServerResult::CreateTaskResult(task) => Err(UpstreamError::TaskCreated(Box::new(task))),
            _ => Err(UpstreamError::Unexpected),
        }
    }

    /// Sends `tools/call` once: directly (over Streamable HTTP or onto a stdio server's stdin)
    /// where it can, else through rmcp. The direct path sends a copy: if the upstream forgot
    /// the session (404), or the stdio transport has ended, rmcp sends the call instead.
    async fn send_call(
        &self,
        params: CallToolRequestParams,
        opts: CallOptions,
    ) -> Result<ServerResult, UpstreamError> {
        if let Some(direct) = &self.direct {
            let link = Link {
                peer: &self.peer,
                handler: &self.handler,
                timeout: opts.timeout.unwrap_or(self.call_timeout),
                request_meta: self.asks_for_input.then(|| self.stateless_meta(&opts)),
            };
            let answer = match direct {
                Direct::Http(http) if self.direct_takes(&params.name) => {
                    http.call_tool(link, params.clone(), &opts).await
                }
                Direct::Http(_) => None,
                Direct::Stdio(stdio) => stdio.call_tool(link, params.clone(), &opts).await,
            };
            if let Some(answer) = answer {
                return answer;
            }
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        self.request(request, opts).await
    }

    /// Whether the direct HTTP path can send a call of `tool`: always on a session; on the
    /// 2026-07-28 revision only when rmcp's headers for it are the plain ones (a name that is
    /// a valid header value, no `x-mcp-header` arguments).
    fn direct_takes(&self, tool: &str) -> bool {
        !self.asks_for_input
            || (http::HeaderValue::from_str(tool).is_ok()
                && !self.param_header_tools.lock().contains(tool))
    }

    /// What a 2026-07-28 request carries in `_meta` besides its own fields: the revision, the
    /// gateway's name, and what the caller can answer.
    fn stateless_meta(&self, opts: &CallOptions) -> rmcp::model::RequestMetaObject {
        // The revision and the gateway's name were serialized once, at connect.
        let mut meta = self.revision_meta.clone().unwrap_or_default();
        let caps = crate::relay::relayable_capabilities(caller_capabilities(opts));
        meta.set_client_capabilities(caps);
        meta
    }

    /// A tool result within the size limit, or the limit's error.
    fn sized(&self, result: CallToolResult) -> Result<CallToolResult, UpstreamError> {
        let size = result_size(&result);
        if size > self.max_result_bytes {
            return Err(UpstreamError::TooLarge {
                what: "tool result",
                size,
                limit: self.max_result_bytes,
                setting: "max_result_bytes",
            });
        }
        Ok(result)
    }
}

/// Bytes a tool result carries: its content blocks and structured content, as serialized.
pub fn result_size(result: &CallToolResult) -> usize {
    let content: usize = result
        .content
        .iter()
        .map(|block| match block.as_text() {
            Some(text) => text.text.len(),
            None => serde_json::to_vec(block).map_or(0, |v| v.len()),
        })
        .sum();
    let structured = result
        .structured_content
        .as_ref()
        .map_or(0, |v| serde_json::to_vec(v).map_or(0, |v| v.len()));
    content + structured
}

/// The capabilities the caller declared, when somebody can answer (a relayed call).
pub(crate) fn caller_capabilities(opts: &CallOptions) -> Option<&rmcp::model::ClientCapabilities> {
    opts.upcalls
        .as_ref()
        .and(opts.caller_capabilities.as_deref())
}
