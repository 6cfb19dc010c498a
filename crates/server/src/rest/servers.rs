//! `/api/integrations/mcp/servers`: connect, list, refresh and soft-delete remote MCP servers.

use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
use crate::control_plane::callers::{ApiCaller, MANAGE, OPERATE, VIEW};
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_core::Surface;
use switchboard_core::{HttpSpec, OAuthSpec, ServerSlug, ServerSpec, ServerStatus, Transport};
use switchboard_registry::{Registry, ServerInfo};
use switchboard_store::{AuditEntry, ChangeKind, ServerRow, now_ms};

mod credentials;
pub(super) use credentials::Credentials;
use credentials::{CREDENTIALS, UpstreamAuth, stored_auth, stored_credentials, upstream_auth};
use switchboard_api_types::{CreateServer, UpdateServer, validate_name};

/// A row's status while an operator keeps the server off.
pub(super) const DISABLED: &str = "disabled";

#[derive(Debug, Default, Deserialize)]
pub(super) struct ListQuery {
    #[serde(default)]
    include_deleted: bool,
}

/// What the API shows of a server: never credentials.
pub(super) fn view(row: &ServerRow) -> Value {
    json!({
        "id": row.id,
        "slug": row.slug,
        "name": row.name,
        "url": row.url,
        "auth_method": row.auth_method,
        "status": row.status,
        "last_discovered_at": row.last_discovered_at,
        "last_error": row.last_error,
        "discovered_tools": row.discovered_tools,
        "created_at": row.created_at,
        "deleted_at": row.deleted_at,
    })
}

/// [`view`] plus what only the running server knows: the URL to authorize it, while it
/// waits for that, and its last state changes.
pub(super) fn live_view(row: &ServerRow, registry: &Registry) -> Value {
    let mut out = view(row);
    if let Some(server) = running(row, registry) {
        if let Some(url) = server.authorize_url {
            out["authorize_url"] = url.into();
        }
        out["status_history"] = json!(server.status_history);
        out["protocol_version"] = json!(server.protocol_version);
    }
    out
}

/// `row`'s server as its org's registry runs it (not another with the same slug).
fn running(row: &ServerRow, registry: &Registry) -> Option<switchboard_registry::ServerInfo> {
    registry
        .server(&row.slug)
        .filter(|s| s.origin == format!("api:{}", row.id))
}

impl ControlPlane {
    /// Connects the server in its org's registry now (initialize + tools/list); the row
    /// records the outcome.
    pub(super) async fn connect(&self, row: &mut ServerRow, auth: UpstreamAuth) {
        let Ok(slug) = ServerSlug::parse(&row.slug) else {
            return;
        };
        let mut spec = ServerSpec::new(
            slug,
            Transport::Http(HttpSpec {
                url: row.url.clone(),
                headers: auth.header.clone().into_iter().collect(),
                bearer_token: auth.bearer.clone(),
                oauth: auth.oauth.clone(),
                // The REST API's servers speak Streamable HTTP (as before).
                wire: switchboard_core::HttpWire::Streamable,
            }),
        );
        spec.secrets = auth
            .bearer
            .into_iter()
            .chain(auth.header.map(|h| h.1))
            .chain(auth.oauth.iter().flat_map(OAuthSpec::secrets))
            .collect();
        spec.origin = format!("api:{}", row.id);
        spec.enabled = row.status != DISABLED;
        spec.end_user_credentials = auth.end_users;
        let registry = self.org_registry(&row.org_id);
        let info = registry.add_server(spec).await;
        record_outcome(row, &registry, info);
    }

    /// Reconnects the API server `name` (row `id`) after its authorization finished; its
    /// new status and error, or `None` if it is no longer served here.
    pub async fn reconnect_row(&self, name: &str, id: &str) -> Option<(String, Option<String>)> {
        // The org whose registry has it; a replica that has not connected it yet looks
        // through every org's rows.
        let found = match self.orgs.org_serving(name, &format!("api:{id}")) {
            Some(org) => self.store.server(&org, id).await,
            None => self
                .store
                .all_servers()
                .await
                .map(|rows| rows.into_iter().find(|r| r.id == id)),
        };
        let mut row = match found {
            Ok(Some(row)) if row.deleted_at.is_none() => row,
            Ok(_) => return None,
            Err(e) => return Some(("error".into(), Some(e.to_string()))),
        };
        self.reconnect_and_record(&mut row).await;
        self.announce(&row, ChangeKind::Saved).await;
        Some((row.status.clone(), row.last_error.clone()))
    }

    /// Deletes the OAuth tokens (and client registration) kept for `row`, and every end
    /// user's grant for it (their secrets were given for the server as it was).
    pub(super) async fn forget_tokens(&self, row: &ServerRow) {
        let owner = switchboard_core::Owner::Org(row.org_id.clone()).key();
        match self.store.delete_server_grants(&owner, &row.slug).await {
            Ok(0) => {}
            Ok(gone) => {
                tracing::info!(server = %row.id, grants = gone, "end users' grants removed with the server's settings")
            }
            Err(e) => tracing::warn!(server = %row.id, "cannot delete its end users' grants: {e}"),
        }
        if let Some(oauth) = self.registry.oauth()
            && let Err(e) = oauth.tokens.delete(&format!("api:{}", row.id)).await
        {
            tracing::warn!(server = %row.id, "cannot delete its OAuth tokens: {e}");
        }
    }

    /// Reconnects a stored row and saves the outcome; a row whose credentials cannot be
    /// opened is an error, never connected without them.
    pub(crate) async fn reconnect_and_record(&self, row: &mut ServerRow) {
        if let Err(e) = self.reconnect_stored(row).await {
            row.status = "error".into();
            row.last_error = Some(format!(
                "{}; set the credentials again with PATCH",
                e.message()
            ));
        }
        if let Err(e) = self.store.update_server(row).await {
            tracing::warn!(server = %row.id, "cannot record status: {e}");
        }
    }

    /// Connects a stored row with its own (sealed) credentials.
    pub(super) async fn reconnect_stored(&self, row: &mut ServerRow) -> Result<(), ApiError> {
        let auth = stored_auth(self, row)?;
        self.connect(row, auth).await;
        Ok(())
    }

    /// What a row stores for its credentials: sealed for (row, field), nothing for `none`.
    fn seal_credentials(
        &self,
        row_id: &str,
        auth_method: &str,
        credentials: Option<&Credentials>,
    ) -> Option<String> {
        let credentials = credentials.filter(|_| auth_method != "none")?;
        let json = serde_json::to_string(credentials).ok()?;
        Some(self.sealer.seal(row_id, CREDENTIALS, &json))
    }

    pub(super) fn audit_change(&self, caller: &ApiCaller, action: &str, row: &ServerRow) {
        let outcome = if row.status == "error" {
            "transport_error"
        } else {
            "ok"
        };
        self.audit.record_now(AuditEntry {
            at: now_ms(),
            org_id: Some(caller.org.id.clone()),
            token_id: Some(caller.token.id.clone()),
            action_id: format!("config.{action}"),
            server: Some(row.slug.clone()),
            verdict: "allowed".into(),
            outcome: outcome.into(),
            detail: Some(format!("{} server_id={}", Surface::Rest.detail(), row.id)),
            ..Default::default()
        });
    }

    pub(super) async fn live_row(
        &self,
        caller: &ApiCaller,
        id: &str,
    ) -> Result<ServerRow, ApiError> {
        self.store
            .server(&caller.org.id, id)
            .await?
            .filter(|r| r.deleted_at.is_none())
            .ok_or_else(|| ApiError::NotFound(format!("no server {id} in org {}", caller.org.name)))
    }
}

pub(super) async fn create(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    body: Result<Json<CreateServer>, JsonRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    caller.require(MANAGE)?;
    let Json(body) = body.map_err(|e| ApiError::Invalid(e.body_text()))?;
    validate_name(&body.name)?;
    let slug = ServerSlug::parse(&body.slug).map_err(|e| ApiError::Invalid(e.to_string()))?;
    if state
        .registry
        .servers()
        .iter()
        .any(|s| s.name == slug.as_str())
    {
        return Err(ApiError::Conflict(format!(
            "slug {slug} is taken by a server in the gateway's config files; pick another slug"
        )));
    }
    state
        .registry
        .check_url(&body.url)
        .map_err(ApiError::Invalid)?;
    let bearer = upstream_auth(&body.auth_method, body.credentials.as_ref())?;
    state.check_end_user_oauth(&bearer)?;
    let id = switchboard_store::new_id("srv");
    let credentials = state.seal_credentials(&id, &body.auth_method, body.credentials.as_ref());
    let mut row = ServerRow {
        id: id.clone(),
        org_id: caller.org.id.clone(),
        slug: slug.to_string(),
        name: body.name,
        url: body.url,
        auth_method: body.auth_method,
        credentials,
        status: ServerStatus::Connecting.to_string(),
        last_error: None,
        discovered_tools: Vec::new(),
        last_discovered_at: None,
        created_at: now_ms(),
        deleted_at: None,
    };
    state.store.insert_server(&row).await.map_err(|e| match e {
        switchboard_store::StoreError::Conflict { .. } => ApiError::Conflict(format!(
            "org {} already has a server with slug {}",
            caller.org.name, row.slug
        )),
        other => other.into(),
    })?;
    state.connect(&mut row, bearer).await;
    state.store.update_server(&row).await?;
    state.announce(&row, ChangeKind::Saved).await;
    state.audit_change(&caller, "connect", &row);
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "id": row.id,
            "status": row.status,
            "tool_count": row.discovered_tools.len(),
            "error": row.last_error,
            "authorize_url": running(&row, &state.org_registry(&row.org_id)).and_then(|s| s.authorize_url),
        })),
    ))
}

pub(super) async fn list(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    super::ApiQuery(query): super::ApiQuery<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    caller.require(VIEW)?;
    let rows = state.store.servers(&caller.org.id).await?;
    let org = state.org_registry(&caller.org.id);
    let mut servers: Vec<Value> = rows
        .iter()
        .filter(|r| query.include_deleted || r.deleted_at.is_none())
        .map(|row| live_view(row, &org))
        .collect();
    // Servers the operator declared in config files: shown, never changed through the API.
    let tools = state.registry.tools();
    servers.extend(state.registry.servers().into_iter().map(|s| {
        let names: Vec<&str> = tools
            .iter()
            .filter(|t| t.server.as_str() == s.name)
            .map(|t| t.upstream_name.as_str())
            .collect();
        json!({
            "id": format!("{CONFIG_PREFIX}{}", s.name),
            "slug": s.name,
            "name": s.name,
            "transport": s.transport,
            "status": s.status,
            "last_error": s.last_error,
            "authorize_url": s.authorize_url.filter(|_| caller.has_role(OPERATE)),
            "discovered_tools": names,
            "status_history": s.status_history,
            "protocol_version": s.protocol_version,
            "source": "config",
            "read_only": true,
        })
    }));
    Ok(Json(json!({ "servers": servers })))
}

/// Ids of config-file servers in API answers.
pub(super) const CONFIG_PREFIX: &str = "config:";

/// Config-file servers are the operator's: the API shows them but does not change them.
pub(super) fn refuse_config_server(id: &str) -> Result<(), ApiError> {
    match id.strip_prefix(CONFIG_PREFIX) {
        Some(name) => Err(ApiError::Forbidden(format!(
            "server {name} is declared in a config file: its settings are read-only through the API, so change them in the file (switchboard config check shows where); refresh, disable, enable and reauthorize work with a gateway:operate token"
        ))),
        None => Ok(()),
    }
}

pub(super) async fn update(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path(id): Path<String>,
    body: Result<Json<UpdateServer>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    caller.require(MANAGE)?;
    refuse_config_server(&id)?;
    let body = match body {
        Ok(Json(body)) => body,
        Err(JsonRejection::MissingJsonContentType(_)) => UpdateServer::default(),
        Err(e) => return Err(ApiError::Invalid(e.body_text())),
    };
    let mut row = state.live_row(&caller, &id).await?;
    if let Some(name) = body.name {
        validate_name(&name)?;
        row.name = name;
    }
    let old_url = row.url.clone();
    if let Some(url) = body.url {
        state.registry.check_url(&url).map_err(ApiError::Invalid)?;
        row.url = url;
    }
    let auth_method = body.auth_method.unwrap_or_else(|| row.auth_method.clone());
    let credentials_given = body.credentials.is_some();
    let credentials = match body.credentials {
        Some(given) => Some(given),
        None if auth_method == row.auth_method => stored_credentials(&state, &row)?,
        None => None,
    };
    let bearer = upstream_auth(&auth_method, credentials.as_ref())?;
    state.check_end_user_oauth(&bearer)?;
    if credentials_given || auth_method != row.auth_method || row.url != old_url {
        // Tokens and client registrations obtained with the old settings go.
        state.forget_tokens(&row).await;
    }
    row.credentials = state.seal_credentials(&row.id, &auth_method, credentials.as_ref());
    row.auth_method = auth_method;
    state.connect(&mut row, bearer).await;
    state.store.update_server(&row).await?;
    state.announce(&row, ChangeKind::Saved).await;
    state.audit_change(&caller, "refresh", &row);
    Ok(Json(live_view(&row, &state.org_registry(&row.org_id))))
}

pub(super) async fn delete(
    State(state): State<ControlPlane>,
    caller: ApiCaller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    caller.require(MANAGE)?;
    refuse_config_server(&id)?;
    let mut row = state.live_row(&caller, &id).await?;
    row.deleted_at = Some(now_ms());
    row.credentials = None;
    state.forget_tokens(&row).await;
    row.discovered_tools.clear();
    row.status = "deleted".into();
    state
        .org_registry(&row.org_id)
        .remove_server(&row.slug)
        .await;
    state.store.update_server(&row).await?;
    state.announce(&row, ChangeKind::Saved).await;
    state.audit_change(&caller, "delete", &row);
    Ok(Json(json!({"id": row.id, "status": row.status})))
}

/// Writes what a connect or re-discovery found into `row`; `true` if its status or its tools
/// changed.
pub(super) fn record_outcome(row: &mut ServerRow, registry: &Registry, info: ServerInfo) -> bool {
    let status = info.status.to_string();
    let mut changed = status != row.status;
    row.status = status;
    row.last_error = info.last_error;
    if info.status == ServerStatus::Ready {
        let tools: Vec<String> = registry
            .catalog()
            .tools
            .iter()
            .filter(|t| t.server.as_str() == row.slug)
            .map(|t| t.upstream_name.clone())
            .collect();
        changed |= tools != row.discovered_tools;
        row.discovered_tools = tools;
        row.last_discovered_at = Some(now_ms());
    }
    changed
}
