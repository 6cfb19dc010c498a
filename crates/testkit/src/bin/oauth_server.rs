//! A protected MCP server and its own authorization server on one loopback port, for OAuth
//! tests: RFC 9728 resource metadata, RFC 8414 server metadata, dynamic registration, an
//! authorize endpoint that approves at once (302 to the redirect URI), and a token endpoint
//! for the authorization code (PKCE S256 checked), refresh token and client credentials grants.
//!
//! `oauth-server [--lifetime SECS] [--client ID:SECRET]` prints `listening on URL/mcp`.
//! Tools `whoami` (and `write`, which needs the scope `write`: a token without it gets a 403
//! `insufficient_scope`) answer with the scopes of the calling token. Test controls:
//! `POST /admin/revoke-access`, `POST /admin/revoke-refresh`, `POST /admin/issue` (a token
//! pair, as a platform would hand over), `GET /admin/stats` (token requests by grant type, and
//! `refresh_token:USER` per user).
//! `GET /login?user=NAME` signs a browser in here (a cookie): the authorizations it approves
//! then, and the tokens they give, are that user's, and `whoami` names them.

#[path = "oauth_server/whoami.rs"]
mod whoami;

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Json, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use sha2::Digest;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_sync::Mutex;
use whoami::{Scope, WhoAmI};

#[derive(Default)]
struct Tokens {
    next: u64,
    /// code → (PKCE challenge, scope)
    codes: HashMap<String, (String, String)>,
    /// access token → (expiry, scope)
    access: HashMap<String, (Instant, String)>,
    /// refresh token → scope
    refresh: HashMap<String, String>,
    stats: HashMap<String, u64>,
    /// The user a code, access token or refresh token belongs to (a signed-in browser's).
    users: HashMap<String, String>,
}

#[derive(Clone)]
struct Server {
    base: String,
    lifetime: Duration,
    /// Pre-registered confidential clients (id → secret), plus the registered ones.
    clients: Arc<Mutex<HashMap<String, String>>>,
    tokens: Arc<Mutex<Tokens>>,
}

impl Server {
    fn issue(&self, scope: &str, with_refresh: bool, user: Option<String>) -> Value {
        let mut t = self.tokens.lock();
        t.next += 1;
        let access = format!("at-{}", t.next);
        if let Some(user) = &user {
            t.users.insert(access.clone(), user.clone());
        }
        t.access.insert(
            access.clone(),
            (Instant::now() + self.lifetime, scope.to_string()),
        );
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.lifetime.as_secs(),
            "scope": scope,
        });
        if with_refresh {
            let refresh = format!("rt-{}", t.next);
            t.refresh.insert(refresh.clone(), scope.to_string());
            if let Some(user) = user {
                t.users.insert(refresh.clone(), user);
            }
            answer["refresh_token"] = refresh.into();
        }
        answer
    }

    fn count(&self, grant: &str) {
        *self.tokens.lock().stats.entry(grant.into()).or_default() += 1;
    }

    /// The client a token request authenticates as (HTTP Basic or form fields).
    fn client(&self, headers: &HeaderMap, form: &HashMap<String, String>) -> Option<String> {
        let (id, secret) = match headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Basic "))
        {
            Some(basic) => {
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(basic)
                    .ok()?;
                let text = String::from_utf8(decoded).ok()?;
                let (id, secret) = text.split_once(':')?;
                (id.to_string(), Some(secret.to_string()))
            }
            None => (
                form.get("client_id")?.clone(),
                form.get("client_secret").cloned(),
            ),
        };
        let clients = self.clients.lock();
        match (clients.get(&id), secret) {
            (Some(expected), Some(given)) if *expected == given => Some(id),
            (Some(_), _) => None,
            // Public clients (registered without a secret) name themselves only.
            (None, _) => Some(id),
        }
    }
}

fn oauth_error(status: StatusCode, error: &str) -> Response {
    (status, Json(json!({"error": error}))).into_response()
}

async fn resource_metadata(State(s): State<Server>) -> Json<Value> {
    Json(json!({
        "resource": format!("{}/mcp", s.base),
        "authorization_servers": [s.base],
        "scopes_supported": ["read"],
    }))
}

async fn server_metadata(State(s): State<Server>) -> Json<Value> {
    Json(json!({
        "issuer": s.base,
        "authorization_endpoint": format!("{}/authorize", s.base),
        "token_endpoint": format!("{}/token", s.base),
        "registration_endpoint": format!("{}/register", s.base),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
    }))
}

async fn register(State(s): State<Server>, Json(body): Json<Value>) -> Response {
    let mut t = s.tokens.lock();
    t.next += 1;
    let id = format!("dyn-{}", t.next);
    let secret = format!("dyn-secret-{}", t.next);
    s.clients.lock().insert(id.clone(), secret.clone());
    let answer = json!({
        "client_id": id,
        "client_secret": secret,
        "redirect_uris": body["redirect_uris"],
        "token_endpoint_auth_method": "client_secret_basic",
    });
    (StatusCode::CREATED, Json(answer)).into_response()
}

/// `GET /login?user=NAME`: this browser is NAME here from now on.
async fn login(Query(q): Query<HashMap<String, String>>) -> Response {
    let user = q.get("user").cloned().unwrap_or_default();
    let cookie = format!("upstream_user={user}; Path=/; HttpOnly; SameSite=Lax");
    (
        [(header::SET_COOKIE, cookie)],
        format!("signed in as {user}"),
    )
        .into_response()
}

async fn authorize(
    State(s): State<Server>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let user = (headers.get_all(header::COOKIE).iter())
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix("upstream_user=").map(String::from));
    let (Some(redirect), Some(state), Some(challenge)) = (
        q.get("redirect_uri"),
        q.get("state"),
        q.get("code_challenge"),
    ) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request");
    };
    if q.get("code_challenge_method").map(String::as_str) != Some("S256") {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request");
    }
    let mut t = s.tokens.lock();
    t.next += 1;
    let code = format!("code-{}", t.next);
    let scope = q.get("scope").cloned().unwrap_or_else(|| "read".into());
    t.codes.insert(code.clone(), (challenge.clone(), scope));
    if let Some(user) = user {
        t.users.insert(code.clone(), user);
    }
    let separator = if redirect.contains('?') { '&' } else { '?' };
    Redirect::to(&format!("{redirect}{separator}code={code}&state={state}")).into_response()
}

async fn token(
    State(s): State<Server>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let grant = form.get("grant_type").cloned().unwrap_or_default();
    s.count(&grant);
    let Some(_client) = s.client(&headers, &form) else {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
    };
    match grant.as_str() {
        "authorization_code" => {
            let code = form.get("code").cloned().unwrap_or_default();
            let verifier = form.get("code_verifier").cloned().unwrap_or_default();
            let Some((challenge, scope)) = s.tokens.lock().codes.remove(&code) else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            };
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(sha2::Sha256::digest(verifier.as_bytes()));
            if computed != challenge {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            }
            let user = s.tokens.lock().users.remove(&code);
            Json(s.issue(&scope, true, user)).into_response()
        }
        "refresh_token" => {
            let given = form.get("refresh_token").cloned().unwrap_or_default();
            let Some(scope) = s.tokens.lock().refresh.remove(&given) else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            };
            let user = s.tokens.lock().users.remove(&given);
            if let Some(user) = &user {
                s.count(&format!("refresh_token:{user}"));
            }
            Json(s.issue(&scope, true, user)).into_response()
        }
        "client_credentials" => {
            let scope = form.get("scope").cloned().unwrap_or_else(|| "read".into());
            Json(s.issue(&scope, false, None)).into_response()
        }
        _ => oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type"),
    }
}

async fn admin_revoke_access(State(s): State<Server>) -> StatusCode {
    s.tokens.lock().access.clear();
    StatusCode::NO_CONTENT
}

async fn admin_revoke_refresh(State(s): State<Server>) -> StatusCode {
    s.tokens.lock().refresh.clear();
    StatusCode::NO_CONTENT
}

async fn admin_issue(State(s): State<Server>) -> Json<Value> {
    Json(s.issue("read", true, None))
}

async fn admin_stats(State(s): State<Server>) -> Json<Value> {
    Json(json!(s.tokens.lock().stats))
}

/// Lets `/mcp` requests through only with a live access token.
async fn require_token(
    State(s): State<Server>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(String::from);
    let live = token.and_then(|t| {
        let tokens = s.tokens.lock();
        let user = tokens.users.get(&t).map(|u| format!(" user: {u}"));
        tokens
            .access
            .get(&t)
            .filter(|(expiry, _)| Instant::now() < *expiry)
            .map(|(_, scope)| format!("{scope}{}", user.unwrap_or_default()))
    });
    let Some(scope) = live else {
        let challenge = format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            s.base
        );
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
        )
            .into_response();
    };
    // Tool `write` needs the scope `write`: without it, a 403 asking for more (step-up).
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 1 << 20).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let message: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let wants_write = message["method"] == "tools/call" && message["params"]["name"] == "write";
    if wants_write && !scope.split(' ').any(|s| s == "write") {
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"read write\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            s.base
        );
        return (
            StatusCode::FORBIDDEN,
            [(header::WWW_AUTHENTICATE, challenge)],
        )
            .into_response();
    }
    let mut request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
    request.extensions_mut().insert(Scope(scope));
    next.run(request).await
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let lifetime = Duration::from_secs(
        arg("--lifetime")
            .and_then(|s| s.parse().ok())
            .unwrap_or(3600),
    );
    let mut clients = HashMap::new();
    if let Some((id, secret)) = arg("--client").as_deref().and_then(|c| c.split_once(':')) {
        clients.insert(id.to_string(), secret.to_string());
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let server = Server {
        base: base.clone(),
        lifetime,
        clients: Arc::new(Mutex::new(clients)),
        tokens: Arc::default(),
    };
    let mcp = StreamableHttpService::new(
        || Ok(WhoAmI),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let protected =
        axum::Router::new()
            .nest_service("/mcp", mcp)
            .layer(axum::middleware::from_fn_with_state(
                server.clone(),
                require_token,
            ));
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/login", get(login))
        .route("/token", post(token))
        .route("/admin/revoke-access", post(admin_revoke_access))
        .route("/admin/revoke-refresh", post(admin_revoke_refresh))
        .route("/admin/issue", post(admin_issue))
        .route("/admin/stats", get(admin_stats))
        .with_state(server)
        .merge(protected);
    println!("listening on {base}/mcp");
    // Streamed answers would otherwise wait for the client's delayed ACK (~40 ms each).
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await?;
    Ok(())
}
