//! Sessions are not credentials: each is bound to the identity that opened it (an access
//! token's issuer and subject, an API token, or the operator), and a request on it with
//! another identity is answered as for an unknown session, on every replica and after the
//! session was parked.

use crate::control_plane::callers::{OrgCaller, TokenCaller};
use crate::mcp::sessions::saved::SharedSessions;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::Arc;
use switchboard_sync::Mutex;

/// Owners remembered in memory before the map is emptied (the store keeps them all).
const REMEMBERED: usize = 100_000;

/// The owners of one endpoint's sessions.
pub(crate) struct SessionOwners {
    /// Session id → owner (`None`: no owner recorded, so nobody may use the session).
    known: Mutex<HashMap<String, Option<Arc<str>>>>,
    saved: Option<Arc<SharedSessions>>,
}

impl SessionOwners {
    pub(crate) fn new(saved: Option<Arc<SharedSessions>>) -> Arc<Self> {
        Arc::new(Self {
            known: Mutex::new(HashMap::new()),
            saved,
        })
    }

    fn remember(&self, id: &str, owner: Option<Arc<str>>) {
        let mut known = self.known.lock();
        if known.len() >= REMEMBERED {
            known.clear();
        }
        known.insert(id.to_string(), owner);
    }

    /// Who opened session `id`, from memory or the store.
    async fn owner_of(&self, id: &str) -> Option<Arc<str>> {
        if let Some(owner) = self.known.lock().get(id) {
            return owner.clone();
        }
        let saved = self.saved.as_ref()?;
        let owner = match saved.load_owner(id).await {
            Ok(owner) => owner.map(Arc::from),
            Err(e) => {
                tracing::warn!(session = %id, "cannot read the session's owner: {e}");
                return Some(Arc::from("unreadable"));
            }
        };
        self.remember(id, owner.clone());
        owner
    }

    async fn bind(&self, id: &str, owner: &str) {
        self.remember(id, Some(Arc::from(owner)));
        if let Some(saved) = &self.saved
            && let Err(e) = saved.save_owner(id, owner).await
        {
            tracing::warn!(session = %id, "cannot save the session's owner for other replicas: {e}");
        }
    }
}

/// Who a request is, as a session owner.
fn owner(request: &Request) -> String {
    let token = request.extensions().get::<TokenCaller>();
    let org = request.extensions().get::<OrgCaller>();
    match (token, org) {
        (Some(t), org) => format!(
            "oauth:{}|org:{}",
            t.principal,
            org.map_or("-", |o| o.org_id.as_str())
        ),
        (None, Some(o)) => format!("token:{}", o.token_id.as_deref().unwrap_or("-")),
        (None, None) => "operator".into(),
    }
}

/// The layer: a request on a session opened by someone else is answered 404, as rmcp answers
/// an unknown session; a new session is bound to its opener.
pub(crate) async fn check(
    State(owners): State<Arc<SessionOwners>>,
    request: Request,
    next: Next,
) -> Response {
    let caller = owner(&request);
    let session = (request.headers().get("mcp-session-id"))
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let Some(session) = session else {
        let response = next.run(request).await;
        if let Some(opened) =
            (response.headers().get("mcp-session-id")).and_then(|v| v.to_str().ok())
        {
            owners.bind(opened, &caller).await;
        }
        return response;
    };
    match owners.owner_of(&session).await {
        // A session whose owner is unknown (forgotten past the memory bound without a store,
        // or never saved) is refused like one opened by someone else: the client opens anew.
        owner if owner.as_deref() != Some(caller.as_str()) => {
            tracing::info!(
                "a request on a session opened by another caller, or by nobody known, was refused"
            );
            (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
        }
        _ => {
            let closing = request.method() == Method::DELETE;
            let response = next.run(request).await;
            if closing && response.status().is_success() {
                owners.known.lock().remove(&session);
            }
            response
        }
    }
}
