//! Requests from callers on the stateless 2026-07-28 revision that an upstream may answer with
//! questions (tool calls, prompts, resource reads): the questions become `input_required`
//! rounds (see `crate::mcp::resume`).

use super::caching::scoped_read;
use super::consent;
use super::{Gateway, error_data, failed_call, resource_error};
use crate::mcp::handed_back;
use crate::mcp::resume::{self, Outcome, Step};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, GetPromptRequestParams, GetPromptResponse,
    InputRequiredResult, InputResponses, ReadResourceRequestParams, ReadResourceResponse,
    ResultType,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use std::sync::Arc;
use switchboard_core::{Caller, ErrorKind};
use switchboard_registry::Registry;
use switchboard_upstream::{CallOptions, RoundAnswers, Rounds};

/// The handle and answers a retry carries.
struct Retry {
    state: Option<String>,
    responses: Option<InputResponses>,
}

impl Gateway {
    /// A tool call from a 2026-07-28 caller.
    pub(super) async fn call_tool_in_rounds(
        &self,
        registry: Registry,
        request: CallToolRequestParams,
        caller: &Caller,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut retry = Retry {
            state: request.request_state,
            responses: request.input_responses,
        };
        // The answer to the gateway's own consent round: wait for the grant, then run anew.
        let answered_consent = (retry.state.as_deref())
            .and_then(consent::resumed)
            .map(String::from);
        if let Some(id) = &answered_consent {
            if let Err(declined) = consent::answer(retry.responses.take()) {
                return failed_call(declined).map(CallToolResponse::Complete);
            }
            if let Err(cancelled) = consent::await_round(&registry, id, caller, context).await {
                return failed_call(cancelled).map(CallToolResponse::Complete);
            }
            retry.state = None;
        }
        let ask_consent = answered_consent.is_none();
        let name = request.name;
        let arguments = request.arguments.map(Value::Object);
        let owner = format!("tool|{name}");
        let called = registry.clone();
        let answer = self.in_rounds(retry, &owner, caller, context, move |opts| async move {
            let round_ok = ask_consent && consent::elicits_urls(&opts);
            match called.call_tool(&name, arguments, opts).await {
                Ok(result) => Ok(Outcome::Tool(result)),
                Err(error) => match Outcome::handed_back(&error) {
                    Some(round) => Ok(round),
                    None if error.kind == ErrorKind::TaskCreated => super::tasks::created(&error)
                        .map(|task| Outcome::Task(Box::new(task)))
                        .ok_or_else(|| error_data(error)),
                    None => match consent::round(&error).filter(|_| round_ok) {
                        Some(round) => Ok(Outcome::Consent(round)),
                        None => failed_call(error).map(Outcome::Tool),
                    },
                },
            }
        });
        match answer.await? {
            // The upstream's task, under the gateway's own id for this caller.
            CallToolResponse::Task(task) => (self.hand_task(&registry, task, context, caller))
                .await
                .map(CallToolResponse::Task),
            answer => Ok(answer),
        }
    }

    /// A prompt from a 2026-07-28 caller.
    pub(super) async fn get_prompt_in_rounds(
        &self,
        registry: Registry,
        request: GetPromptRequestParams,
        caller: &Caller,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let retry = Retry {
            state: request.request_state,
            responses: request.input_responses,
        };
        let name = request.name;
        let arguments = request.arguments.map(Value::Object);
        let owner = format!("prompt|{name}");
        self.in_rounds(retry, &owner, caller, context, move |opts| async move {
            match registry.get_prompt(&name, arguments, opts).await {
                Ok(result) => Ok(Outcome::Prompt(result)),
                Err(error) => Outcome::handed_back(&error).ok_or_else(|| error_data(error)),
            }
        })
        .await
    }

    /// A resource read from a 2026-07-28 caller.
    pub(super) async fn read_resource_in_rounds(
        &self,
        registry: Registry,
        request: ReadResourceRequestParams,
        caller: &Caller,
        context: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let retry = Retry {
            state: request.request_state,
            responses: request.input_responses,
        };
        let uri = request.uri;
        let owner = format!("resource|{uri}");
        let one_audience = self.one_audience();
        self.in_rounds(retry, &owner, caller, context, move |opts| async move {
            match registry.read_resource(&uri, opts).await {
                Ok(result) => Ok(Outcome::Resource(scoped_read(result, one_audience))),
                Err(error) => {
                    Outcome::handed_back(&error).ok_or_else(|| resource_error(error, &uri))
                }
            }
        })
        .await
    }

    /// Starts the request (`start`), or resumes the parked one `retry` names, and drives it
    /// until it ends or its upstream asks the caller something.
    async fn in_rounds<R: Answered, Fut>(
        &self,
        retry: Retry,
        what: &str,
        caller: &Caller,
        context: &RequestContext<RoleServer>,
        start: impl FnOnce(CallOptions) -> Fut,
    ) -> Result<R, ErrorData>
    where
        Fut: Future<Output = Result<Outcome, ErrorData>> + Send + 'static,
    {
        // 2026-07-28 has no sessions: the handle is bound to the token, agent and request.
        let owner = format!(
            "{:?}|{:?}|{:?}|{what}",
            caller.org_id, caller.agent_id, caller.token_id
        );
        // A 2026-07-28 upstream's rounds are handed back whole; the answer starts the
        // request again with them, here or on another replica.
        let (rounds, taken) = match (retry.state, retry.responses) {
            (Some(handle), responses) if handed_back::is_handed_back(&handle) => {
                let taken = handed_back::take(self.round_store(), &handle, &owner).await?;
                let responses = responses.unwrap_or_default();
                let state = taken.state();
                let answers = Arc::new(RoundAnswers { responses, state });
                (Rounds::HandBack(Some(answers)), Some(taken))
            }
            // An older upstream's questions: its request waits here for the answers.
            (Some(handle), responses) => {
                let flight = resume::resume(&handle, &owner, responses)?;
                return self.finish(flight, &owner, None, context).await;
            }
            // Answers without a handle (a caller that kept none, for a server that keeps no
            // state) go to the server as they are: it judges them.
            (None, Some(responses)) => {
                let answers = Arc::new(RoundAnswers {
                    responses,
                    state: None,
                });
                (Rounds::HandBack(Some(answers)), None)
            }
            (None, None) => (Rounds::HandBack(None), None),
        };
        let (opts, upcalls) = self.call_options(context, caller.clone());
        let mut opts = opts.with_rounds(rounds);
        // The request outlives this one while it waits for answers: it is cancelled when
        // abandoned (its flight is dropped), not when this request ends.
        opts.cancel = None;
        let notes = opts.relay_notes.clone();
        let span = crate::edge::traced::span_of(&context.extensions);
        let work = tracing::Instrument::instrument(start(opts), span);
        let flight = resume::Flight::start(work, upcalls, owner.clone(), notes);
        self.finish(flight, &owner, taken, context).await
    }

    /// Drives a request until it ends, its older upstream asks something (it is parked), or
    /// its 2026-07-28 upstream's round is handed back (it is kept for the answer). `taken`
    /// is the round this request answers, kept again when the answer was refused before it
    /// reached the upstream.
    async fn finish<R: Answered>(
        &self,
        flight: resume::Flight,
        owner: &str,
        taken: Option<handed_back::Taken>,
        context: &RequestContext<RoleServer>,
    ) -> Result<R, ErrorData> {
        let driven = resume::drive(flight, context, self.min_log()).await;
        let asked_before = taken.as_ref().map_or(0, handed_back::Taken::round);
        if let Some(taken) = taken
            && refused_before_upstream(&driven)
        {
            taken.put_back(self.round_store()).await;
        }
        match driven? {
            Step::Asked(asked) => Ok(R::asked(asked)),
            Step::Done(Outcome::Consent(round)) => Ok(R::asked(round)),
            Step::Done(Outcome::HandedBack(round)) => {
                let caps = context.client_capabilities().unwrap_or_default();
                handed_back::check(&round, &caps, asked_before)?;
                let state = round.request_state;
                let handle =
                    handed_back::keep(self.round_store(), owner, state, asked_before + 1).await?;
                Ok(R::asked(InputRequiredResult::new(
                    round.input_requests,
                    Some(handle),
                )))
            }
            // Owners name the kind of request, so a handle resumes only its own kind.
            Step::Done(outcome) => R::done(outcome).ok_or_else(resumed_other),
        }
    }

    /// Where handed-back rounds are kept: the store replicas share, when there is one.
    fn round_store(&self) -> Option<&Arc<dyn switchboard_store::Store>> {
        self.orgs.as_ref().map(|c| &c.store)
    }
}

/// Whether a request ended refused before anything reached its upstream (the kind its error
/// or failed tool result names): policy, a rate limit or a full queue, the audit log, a tool
/// not (or no longer) offered.
fn refused_before_upstream(driven: &Result<Step, ErrorData>) -> bool {
    let kind = match driven {
        Err(error) => error.data.as_ref().and_then(|d| d.get("kind")),
        Ok(Step::Done(Outcome::Tool(result))) if result.is_error == Some(true) => (result.meta)
            .as_ref()
            .and_then(|m| m.0.get(super::KIND_META_KEY))
            .and_then(|k| k.get("kind")),
        Ok(_) => None,
    };
    let before = [
        ErrorKind::PolicyDenied,
        ErrorKind::RateLimited,
        ErrorKind::AuditUnavailable,
        ErrorKind::ToolNotFound,
    ];
    kind.and_then(Value::as_str)
        .is_some_and(|kind| before.iter().any(|k| k.as_str() == kind))
}

/// A response that is the request's result or a round of questions for its caller.
trait Answered: Sized {
    fn asked(asked: InputRequiredResult) -> Self;
    /// The outcome as this kind of response; `None` for another kind's.
    fn done(outcome: Outcome) -> Option<Self>;
}

/// [`Answered`] for a response whose result is `Outcome::$kind`.
macro_rules! answered {
    ($response:ty, $kind:ident) => {
        impl Answered for $response {
            fn asked(asked: InputRequiredResult) -> Self {
                Self::InputRequired(asked)
            }
            fn done(outcome: Outcome) -> Option<Self> {
                let Outcome::$kind(mut result) = outcome else {
                    return None;
                };
                result.result_type.get_or_insert(ResultType::COMPLETE);
                Some(Self::Complete(result))
            }
        }
    };
}

impl Answered for CallToolResponse {
    fn asked(asked: InputRequiredResult) -> Self {
        Self::InputRequired(asked)
    }
    fn done(outcome: Outcome) -> Option<Self> {
        match outcome {
            Outcome::Tool(mut result) => {
                result.result_type.get_or_insert(ResultType::COMPLETE);
                Some(Self::Complete(result))
            }
            Outcome::Task(task) => Some(Self::Task(*task)),
            _ => None,
        }
    }
}
answered!(GetPromptResponse, Prompt);
answered!(ReadResourceResponse, Resource);

/// A handle resumed by a request of another kind.
fn resumed_other() -> ErrorData {
    ErrorData::invalid_params("requestState belongs to another request", None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::gateway::replies::failed_result;
    use switchboard_core::CallError;

    #[test]
    fn only_refusals_before_the_upstream_keep_a_round_for_its_retry() {
        let tool = |kind| {
            Ok(Step::Done(Outcome::Tool(failed_result(CallError::new(
                kind, "x",
            )))))
        };
        let error = |kind| Err(error_data(CallError::new(kind, "x")));
        for kind in [ErrorKind::RateLimited, ErrorKind::PolicyDenied] {
            assert!(refused_before_upstream(&tool(kind)), "{kind}");
            assert!(refused_before_upstream(&error(kind)), "{kind}");
        }
        // The upstream may have seen these: the round is spent.
        for kind in [
            ErrorKind::ServerError,
            ErrorKind::Timeout,
            ErrorKind::TransportError,
        ] {
            assert!(!refused_before_upstream(&tool(kind)), "{kind}");
            assert!(!refused_before_upstream(&error(kind)), "{kind}");
        }
    }
}
