//! Our rmcp client handler: routes upstream progress to the waiting caller and reports changes.
#![allow(deprecated)] // sampling and roots: deprecated by the 2026-07-28 revision, relayed for the older ones

use crate::route::{self, NoRoute, Route, Taps};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientResult, CreateMessageRequest,
    CreateMessageRequestParams, CreateMessageResult, CustomRequest, CustomResult, ElicitRequest,
    ElicitRequestParams, ElicitResult, ElicitationCapability, ErrorData, Extensions,
    FormElicitationCapability, Implementation, ListRootsResult, ProgressNotificationParam,
    ProtocolVersion, ServerNotification, ServerRequest, UrlElicitationCapability,
};
use rmcp::service::{InboundStreamOrigin, NotificationContext, RequestContext, RoleClient};
use switchboard_core::ServerSlug;
use tokio::sync::mpsc;

/// A change an upstream announced; the registry re-discovers on these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamEvent {
    ToolsChanged(ServerSlug),
    ResourcesChanged(ServerSlug),
    PromptsChanged(ServerSlug),
    /// `notifications/resources/updated` for a resource URI (as the upstream names it).
    ResourceUpdated(ServerSlug, String),
}

#[derive(Clone)]
pub(crate) struct EventHandler {
    server: ServerSlug,
    info: ClientConfig,
    events: Option<mpsc::Sender<UpstreamEvent>>,
    /// What `roots/list` answers outside any call: the operator's roots.
    roots: ListRootsResult,
    /// Calls in flight that accept the upstream's requests and notifications.
    pub(crate) taps: Taps,
}

impl EventHandler {
    pub(crate) fn new(
        server: ServerSlug,
        protocol: ProtocolVersion,
        events: Option<mpsc::Sender<UpstreamEvent>>,
    ) -> Self {
        let info = ClientConfig::new(
            relayed_capabilities(),
            Implementation::new("switchboard", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(protocol);
        Self {
            server,
            info,
            events,
            roots: ListRootsResult::default(),
            taps: Taps::default(),
        }
    }

    /// The server this handler serves.
    pub(crate) fn server(&self) -> &ServerSlug {
        &self.server
    }

    /// The name and version the gateway gives upstreams.
    pub(crate) fn client_info(&self) -> &rmcp::model::Implementation {
        &self.info.client_info
    }

    /// The capabilities the session declares at `initialize` (all the gateway relays, unless
    /// the session is for callers who can answer less or more).
    pub(crate) fn with_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.info.capabilities = capabilities;
        self
    }

    /// The operator's roots, answered when the server asks outside any call.
    pub(crate) fn with_roots(mut self, roots: &[String]) -> Self {
        self.roots = ListRootsResult::new(
            roots
                .iter()
                .map(|r| rmcp::model::Root::new(r.clone()))
                .collect(),
        );
        self
    }

    /// The call an upstream request belongs to: the one whose response stream carried it
    /// (Streamable HTTP), else the one call in flight when exactly one runs.
    fn route_for(&self, extensions: &Extensions) -> Result<Route, NoRoute> {
        match extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(id)) => self.taps.by_id(id),
            _ => self.taps.sole(),
        }
    }

    /// Relays `request` to the caller of the call it belongs to and takes the one kind of
    /// answer it expects.
    async fn relay<T>(
        &self,
        extensions: &Extensions,
        request: ServerRequest,
        pick: impl FnOnce(ClientResult) -> Option<T>,
    ) -> Result<T, ErrorData> {
        relay_on(&self.taps, self.route_for(extensions), request, pick).await
    }

    /// A notification that came on the stream of a call sent directly (see `direct`), handled
    /// as rmcp's dispatch to this handler's methods would (the call's own progress and log
    /// lines were taken out before).
    pub(crate) async fn on_call_stream(&self, notification: ServerNotification) {
        use ServerNotification as N;
        let server = || self.server.clone();
        match notification {
            N::ToolListChangedNotification(_) => self.emit(UpstreamEvent::ToolsChanged(server())),
            N::ResourceListChangedNotification(_) => {
                self.emit(UpstreamEvent::ResourcesChanged(server()))
            }
            N::PromptListChangedNotification(_) => {
                self.emit(UpstreamEvent::PromptsChanged(server()))
            }
            N::ResourceUpdatedNotification(n) => {
                self.emit(UpstreamEvent::ResourceUpdated(server(), n.params.uri))
            }
            N::ProgressNotification(n) => self.route_progress(n.params).await,
            other => {
                tracing::debug!(server = %self.server, ?other, "a notification on a call's stream")
            }
        }
    }

    /// Progress the taps did not see (sent on an HTTP server's GET stream, or naming another
    /// call) still reaches its call, by its token. Progress is advisory: a slow caller loses
    /// updates rather than stalling the connection.
    async fn route_progress(&self, params: ProgressNotificationParam) {
        if let Some(route) = self.taps.by_progress(&params.progress_token) {
            let notification = ServerNotification::ProgressNotification(
                rmcp::model::ProgressNotification::new(params),
            );
            route.notify(notification, false).await;
        }
    }

    fn emit(&self, event: UpstreamEvent) {
        if let Some(tx) = &self.events
            && tx.try_send(event).is_err()
        {
            tracing::debug!(server = %self.server, "change event dropped: receiver busy or gone");
        }
    }
}

/// Relays `request` along `route` and takes the one kind of answer it expects.
async fn relay_on<T>(
    taps: &Taps,
    route: Result<Route, NoRoute>,
    request: ServerRequest,
    pick: impl FnOnce(ClientResult) -> Option<T>,
) -> Result<T, ErrorData> {
    let what = crate::relay::method_name(&request).to_string();
    let answer = route::ask(taps, route, request).await?;
    pick(answer).ok_or_else(|| {
        ErrorData::internal_error(
            format!("the caller answered {what} with another kind of result"),
            None,
        )
    })
}

/// What Switchboard offers upstreams on its callers' behalf: each request is relayed to the
/// caller of the call it belongs to, and declined when that caller cannot answer it.
#[allow(deprecated)] // roots and sampling are deprecated by the 2026-07-28 revision, still used
pub(crate) fn relayed_capabilities() -> ClientCapabilities {
    let mut caps = ClientCapabilities::default();
    caps.roots = Some(Default::default());
    caps.sampling = Some(Default::default());
    caps.elicitation = Some(
        ElicitationCapability::new()
            .with_form(FormElicitationCapability::new())
            .with_url(UrlElicitationCapability::new()),
    );
    caps
}

impl rmcp::ClientHandler for EventHandler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
        self.relay(&context.extensions, request, |answer| match answer {
            ClientResult::CreateMessageResult(result) => Some(*result),
            _ => None,
        })
        .await
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        self.relay(&context.extensions, request, |answer| match answer {
            ClientResult::ElicitResult(result) => Some(result),
            _ => None,
        })
        .await
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        // Outside any call, and for a call nobody can answer for (REST, the CLI): the
        // operator's roots (`[gateway] roots`; none by default).
        match self.route_for(&context.extensions) {
            Err(_) | Ok(Route::Decline { .. }) => Ok(self.roots.clone()),
            route => {
                let request = ServerRequest::ListRootsRequest(Default::default());
                relay_on(&self.taps, route, request, |answer| match answer {
                    ClientResult::ListRootsResult(result) => Some(result),
                    _ => None,
                })
                .await
            }
        }
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        let request = ServerRequest::CustomRequest(request);
        self.relay(&context.extensions, request, |answer| match answer {
            ClientResult::CustomResult(result) => Some(result),
            _ => None,
        })
        .await
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.route_progress(params).await;
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.emit(UpstreamEvent::ToolsChanged(self.server.clone()));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.emit(UpstreamEvent::ResourcesChanged(self.server.clone()));
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.emit(UpstreamEvent::ResourceUpdated(
            self.server.clone(),
            params.uri,
        ));
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.emit(UpstreamEvent::PromptsChanged(self.server.clone()));
    }
}
