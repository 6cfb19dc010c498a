//! The rows the store keeps and its one error type.

use serde::{Deserialize, Serialize};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the database {url}: {message}")]
    Open { url: String, message: String },
    #[error("database migration failed: {0}")]
    Migrate(String),
    #[error("{what} already exists")]
    Conflict { what: String },
    #[error("database error: {0}")]
    Database(String),
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict {
                what: db.message().to_string(),
            },
            _ => StoreError::Database(e.to_string()),
        }
    }
}

/// Unix time in milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Org {
    pub id: String,
    pub name: String,
    pub features: Vec<String>,
    pub created_at: i64,
}

impl Org {
    pub fn has_feature(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiToken {
    pub id: String,
    pub org_id: String,
    pub roles: Vec<String>,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
    /// When it stops being accepted (Unix ms); `None` never.
    #[serde(default)]
    pub expires_at: Option<i64>,
}

impl ApiToken {
    /// `live`, `revoked` or `expired` at `now` (Unix ms).
    pub fn state(&self, now: i64) -> &'static str {
        match (self.revoked_at, self.expires_at) {
            (Some(_), _) => "revoked",
            (None, Some(at)) if at <= now => "expired",
            _ => "live",
        }
    }
}

/// An MCP server connected through the API. `credentials` is sealed; never print it opened.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRow {
    pub id: String,
    pub org_id: String,
    pub slug: String,
    pub name: String,
    pub url: String,
    pub auth_method: String,
    pub credentials: Option<String>,
    pub status: String,
    pub last_error: Option<String>,
    pub discovered_tools: Vec<String>,
    pub last_discovered_at: Option<i64>,
    pub created_at: i64,
    pub deleted_at: Option<i64>,
}

impl std::fmt::Debug for ServerRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerRow")
            .field("id", &self.id)
            .field("org_id", &self.org_id)
            .field("slug", &self.slug)
            .field("url", &self.url)
            .field("auth_method", &self.auth_method)
            .field(
                "credentials",
                &self.credentials.as_ref().map(|_| "<sealed>"),
            )
            .field("status", &self.status)
            .field("deleted_at", &self.deleted_at)
            .finish()
    }
}

/// Which audit rows to read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditFilter {
    pub org_id: Option<String>,
    pub agent_id: Option<String>,
    pub action_id: Option<String>,
    /// The server the call went to (its slug).
    pub server: Option<String>,
    pub outcome: Option<String>,
    /// Rows with `seq` greater than this.
    pub after_seq: Option<i64>,
    /// Rows with `seq` less than this (the next page of a newest-first read).
    #[serde(default)]
    pub before_seq: Option<i64>,
    /// Newest first (a request log) instead of in chain order.
    #[serde(default)]
    pub newest_first: bool,
    pub since_ms: Option<i64>,
    pub limit: Option<i64>,
}

/// What one end user granted one per-end-user server (never the secret, which is sealed
/// apart under `key`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantRow {
    /// `eu:{org}|{owner}|{server}|{end user}` (where the store keeps it; not shown).
    #[serde(skip)]
    pub key: String,
    pub id: String,
    /// The caller's org id, or `operator`.
    pub org_id: String,
    /// The server's owner key (`operator` or `org:<id>`).
    pub owner: String,
    pub server: String,
    pub end_user: String,
    /// `api_key` (a secret the user or their platform set) or `oauth`.
    pub kind: String,
    pub scopes: Vec<String>,
    pub issued_at: i64,
    pub last_used_at: Option<i64>,
    pub expires_at: Option<i64>,
}

/// An agent an org has toggled actions for: how many are on now, and when it last changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSummary {
    pub agent_id: String,
    pub enabled: i64,
    pub updated_at: i64,
}
