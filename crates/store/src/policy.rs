//! What the policy pipeline keeps: approved tool definitions (pins) and changed ones waiting
//! for approval, information-flow taint per session, rate-limit cells (GCRA on the database
//! clock) and per-org policy documents.

use crate::model::{StoreError, now_ms};
use crate::sql::{Backend, SqlStore};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::any::AnyRow;
use std::sync::LazyLock;
use tracing::instrument;

/// An approved (or waiting) tool definition: canonical JSON and its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinRow {
    /// `operator` or `org:<id>`.
    pub owner: String,
    pub server: String,
    /// The server's launch hash when it was pinned (or seen); empty on pins from before
    /// launches were kept, which stand for any launch.
    pub launch: String,
    pub tool: String,
    pub hash: String,
    pub definition: String,
    /// Approval time (pins) or when the change was seen (pending).
    pub at: i64,
    /// Who approved it (`tofu` for trust on first use), or why it waits.
    pub note: String,
}

/// The answer of one rate-limit cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    Yes,
    /// Refused; a retry after this many microseconds may pass.
    RetryAfterUs(u64),
}

#[async_trait]
pub trait PolicyStore: Send + Sync + 'static {
    /// Every pin of `owner` (all owners when `None`).
    async fn pins(&self, owner: Option<&str>) -> Result<Vec<PinRow>, StoreError>;
    /// Pins `row` unless a pin for its tool exists (first writer wins across replicas);
    /// returns the pin in force afterwards.
    async fn pin_first(&self, row: &PinRow) -> Result<PinRow, StoreError>;
    /// Pins `row` whatever was pinned before (an approval), and forgets the pending change.
    async fn approve_pin(&self, row: &PinRow) -> Result<(), StoreError>;
    /// Definitions that changed since approval, waiting for an operator.
    async fn pending(&self, owner: Option<&str>) -> Result<Vec<PinRow>, StoreError>;
    async fn save_pending(&self, row: &PinRow) -> Result<(), StoreError>;

    /// Adds `label` to `session`'s taint (idempotent).
    async fn taint(&self, session: &str, label: &str, source: &str) -> Result<(), StoreError>;
    /// The labels `session` carries, with the action that added each.
    async fn taints(&self, session: &str) -> Result<Vec<(String, String)>, StoreError>;

    /// One GCRA step on cell `key` on the database clock: admits when the cell's theoretical
    /// arrival time is at most `tolerance_us` ahead of now, moving it `interval_us` on.
    async fn rate_admit(
        &self,
        key: &str,
        interval_us: i64,
        tolerance_us: i64,
    ) -> Result<Admit, StoreError>;

    async fn org_policy(&self, org_id: &str) -> Result<Option<String>, StoreError>;
    async fn save_org_policy(&self, org_id: &str, document: &str) -> Result<(), StoreError>;
}

fn pin_from(row: &AnyRow, at: &str, note: &str) -> Result<PinRow, StoreError> {
    Ok(PinRow {
        owner: row.try_get("owner")?,
        server: row.try_get("server")?,
        launch: row.try_get("launch")?,
        tool: row.try_get("tool")?,
        hash: row.try_get("hash")?,
        definition: row.try_get("definition")?,
        at: row.try_get(at)?,
        note: row.try_get(note)?,
    })
}

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>;

/// Binds a row's columns in table order: owner, server, tool, launch, hash, definition,
/// time, note.
fn bind_row<'q>(query: AnyQuery<'q>, row: &'q PinRow) -> AnyQuery<'q> {
    bind_key(query, row)
        .bind(&row.launch)
        .bind(&row.hash)
        .bind(&row.definition)
        .bind(row.at)
        .bind(&row.note)
}

/// Binds the key columns: owner, server, tool.
fn bind_key<'q>(query: AnyQuery<'q>, row: &'q PinRow) -> AnyQuery<'q> {
    query.bind(&row.owner).bind(&row.server).bind(&row.tool)
}

/// Microseconds on the database's clock (so replicas with skewed clocks agree).
const PG_NOW_US: &str = "(extract(epoch from clock_timestamp()) * 1000000)::bigint";

#[async_trait]
impl PolicyStore for SqlStore {
    #[instrument(target = "switchboard::trace::store", name = "store.pins", skip_all)]
    async fn pins(&self, owner: Option<&str>) -> Result<Vec<PinRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT * FROM tool_pins WHERE ($1 = '' OR owner = $2) ORDER BY owner, server, tool",
        )
        .bind(owner.unwrap_or_default())
        .bind(owner.unwrap_or_default())
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| pin_from(r, "approved_at", "approved_by"))
            .collect()
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.pin_first",
        skip_all
    )]
    async fn pin_first(&self, row: &PinRow) -> Result<PinRow, StoreError> {
        bind_row(
        sqlx::query(
            "INSERT INTO tool_pins (owner, server, tool, launch, hash, definition, approved_at, approved_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (owner, server, launch, tool) DO NOTHING",
        ),
        row,
    )
        .execute(self.pool())
        .await?;
        let held = bind_key(
            sqlx::query(
                "SELECT * FROM tool_pins WHERE owner = $1 AND server = $2 AND tool = $3 AND launch = $4",
            ),
            row,
        )
        .bind(&row.launch)
        .fetch_one(self.pool())
        .await?;
        pin_from(&held, "approved_at", "approved_by")
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.approve_pin",
        skip_all
    )]
    async fn approve_pin(&self, row: &PinRow) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        bind_row(
        sqlx::query(
            "INSERT INTO tool_pins (owner, server, tool, launch, hash, definition, approved_at, approved_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (owner, server, launch, tool) DO UPDATE SET hash = excluded.hash, definition = excluded.definition, approved_at = excluded.approved_at, approved_by = excluded.approved_by",
        ),
        row,
    )
        .execute(&mut *tx)
        .await?;
        bind_key(
            sqlx::query("DELETE FROM tool_pending WHERE owner = $1 AND server = $2 AND tool = $3"),
            row,
        )
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    #[instrument(target = "switchboard::trace::store", name = "store.pending", skip_all)]
    async fn pending(&self, owner: Option<&str>) -> Result<Vec<PinRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT * FROM tool_pending WHERE ($1 = '' OR owner = $2) ORDER BY owner, server, tool",
        )
        .bind(owner.unwrap_or_default())
        .bind(owner.unwrap_or_default())
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| pin_from(r, "seen_at", "reason"))
            .collect()
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.save_pending",
        skip_all
    )]
    async fn save_pending(&self, row: &PinRow) -> Result<(), StoreError> {
        bind_row(
        sqlx::query(
            "INSERT INTO tool_pending (owner, server, tool, launch, hash, definition, seen_at, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (owner, server, tool) DO UPDATE SET launch = excluded.launch, hash = excluded.hash, definition = excluded.definition, reason = excluded.reason, seen_at = excluded.seen_at",
        ),
        row,
    )
        .execute(self.pool())
        .await?;
        Ok(())
    }

    #[instrument(target = "switchboard::trace::store", name = "store.taint", skip_all)]
    async fn taint(&self, session: &str, label: &str, source: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO flow_taint (session, label, source, at) VALUES ($1, $2, $3, $4) ON CONFLICT (session, label) DO NOTHING",
        )
        .bind(session)
        .bind(label)
        .bind(source)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    #[instrument(target = "switchboard::trace::store", name = "store.taints", skip_all)]
    async fn taints(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        let rows = sqlx::query("SELECT label, source FROM flow_taint WHERE session = $1")
            .bind(session)
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("label")?, r.try_get("source")?)))
            .collect()
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.rate_admit",
        skip_all
    )]
    async fn rate_admit(
        &self,
        key: &str,
        interval_us: i64,
        tolerance_us: i64,
    ) -> Result<Admit, StoreError> {
        // GCRA in one statement: the cell's row lock serialises concurrent callers of one
        // key, and a refused call changes nothing. The clock is the database's on Postgres
        // (replicas share it); on SQLite (one process) ours, bound as $5.
        let (admit, ahead) = match crate::Store::backend(self) {
            Backend::Postgres => (&*RATE_ADMIT_PG, &*RATE_AHEAD_PG),
            Backend::Sqlite => (&*RATE_ADMIT_LITE, &*RATE_AHEAD_LITE),
        };
        let now = now_us();
        let mut query = sqlx::query(sqlx::AssertSqlSafe(admit.as_str()))
            .bind(key)
            .bind(interval_us)
            .bind(interval_us)
            .bind(tolerance_us);
        if crate::Store::backend(self) == Backend::Sqlite {
            query = query.bind(now);
        }
        if query.fetch_optional(self.pool()).await?.is_some() {
            return Ok(Admit::Yes);
        }
        let mut query = sqlx::query(sqlx::AssertSqlSafe(ahead.as_str())).bind(key);
        if crate::Store::backend(self) == Backend::Sqlite {
            query = query.bind(now);
        }
        let ahead: i64 = query
            .fetch_optional(self.pool())
            .await?
            .map(|r| r.try_get("ahead"))
            .transpose()?
            .unwrap_or(0);
        // At most one interval: on SQLite each caller reads its clock before it waits for the
        // write lock, so a cell advanced by a later clock can look up to that wait further
        // ahead (seen: 72,000,106 µs of a 72,000,000 µs interval under load).
        Ok(Admit::RetryAfterUs(
            (ahead - tolerance_us).clamp(1, interval_us) as u64,
        ))
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.org_policy",
        skip_all
    )]
    async fn org_policy(&self, org_id: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT document FROM org_policies WHERE org_id = $1")
            .bind(org_id)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| r.try_get("document")).transpose()?)
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.save_org_policy",
        skip_all
    )]
    async fn save_org_policy(&self, org_id: &str, document: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO org_policies (org_id, document, updated_at) VALUES ($1, $2, $3) ON CONFLICT (org_id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at",
        )
        .bind(org_id)
        .bind(document)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }
}

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or_default()
}

/// The GCRA statements with the clock each backend uses (built once: sqlx caches prepared
/// statements by their text).
fn rate_admit_sql(now: &str) -> String {
    format!(
        "INSERT INTO rate_limits AS c (key, tat) VALUES ($1, {now} + $2) ON CONFLICT (key) DO UPDATE SET tat = (CASE WHEN c.tat > {now} THEN c.tat ELSE {now} END) + $3 WHERE c.tat - {now} <= $4 RETURNING tat"
    )
}
static RATE_ADMIT_PG: LazyLock<String> = LazyLock::new(|| rate_admit_sql(PG_NOW_US));
static RATE_ADMIT_LITE: LazyLock<String> = LazyLock::new(|| rate_admit_sql("$5"));
static RATE_AHEAD_PG: LazyLock<String> =
    LazyLock::new(|| format!("SELECT tat - {PG_NOW_US} AS ahead FROM rate_limits WHERE key = $1"));
static RATE_AHEAD_LITE: LazyLock<String> =
    LazyLock::new(|| "SELECT tat - $2 AS ahead FROM rate_limits WHERE key = $1".to_string());
