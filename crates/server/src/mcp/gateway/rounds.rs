//! Tool calls from callers on the stateless 2026-07-28 revision: what the upstream asks
//! mid-call becomes `input_required` rounds (see `crate::mcp::resume`).

use super::{Gateway, failed_result};
use crate::mcp::resume;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ErrorData, ResultType};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use switchboard_core::Caller;
use switchboard_registry::Registry;

impl Gateway {
    /// A tool call from a 2026-07-28 caller: what the upstream asks mid-call becomes an
    /// `input_required` round trip, resumed by the caller's retry with `requestState`.
    pub(super) async fn call_tool_in_rounds(
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
                let notes = opts.relay_notes.clone();
                let name = request.name.clone();
                let arguments = request.arguments.map(Value::Object);
                let span = crate::edge::traced::span_of(&context.extensions);
                let call = tracing::Instrument::instrument(
                    async move {
                        match registry.call_tool(&name, arguments, opts).await {
                            Ok(result) => result,
                            Err(error) => failed_result(error),
                        }
                    },
                    span,
                );
                resume::Flight::start(call, upcalls, owner, notes)
            }
        };
        let mut response = resume::drive(flight, context, self.min_log()).await;
        if let CallToolResponse::Complete(result) = &mut response {
            result.result_type.get_or_insert(ResultType::COMPLETE);
        }
        Ok(response)
    }
}
