//! A connection's requests other than tool calls, and the one way every request is sent
//! through rmcp: routes recorded, timeout, cancellation.

use super::Connection;
use crate::UpstreamError;
use crate::call::{CallOptions, CancelOnDrop, Rounds};
use crate::input_rounds;
use crate::route::{CallTap, Route};
use rmcp::model::{
    ClientRequest, GetExtensions, GetPromptRequest, GetPromptRequestParams, GetPromptResult,
    InputResponses, JsonObject, ReadResourceRequest, ReadResourceRequestParams, ReadResourceResult,
    RequestMetaObject, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use std::time::Duration;

impl Connection {
    pub async fn read_resource(
        &self,
        uri: &str,
        opts: CallOptions,
    ) -> Result<ReadResourceResult, UpstreamError> {
        let build = |responses, state| {
            let mut params = ReadResourceRequestParams::new(uri.to_string());
            params.input_responses = responses;
            params.request_state = state;
            ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params))
        };
        let send = |request, opts| self.request(request, opts);
        match self.request_in_rounds(build, send, opts).await? {
            ServerResult::ReadResourceResult(result) => Ok(result),
            _ => Err(UpstreamError::Unexpected),
        }
    }

    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        opts: CallOptions,
    ) -> Result<GetPromptResult, UpstreamError> {
        let build = |responses, state| {
            let mut params = GetPromptRequestParams::new(name.to_string());
            params.arguments = arguments.clone();
            params.input_responses = responses;
            params.request_state = state;
            ClientRequest::GetPromptRequest(GetPromptRequest::new(params))
        };
        let send = |request, opts| self.request(request, opts);
        match self.request_in_rounds(build, send, opts).await? {
            ServerResult::GetPromptResult(result) => Ok(result),
            _ => Err(UpstreamError::Unexpected),
        }
    }

    /// Sends the request `build` makes; while the server answers `input_required` (only a
    /// 2026-07-28 server does), asks the caller each round whole and sends the request again
    /// with the answers and the server's state: every round, and the waits for the caller
    /// between them, within the one timeout. With [`Rounds::HandBack`] the first round with
    /// questions ends the call instead, and the first request carries the answers of the
    /// round handed back before.
    pub(super) async fn request_in_rounds<P, Fut>(
        &self,
        build: impl Fn(Option<InputResponses>, Option<String>) -> P,
        send: impl Fn(P, CallOptions) -> Fut,
        opts: CallOptions,
    ) -> Result<ServerResult, UpstreamError>
    where
        Fut: Future<Output = Result<ServerResult, UpstreamError>>,
    {
        let timeout = opts.timeout.unwrap_or(self.call_timeout);
        let deadline = tokio::time::Instant::now() + timeout;
        let route = Route::of(&opts);
        let (mut responses, mut state) = match &opts.rounds {
            Rounds::HandBack(Some(answered)) => {
                (Some(answered.responses.clone()), answered.state.clone())
            }
            _ => (None, None),
        };
        let hand_back = matches!(opts.rounds, Rounds::HandBack(_));
        for round in 1..=input_rounds::MAX_INPUT_ROUNDS {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let request = build(responses.take(), state.take());
            match send(request, opts.clone().with_timeout(left)).await? {
                // No more rounds to send answers in: the caller is not asked in vain.
                ServerResult::InputRequiredResult(_) if round == input_rounds::MAX_INPUT_ROUNDS => {
                    break;
                }
                ServerResult::InputRequiredResult(asked)
                    if hand_back
                        && asked.input_requests.as_ref().is_some_and(|q| !q.is_empty()) =>
                {
                    if let Some(questions) = &asked.input_requests {
                        input_rounds::all_relayable(questions)?;
                    }
                    return Err(UpstreamError::InputRequired(Box::new(asked)));
                }
                ServerResult::InputRequiredResult(asked) => {
                    let questions = asked.input_requests.unwrap_or_default();
                    // A round without questions only hands back the server's state.
                    if !questions.is_empty() {
                        let answers = input_rounds::answer(&route, questions);
                        responses =
                            Some(within(deadline, timeout, opts.cancel.as_ref(), answers).await?);
                    }
                    state = asked.request_state;
                }
                other => return Ok(other),
            }
        }
        Err(input_rounds::too_many_rounds())
    }

    pub(super) async fn request(
        &self,
        mut request: ClientRequest,
        opts: CallOptions,
    ) -> Result<ServerResult, UpstreamError> {
        // The transport records the call's route when it sends the request; a request sent
        // after this call was abandoned records nothing.
        let alive = std::sync::Arc::new(());
        request.extensions_mut().insert(CallTap {
            route: Route::of(&opts),
            alive: std::sync::Arc::downgrade(&alive),
            notes: opts.relay_notes.clone(),
            trace: switchboard_telemetry::current_traceparent(),
        });
        // Forgets the call's routes however it ends, even while its request is being sent.
        let mut untap = self.handler.taps.guard(alive);
        let timeout = opts.timeout.unwrap_or(self.call_timeout);
        let mut meta = RequestMetaObject::new();
        if let Some(user) = &opts.end_user_id {
            meta.0
                .insert("bound_end_user_id".into(), user.clone().into());
        }
        // 2026-07-28 carries the client's capabilities on each request: the caller's, as far
        // as they can be relayed to it (none when nobody can answer: REST, the CLI).
        if self.asks_for_input {
            let caller = super::calls::caller_capabilities(&opts);
            meta.set_client_capabilities(crate::relay::relayable_capabilities(caller));
        }
        let mut options = PeerRequestOptions::no_options();
        if !meta.0.is_empty() {
            options = options.with_meta(meta);
        }
        let handle = self
            .peer
            .send_request_with_option(request, options)
            .await
            .map_err(UpstreamError::from_service)?;
        untap.sent(handle.id.clone(), handle.progress_token.clone());
        let mut guard = CancelOnDrop::new(self.peer.clone(), handle.id.clone());
        let cancelled = async {
            match &opts.cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            result = handle.await_response() => {
                guard.disarm();
                result.map_err(UpstreamError::from_service)
            }
            _ = tokio::time::sleep(timeout) => {
                guard.set_reason("request timeout");
                Err(UpstreamError::Timeout(timeout))
            }
            _ = cancelled => Err(UpstreamError::Cancelled),
        }
    }
}

/// `work` within the call's deadline, unless the caller cancels first.
pub(super) async fn within<T>(
    deadline: tokio::time::Instant,
    timeout: Duration,
    cancel: Option<&tokio_util::sync::CancellationToken>,
    work: impl Future<Output = Result<T, UpstreamError>>,
) -> Result<T, UpstreamError> {
    let cancelled = async {
        match cancel {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        done = tokio::time::timeout_at(deadline, work) => {
            done.unwrap_or(Err(UpstreamError::Timeout(timeout)))
        }
        _ = cancelled => Err(UpstreamError::Cancelled),
    }
}

impl Connection {
    /// Completes a prompt or resource argument (servers without completions answer none).
    pub async fn complete(
        &self,
        params: rmcp::model::CompleteRequestParams,
    ) -> Result<rmcp::model::CompleteResult, UpstreamError> {
        let offers = self
            .peer
            .peer_info()
            .is_some_and(|i| i.capabilities.completions.is_some());
        if !offers {
            return Ok(Default::default());
        }
        self.bounded(self.peer.complete(params)).await
    }

    /// Asks the server for `notifications/resources/updated` on `uri` (`subscribe`), or to
    /// stop (`!subscribe`); refused when the server does not offer resource subscriptions.
    #[allow(deprecated)] // resources/subscribe: legacy-only from 2026-07-28, live before it
    pub async fn watch_resource(&self, uri: &str, subscribe: bool) -> Result<(), UpstreamError> {
        let offers = self.peer.peer_info().is_some_and(|i| {
            i.capabilities
                .resources
                .as_ref()
                .is_some_and(|r| r.subscribe == Some(true))
        });
        if !offers {
            return Err(UpstreamError::Unsupported(format!(
                "{} does not offer resource subscriptions",
                self.server
            )));
        }
        if subscribe {
            let params = rmcp::model::SubscribeRequestParams::new(uri);
            self.bounded(self.peer.subscribe(params)).await
        } else {
            let params = rmcp::model::UnsubscribeRequestParams::new(uri);
            self.bounded(self.peer.unsubscribe(params)).await
        }
    }

    /// Asks the server for log lines at `level` and above, when it offers logging.
    #[allow(deprecated)] // logging: deprecated by 2026-07-28, live in older revisions
    pub async fn set_log_level(
        &self,
        level: rmcp::model::LoggingLevel,
    ) -> Result<(), UpstreamError> {
        let offers = self
            .peer
            .peer_info()
            .is_some_and(|i| i.capabilities.logging.is_some());
        if !offers {
            return Ok(());
        }
        let params = rmcp::model::SetLevelRequestParams::new(level);
        self.bounded(self.peer.set_level(params)).await
    }

    /// A request outside any tool call (rmcp's peer methods wait for ever), within the
    /// server's call timeout: a server that never answers cannot hold up a connect or the
    /// lock a subscription is made under.
    pub(super) async fn bounded<T>(
        &self,
        request: impl Future<Output = Result<T, rmcp::ServiceError>>,
    ) -> Result<T, UpstreamError> {
        tokio::time::timeout(self.call_timeout, request)
            .await
            .map_err(|_| UpstreamError::Timeout(self.call_timeout))?
            .map_err(UpstreamError::from_service)
    }

    /// Passes on a caller's `notifications/roots/list_changed`.
    pub async fn notify_roots_changed(&self) {
        if let Err(e) = self.peer.notify_roots_list_changed().await {
            tracing::debug!(server = %self.server, "roots/list_changed: {e}");
        }
    }

    /// Ends the session; a stdio child is stopped with its whole process group.
    pub async fn close(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(Duration::from_secs(5)).await;
        }
        if let Some(pid) = self.pid {
            crate::stdio::kill_group(pid);
        }
    }
}
