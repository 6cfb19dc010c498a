//! What replicas on one database share: change notices (Postgres LISTEN/NOTIFY), scheduled
//! jobs claimed once per cluster (advisory lock + a `jobs` row), and resumable MCP sessions.

use crate::Store;
use crate::model::{StoreError, now_ms};
use crate::sql::{Backend, SqlStore};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::postgres::PgListener;

/// The Postgres channel change notices travel on.
pub const CHANNEL: &str = "switchboard_changes";

/// "This org's server changed; read it again." Sent after the row is committed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub org_id: String,
    pub server_id: String,
    /// The replica that made the change (it has applied it already).
    pub replica: String,
    #[serde(default)]
    pub kind: ChangeKind,
}

/// What changed, and so what the other replicas do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The row changed (created, edited, deleted): reconnect or remove the server.
    #[default]
    Saved,
    /// The server's offer changed upstream: list it again on the live connection.
    Rediscovered,
    /// An operator disabled a config-file server (`server_id` is `config:NAME`).
    Disabled,
    /// An operator enabled a config-file server again.
    Enabled,
    /// An operator asked for a config-file server to be reconnected.
    Refreshed,
    /// Tool pins or an org's policy document changed: read them again and review every
    /// catalogue (`org_id` empty for the operator's pins).
    Policy,
    /// An org's issuers changed: forget them, so the next token reads them again.
    Identity,
    /// An end user's grant was set or revoked (`server_id` is its store key): read it again.
    Grant,
}

impl Change {
    /// "The pins or policy of `owner` changed", from a process that is not a replica.
    pub fn policy(owner: &switchboard_core::Owner) -> Self {
        Self {
            org_id: match owner {
                switchboard_core::Owner::Org(id) => id.clone(),
                switchboard_core::Owner::Operator => String::new(),
            },
            server_id: String::new(),
            replica: "cli".into(),
            kind: ChangeKind::Policy,
        }
    }
}

/// What a [`ChangeListener`] heard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    Change(Change),
    /// The connection to the database dropped and is back: notices may have been missed,
    /// so everything should be read again.
    Resync,
}

/// Change notices from every replica (Postgres only: SQLite has one process).
pub struct ChangeListener {
    inner: PgListener,
}

impl ChangeListener {
    /// The next notice; waits for one.
    pub async fn next(&mut self) -> Result<Heard, StoreError> {
        loop {
            let Some(notice) = self.inner.try_recv().await? else {
                return Ok(Heard::Resync);
            };
            match serde_json::from_str(notice.payload()) {
                Ok(change) => return Ok(Heard::Change(change)),
                Err(e) => tracing::warn!("ignoring a malformed change notice: {e}"),
            }
        }
    }
}

/// The advisory-lock key of job `name`: fixed prefix, then a hash of the name.
fn job_lock(name: &str) -> i64 {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(name.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(bytes) & 0x0000_FFFF_FFFF_FFFF | 0x5342_0000_0000_0000
}

impl SqlStore {
    pub(crate) async fn publish(&self, change: &Change) -> Result<(), StoreError> {
        if self.backend() != Backend::Postgres {
            return Ok(());
        }
        let payload =
            serde_json::to_string(change).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(payload)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub(crate) async fn listen(&self) -> Result<Option<ChangeListener>, StoreError> {
        if self.backend() != Backend::Postgres {
            return Ok(None);
        }
        let mut inner = PgListener::connect(self.url()).await?;
        inner.listen(CHANNEL).await?;
        Ok(Some(ChangeListener { inner }))
    }

    /// Holds a cluster-wide lock on `key` until the returned value is dropped (Postgres: a
    /// transaction holding an advisory lock, rolled back on drop); `None` on SQLite, whose
    /// one process coordinates itself.
    pub(crate) async fn lock_key(&self, key: &str) -> Result<Option<Box<dyn Send>>, StoreError> {
        if self.backend() != Backend::Postgres {
            return Ok(None);
        }
        let slot = self
            .lock_slots()
            .acquire_owned()
            .await
            .map_err(|_| StoreError::Database("the store is closing".into()))?;
        let mut tx = self.pool().begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(job_lock(&format!("lock:{key}")))
            .execute(&mut *tx)
            .await?;
        // Dropped together: the transaction (rolling back releases the lock), then the slot.
        Ok(Some(Box::new((tx, slot))))
    }

    pub(crate) async fn claim(
        &self,
        name: &str,
        every_ms: i64,
        replica: &str,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool().begin().await?;
        if self.backend() == Backend::Postgres {
            // Whoever holds the lock decides; the others skip this tick without waiting.
            let locked: bool = sqlx::query("SELECT pg_try_advisory_xact_lock($1) AS locked")
                .bind(job_lock(name))
                .fetch_one(&mut *tx)
                .await?
                .try_get("locked")?;
            if !locked {
                return Ok(false);
            }
        }
        let now = now_ms();
        // The row says when the job last ran anywhere; only a run that is due takes it.
        let claimed = sqlx::query(
            "INSERT INTO jobs (name, last_run_at, run_by) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET last_run_at = excluded.last_run_at, run_by = excluded.run_by WHERE jobs.last_run_at <= $4",
        )
        .bind(name)
        .bind(now)
        .bind(replica)
        .bind(now - every_ms)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(claimed)
    }

    pub(crate) async fn load_session_state(&self, id: &str) -> Result<Option<String>, StoreError> {
        // Restoring a session is using it: it is not pruned while replicas restore it.
        let row = sqlx::query("UPDATE mcp_sessions SET used_at = $2 WHERE id = $1 RETURNING state")
            .bind(id)
            .bind(now_ms())
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| r.try_get("state")).transpose()?)
    }

    pub(crate) async fn save_session_state(&self, id: &str, state: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO mcp_sessions (id, state, created_at, used_at) VALUES ($1, $2, $3, $3) ON CONFLICT (id) DO UPDATE SET state = excluded.state, used_at = excluded.used_at",
        )
        .bind(id)
        .bind(state)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(crate) async fn delete_session_state(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM mcp_sessions WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub(crate) async fn touch_session_state(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE mcp_sessions SET used_at = $2 WHERE id = $1")
            .bind(id)
            .bind(now_ms())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub(crate) async fn prune_session_states(&self, before_ms: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query("DELETE FROM mcp_sessions WHERE used_at < $1")
            .bind(before_ms)
            .execute(self.pool())
            .await?
            .rows_affected())
    }
}

/// A Postgres URL whose connections use `schema` (created if missing): one database can hold
/// several independent Switchboard deployments, and each test run its own.
pub async fn create_schema(url: &str, schema: &str) -> Result<String, StoreError> {
    check_schema_name(schema)?;
    execute(url, &format!("CREATE SCHEMA IF NOT EXISTS {schema}")).await?;
    let sep = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{sep}options=-c%20search_path%3D{schema}"))
}

/// Drops `schema` and everything in it (test and benchmark clean-up).
pub async fn drop_schema(url: &str, schema: &str) -> Result<(), StoreError> {
    check_schema_name(schema)?;
    execute(url, &format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).await
}

/// Schema names go into SQL text: only plain identifiers are accepted.
fn check_schema_name(schema: &str) -> Result<(), StoreError> {
    let valid = !schema.is_empty()
        && schema.len() <= 63
        && schema.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && schema
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(StoreError::Open {
            url: schema.to_string(),
            message: "a schema name is 1-63 lowercase letters, digits or '_'".into(),
        })
    }
}

async fn execute(url: &str, sql: &str) -> Result<(), StoreError> {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url)
        .await
        .map_err(|e| StoreError::Open {
            url: crate::sql::redact_url(url),
            message: e.to_string(),
        })?;
    sqlx::query(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(&pool)
        .await?;
    pool.close().await;
    Ok(())
}
