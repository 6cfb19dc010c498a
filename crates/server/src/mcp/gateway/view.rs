//! Who one request is for (its caller, the registries it sees) and the options its calls
//! run with.

use super::{CONVERSATION_META_KEY, Gateway};
use crate::control_plane::callers::{OrgCaller, TokenCaller};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use std::sync::Arc;
use switchboard_core::{Caller, EndUserSource};
use switchboard_registry::{CallOptions, Catalog, Registry};
use switchboard_upstream::{CapabilitySet, Upcall};
use tokio::sync::mpsc;

/// Who one request is for and which registries it sees, in lookup order.
pub(super) struct View {
    pub(super) caller: Caller,
    pub(super) registries: Vec<Registry>,
}

impl View {
    /// The registry whose catalogue knows a name; the first otherwise (it answers the
    /// not-found kind and audits the attempt).
    pub(super) fn registry_for(&self, knows: impl Fn(&Catalog) -> bool) -> &Registry {
        registry_for(&self.registries, knows)
    }
}

/// The registry among `registries` whose catalogue knows a name; the first otherwise.
pub(super) fn registry_for(registries: &[Registry], knows: impl Fn(&Catalog) -> bool) -> &Registry {
    registries
        .iter()
        .find(|r| knows(&r.catalog()))
        .unwrap_or(&registries[0])
}

impl Gateway {
    pub(super) fn view(
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
        // The org whose token let the request in (the first layer's, `edge::callers`).
        let org = parts.and_then(|p| p.extensions.get::<OrgCaller>());
        let (org_id, agent_id, token_id) = match (&self.agent, org) {
            (Some(a), org) => (
                Some(a.org_id.clone()),
                Some(a.agent_id.clone()),
                org.and_then(|o| o.token_id.clone()),
            ),
            (None, Some(o)) => (Some(o.org_id.clone()), None, o.token_id.clone()),
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
        let token = parts.and_then(|p| p.extensions.get::<TokenCaller>());
        // The operator (the gateway's token, or an open endpoint) may assert end users.
        let asserts_end_users = match (token, org) {
            (Some(token), _) => token.asserts_end_users,
            (None, Some(org)) => org.asserts_end_users,
            (None, None) => true,
        };
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
                surface: Some(switchboard_core::Surface::Mcp),
                session,
                subject: token.map(|t| t.principal.clone()),
                end_user_source: None,
                asserts_end_users,
                inbound: token.and_then(|t| t.inbound.clone()),
            },
            registries,
        }
    }

    /// Options for one request of this caller: its cancellation, end user, and this
    /// session's own processes of `per_session` servers. A request without a session (the
    /// stateless 2026-07-28 revision over HTTP) uses their shared process instead: a process
    /// per request would start and stop with each call.
    pub(super) fn options(&self, ctx: &RequestContext<RoleServer>, caller: Caller) -> CallOptions {
        let mut opts = CallOptions::default()
            .with_cancel(ctx.ct.clone())
            .with_caller(caller);
        let sessionless = ctx
            .extensions
            .get::<axum::http::request::Parts>()
            .is_some_and(|p| !p.headers.contains_key("mcp-session-id"));
        if !sessionless {
            opts = opts.with_session_processes(self.processes.clone());
        }
        let asserted = ctx.meta.0.get("bound_end_user_id").and_then(Value::as_str);
        let from_token = (opts.caller.subject.is_some())
            .then(|| token_end_user(ctx))
            .flatten();
        match (from_token, asserted) {
            (Some(token), Some(asserted)) if token != asserted => {
                opts.refusal = Some(switchboard_core::CallError::new(
                    switchboard_core::ErrorKind::PolicyDenied,
                    format!(
                        "the request asserts the end user {asserted:?}, and the caller's access token names {token:?}: drop _meta.bound_end_user_id, or send it equal to the token's"
                    ),
                ));
                opts.caller.end_user_source = Some(EndUserSource::Token);
                opts = opts.with_end_user(token);
            }
            (Some(token), _) => {
                opts.caller.end_user_source = Some(EndUserSource::Token);
                opts = opts.with_end_user(token);
            }
            (None, Some(asserted)) => {
                opts.caller.end_user_source = Some(EndUserSource::Asserted);
                opts = opts.with_end_user(asserted);
            }
            (None, None) => {}
        }
        opts
    }

    /// [`Gateway::options`] with the channel that carries the upstream's requests and
    /// notifications back to this caller (drain it with `relay::relay_while`).
    pub(super) fn call_options(
        &self,
        ctx: &RequestContext<RoleServer>,
        caller: Caller,
    ) -> (CallOptions, mpsc::Receiver<Upcall>) {
        let (tx, rx) = mpsc::channel::<Upcall>(crate::mcp::relay::UPCALL_QUEUE);
        let mut opts = self.options(ctx, caller).with_upcalls(tx);
        let caps = if super::is_stateless(ctx) {
            // The set is made only if an older server needs it (see Registry::for_callers_set).
            Arc::new(ctx.client_capabilities().unwrap_or_default())
        } else {
            let (caps, set) = self.declared(ctx);
            opts.capability_set = Some(set.clone());
            caps.clone()
        };
        (opts.with_caller_capabilities(caps), rx)
    }

    /// What this session's caller declared (read once per session).
    pub(super) fn declared(&self, ctx: &RequestContext<RoleServer>) -> &Declared {
        self.session_capabilities.get_or_init(|| {
            let caps = Arc::new(ctx.client_capabilities().unwrap_or_default());
            let set = Arc::new(CapabilitySet::of(Some(&caps)));
            (caps, set)
        })
    }
}

/// The end user the access token that authorised this request names.
pub(super) fn token_end_user(ctx: &RequestContext<RoleServer>) -> Option<String> {
    let parts = ctx.extensions.get::<axum::http::request::Parts>()?;
    parts.extensions.get::<TokenCaller>()?.end_user.clone()
}

/// A caller's declared capabilities, and what the gateway relays of them.
pub(super) type Declared = (Arc<rmcp::model::ClientCapabilities>, Arc<CapabilitySet>);
