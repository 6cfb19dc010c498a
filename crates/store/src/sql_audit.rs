//! The audit log in SQL: appending hash-chained rows in batches (serialised across replicas)
//! and reading them back filtered.

use crate::audit::{AuditEntry, AuditRow, Chain, GENESIS};
use crate::model::{AuditFilter, StoreError};
use crate::sql::{Backend, SqlStore};
use crate::sqlite_appender::Appended;
use sqlx::Row;
use sqlx::any::AnyRow;

/// Columns of one audit row, and rows per INSERT (SQLite allows 32766 parameters).
const AUDIT_COLUMNS: usize = 18;
const AUDIT_ROWS_PER_INSERT: usize = 256;

/// Arbitrary but fixed: the advisory lock that serialises audit appends across replicas.
const AUDIT_LOCK: i64 = 0x5357_4244_4155_4454;

/// The filtered read; an empty string is "no filter" (portable across both databases).
macro_rules! audit_filtered {
    () => {
        "SELECT * FROM audit WHERE seq < $1 AND seq > $2 AND at >= $3 AND ($4 = '' OR org_id = $5) AND ($6 = '' OR agent_id = $7) AND ($8 = '' OR action_id = $9) AND ($10 = '' OR outcome = $11) AND ($12 = '' OR server = $13)"
    };
}
/// In chain order, or newest first (a request log).
const AUDIT_IN_ORDER: &str = concat!(audit_filtered!(), " ORDER BY seq LIMIT $14");
const AUDIT_NEWEST_FIRST: &str = concat!(audit_filtered!(), " ORDER BY seq DESC LIMIT $14");

pub(crate) const LAST_ROW: &str = "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1";

fn seq_and_hash(row: &AnyRow) -> Result<(i64, String), StoreError> {
    Ok((row.try_get("seq")?, row.try_get("hash")?))
}

impl SqlStore {
    pub(crate) async fn append_audit_rows(
        &self,
        chain: &Chain,
        batch: Option<&crate::BatchMark>,
        entries: &[AuditEntry],
    ) -> Result<Vec<AuditRow>, StoreError> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(appender) = self.appender() {
            return match appender.append(chain, batch, entries).await? {
                Appended::Rows(rows) => Ok(rows),
                Appended::Already { first } => {
                    let last = first + entries.len() as i64 - 1;
                    let mut conn = self.pool().acquire().await?;
                    rows_between(&mut conn, first, last).await
                }
            };
        }
        let mut conn = self.pool().acquire().await?;
        let appended = self.append_on(&mut conn, chain, batch, entries).await;
        if appended.is_err() {
            // After some errors (SQLITE_FULL) SQLite ends the transaction by itself while
            // sqlx still counts it open, and every later `BEGIN IMMEDIATE` on the connection
            // would be refused: a connection whose append failed is closed, not pooled again.
            conn.close_on_drop();
        }
        appended
    }

    /// One append in one transaction on `conn`. On SQLite it takes the write lock at `BEGIN
    /// IMMEDIATE`: begun deferred, the read of the chain's last row held only a snapshot, and
    /// a write by another connection or process meanwhile made the insert fail at once with
    /// `SQLITE_BUSY` (5) or `SQLITE_BUSY_SNAPSHOT` (517), which `busy_timeout` cannot wait out.
    async fn append_on(
        &self,
        conn: &mut sqlx::AnyConnection,
        chain: &Chain,
        batch: Option<&crate::BatchMark>,
        entries: &[AuditEntry],
    ) -> Result<Vec<AuditRow>, StoreError> {
        let mut tx = match crate::Store::backend(self) {
            Backend::Sqlite => sqlx::Connection::begin_with(conn, "BEGIN IMMEDIATE").await?,
            Backend::Postgres => sqlx::Connection::begin(conn).await?,
        };
        if crate::Store::backend(self) == Backend::Postgres {
            // Replicas append to one chain: one writer at a time, whoever it is.
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(AUDIT_LOCK)
                .execute(&mut *tx)
                .await?;
        }
        // Only a retry can find its batch already there: a first try skips the lookup.
        if let Some(batch) = batch.filter(|b| b.retried) {
            let first = sqlx::query("SELECT seq FROM audit WHERE batch = $1")
                .bind(&batch.id)
                .fetch_optional(&mut *tx)
                .await?;
            if let Some(first) = first {
                // Committed before, its answer lost: those rows, not new ones.
                let first: i64 = first.try_get("seq")?;
                let last = first + entries.len() as i64 - 1;
                return rows_between(&mut tx, first, last).await;
            }
        }
        let last = sqlx::query(LAST_ROW).fetch_optional(&mut *tx).await?;
        let (last_seq, last_hash) = match &last {
            Some(row) => seq_and_hash(row)?,
            None => (0, GENESIS.to_string()),
        };
        let rows = chain.link(last_seq, &last_hash, entries);
        let first_seq = last_seq + 1;
        // Many rows per statement: the point of group commit is few round trips.
        let backend = crate::Store::backend(self);
        let per_insert = match backend {
            Backend::Sqlite => 16,
            Backend::Postgres => AUDIT_ROWS_PER_INSERT,
        };
        for chunk in statement_pieces(&rows, per_insert) {
            // Built from fixed text and placeholders only; values are bound.
            let sql = insert_sql(backend, chunk.len());
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
            for r in chunk {
                let e = &r.entry;
                query = query
                    .bind(r.seq)
                    .bind(e.at)
                    .bind(e.org_id.clone())
                    .bind(e.agent_id.clone())
                    .bind(e.end_user_id.clone())
                    .bind(e.token_id.clone())
                    .bind(e.action_id.clone())
                    .bind(e.server.clone())
                    .bind(e.verdict.clone())
                    .bind(e.outcome.clone())
                    .bind(e.duration_us)
                    .bind(e.request_bytes)
                    .bind(e.response_bytes)
                    .bind(e.detail.clone())
                    .bind(r.prev_hash.clone())
                    .bind(r.hash.clone())
                    .bind(e.policy.clone())
                    // The batch's mark, on its first row only.
                    .bind(batch.filter(|_| r.seq == first_seq).map(|b| b.id.clone()));
            }
            query.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(rows)
    }

    pub(crate) async fn last_audit_row(&self) -> Result<Option<(i64, String)>, StoreError> {
        let last = sqlx::query(LAST_ROW).fetch_optional(self.pool()).await?;
        last.as_ref().map(seq_and_hash).transpose()
    }

    pub(crate) async fn audit_rows(&self, f: &AuditFilter) -> Result<Vec<AuditRow>, StoreError> {
        let sql = if f.newest_first {
            AUDIT_NEWEST_FIRST
        } else {
            AUDIT_IN_ORDER
        };
        let rows = sqlx::query(sql)
            .bind(f.before_seq.unwrap_or(i64::MAX))
            .bind(f.after_seq.unwrap_or(0))
            .bind(f.since_ms.unwrap_or(0))
            .bind(f.org_id.clone().unwrap_or_default())
            .bind(f.org_id.clone().unwrap_or_default())
            .bind(f.agent_id.clone().unwrap_or_default())
            .bind(f.agent_id.clone().unwrap_or_default())
            .bind(f.action_id.clone().unwrap_or_default())
            .bind(f.action_id.clone().unwrap_or_default())
            .bind(f.outcome.clone().unwrap_or_default())
            .bind(f.outcome.clone().unwrap_or_default())
            .bind(f.server.clone().unwrap_or_default())
            .bind(f.server.clone().unwrap_or_default())
            .bind(f.limit.unwrap_or(1000))
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(audit_from).collect()
    }
}

/// Rows `first..=last` of the chain, in order.
async fn rows_between(
    conn: &mut sqlx::AnyConnection,
    first: i64,
    last: i64,
) -> Result<Vec<AuditRow>, StoreError> {
    let rows = sqlx::query("SELECT * FROM audit WHERE seq >= $1 AND seq <= $2 ORDER BY seq")
        .bind(first)
        .bind(last)
        .fetch_all(conn)
        .await?;
    rows.iter().map(audit_from).collect()
}

/// `rows` cut into INSERTs of a power-of-two length (at most `most` rows each): a batch of any
/// length then prepares one of a few statements (at most 9 for 256), which each pooled
/// connection caches. One statement per batch length filled every connection's statement
/// cache with up to 100 INSERTs of thousands of parameters each (Postgres: ~10 MiB per
/// replica in the soak, growing for ten minutes).
fn statement_pieces<T>(rows: &[T], most: usize) -> impl Iterator<Item = &[T]> {
    let mut rest = rows;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let take = rest.len().min(most);
        let take = 1 << take.ilog2();
        let (piece, after) = rest.split_at(take);
        rest = after;
        Some(piece)
    })
}

/// The INSERT of `rows` audit rows. SQLite gets anonymous `?` placeholders: sqlx looks up
/// every bound parameter's name, a linear search over the statement's named ones, which made
/// `$N` cost quadratic in the batch (2.6 % of the gateway's CPU under load).
pub(crate) fn insert_sql(backend: Backend, rows: usize) -> String {
    use std::fmt::Write;
    let mut sql = String::from(
        "INSERT INTO audit (seq, at, org_id, agent_id, end_user_id, token_id, action_id, server, verdict, outcome, duration_us, request_bytes, response_bytes, detail, prev_hash, hash, policy, batch) VALUES ",
    );
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        for column in 1..=AUDIT_COLUMNS {
            if column > 1 {
                sql.push_str(", ");
            }
            match backend {
                Backend::Sqlite => sql.push('?'),
                Backend::Postgres => {
                    let _ = write!(sql, "${}", row * AUDIT_COLUMNS + column);
                }
            }
        }
        sql.push(')');
    }
    sql
}

fn audit_from(row: &AnyRow) -> Result<AuditRow, StoreError> {
    Ok(AuditRow {
        seq: row.try_get("seq")?,
        entry: AuditEntry {
            at: row.try_get("at")?,
            org_id: row.try_get("org_id")?,
            agent_id: row.try_get("agent_id")?,
            end_user_id: row.try_get("end_user_id")?,
            token_id: row.try_get("token_id")?,
            action_id: row.try_get("action_id")?,
            server: row.try_get("server")?,
            verdict: row.try_get("verdict")?,
            outcome: row.try_get("outcome")?,
            duration_us: row.try_get("duration_us")?,
            request_bytes: row.try_get("request_bytes")?,
            response_bytes: row.try_get("response_bytes")?,
            detail: row.try_get("detail")?,
            policy: row.try_get("policy")?,
        },
        prev_hash: row.try_get("prev_hash")?,
        hash: row.try_get("hash")?,
    })
}

#[cfg(test)]
mod tests {
    use super::{Backend, insert_sql};

    #[test]
    fn a_batch_of_any_length_uses_few_statement_shapes() {
        let rows: Vec<u32> = (0..1_000).collect();
        let mut shapes = std::collections::BTreeSet::new();
        for n in 0..=rows.len() {
            let pieces: Vec<&[u32]> = super::statement_pieces(&rows[..n], 256).collect();
            assert_eq!(pieces.concat(), rows[..n], "every row once, in order");
            shapes.extend(pieces.iter().map(|p| p.len()));
        }
        assert_eq!(
            shapes.into_iter().collect::<Vec<_>>(),
            [1, 2, 4, 8, 16, 32, 64, 128, 256]
        );
    }

    #[test]
    fn placeholders_per_backend() {
        let sqlite = insert_sql(Backend::Sqlite, 2);
        assert!(sqlite.ends_with(&format!("({0}), ({0})", vec!["?"; 18].join(", "))));
        let postgres = insert_sql(Backend::Postgres, 2);
        assert!(postgres.contains("($1, $2,") && postgres.ends_with("$35, $36)"));
    }
}
