//! SQLite audit appends on a connection and thread of their own: a batch is one hand-off to
//! that thread and one back, not one per statement, and no other connection's turn evicts
//! its page cache.

use crate::BatchMark;
use crate::audit::{AuditEntry, AuditRow, Chain, GENESIS};
use crate::model::StoreError;
use crate::sql::Backend;
use crate::sql_audit::{LAST_ROW, insert_sql};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Batches that may wait for the thread: the writer sends one at a time (a retry after a
/// timed-out try may add a second).
const QUEUE: usize = 4;
/// As the pool's connections (`PRAGMA busy_timeout = 5000`).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const BATCH_FIRST_ROW: &str = "SELECT seq FROM audit WHERE batch = ?1";

/// What one append did.
pub(crate) enum Appended {
    /// These rows are in the chain now.
    Rows(Vec<AuditRow>),
    /// A retried batch an earlier try had committed: its rows start at this `seq`.
    Already { first: i64 },
}

/// Work for the thread: one batch, or a statement for the connection itself.
enum Job {
    Append {
        chain: Chain,
        batch: Option<BatchMark>,
        entries: Vec<AuditEntry>,
        reply: oneshot::Sender<Result<Appended, StoreError>>,
    },
    Pragma {
        sql: String,
        reply: oneshot::Sender<Result<(), StoreError>>,
    },
}

/// The queue into the appending thread; the thread ends when the store is dropped.
pub(crate) struct SqliteAppender {
    jobs: mpsc::Sender<Job>,
}

impl SqliteAppender {
    /// Starts the thread for the database file at `path` (opened on its first batch).
    pub(crate) fn start(path: PathBuf) -> std::io::Result<Self> {
        // Resolved now: the connection opens later, whatever the working folder is then.
        let path = std::path::absolute(path)?;
        let (jobs, queue) = mpsc::channel(QUEUE);
        std::thread::Builder::new()
            .name("sb-audit-sqlite".into())
            .spawn(move || run(&path, queue))?;
        Ok(Self { jobs })
    }

    /// Appends `entries` after the chain's last row, in one transaction.
    pub(crate) async fn append(
        &self,
        chain: &Chain,
        batch: Option<&BatchMark>,
        entries: &[AuditEntry],
    ) -> Result<Appended, StoreError> {
        let (reply, answer) = oneshot::channel();
        let job = Job::Append {
            chain: chain.clone(),
            batch: batch.cloned(),
            entries: entries.to_vec(),
            reply,
        };
        self.send(job, answer).await?
    }

    /// Runs `sql` (a `PRAGMA`) on the appending connection.
    pub(crate) async fn pragma(&self, sql: &str) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        let sql = sql.to_string();
        self.send(Job::Pragma { sql, reply }, answer).await?
    }

    async fn send<T>(&self, job: Job, answer: oneshot::Receiver<T>) -> Result<T, StoreError> {
        let stopped = || {
            StoreError::Database(
                "the audit appending thread has stopped (the log says why); restart the gateway"
                    .into(),
            )
        };
        self.jobs.send(job).await.map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())
    }
}

/// The thread: one connection, opened when first needed, and again (with the pragmas set on
/// it so far) should a failed append leave a transaction open.
fn run(path: &Path, mut queue: mpsc::Receiver<Job>) {
    let mut connection: Option<Connection> = None;
    let mut pragmas: Vec<String> = Vec::new();
    // The pool's one-row INSERT (anonymous `?` placeholders), prepared once per connection.
    let insert_row = insert_sql(Backend::Sqlite, 1);
    while let Some(job) = queue.blocking_recv() {
        match job {
            Job::Append {
                chain,
                batch,
                entries,
                reply,
            } => {
                let appended = connected(&mut connection, path, &pragmas)
                    .and_then(|conn| append(conn, &insert_row, &chain, batch.as_ref(), &entries));
                if connection.as_ref().is_some_and(|c| !c.is_autocommit()) {
                    connection = None;
                }
                let _ = reply.send(appended.map_err(database));
            }
            Job::Pragma { sql, reply } => {
                let ran = connected(&mut connection, path, &pragmas).and_then(|c| pragma(c, &sql));
                if ran.is_ok() {
                    pragmas.push(sql);
                }
                let _ = reply.send(ran.map_err(database));
            }
        }
    }
}

/// The thread's connection, opened (with `pragmas`) if it has none.
fn connected<'c>(
    connection: &'c mut Option<Connection>,
    path: &Path,
    pragmas: &[String],
) -> rusqlite::Result<&'c mut Connection> {
    match connection {
        Some(conn) => Ok(conn),
        None => Ok(connection.insert(open(path, pragmas)?)),
    }
}

fn open(path: &Path, pragmas: &[String]) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    for sql in pragmas {
        pragma(&conn, sql)?;
    }
    Ok(conn)
}

/// A `PRAGMA`, whether or not it answers with a row.
fn pragma(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.query_row(sql, [], |_| Ok(())).optional().map(drop)
}

/// One batch in one transaction, which takes the write lock at `BEGIN IMMEDIATE` (the same
/// as the pool's appends: a deferred one could find the chain moved under it).
fn append(
    conn: &mut Connection,
    insert_row: &str,
    chain: &Chain,
    batch: Option<&BatchMark>,
    entries: &[AuditEntry],
) -> rusqlite::Result<Appended> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Only a retry can find its batch already there: a first try skips the lookup.
    if let Some(batch) = batch.filter(|b| b.retried) {
        let first = tx
            .prepare_cached(BATCH_FIRST_ROW)?
            .query_row([&batch.id], |row| row.get::<_, i64>(0))
            .optional()?;
        if let Some(first) = first {
            return Ok(Appended::Already { first });
        }
    }
    let last = tx
        .prepare_cached(LAST_ROW)?
        .query_row([], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .optional()?;
    let (last_seq, last_hash) = last.unwrap_or_else(|| (0, GENESIS.to_string()));
    let rows = chain.link(last_seq, &last_hash, entries);
    {
        let mut insert = tx.prepare_cached(insert_row)?;
        for (i, r) in rows.iter().enumerate() {
            let e = &r.entry;
            // The batch's mark, on its first row only.
            let mark = batch.filter(|_| i == 0).map(|b| b.id.as_str());
            insert.execute(params![
                r.seq,
                e.at,
                e.org_id,
                e.agent_id,
                e.end_user_id,
                e.token_id,
                e.action_id,
                e.server,
                e.verdict,
                e.outcome,
                e.duration_us,
                e.request_bytes,
                e.response_bytes,
                e.detail,
                r.prev_hash,
                r.hash,
                e.policy,
                mark,
            ])?;
        }
    }
    tx.commit()?;
    Ok(Appended::Rows(rows))
}

fn database(e: rusqlite::Error) -> StoreError {
    match &e {
        rusqlite::Error::SqliteFailure(code, _)
            if code.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                || code.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE =>
        {
            StoreError::Conflict {
                what: e.to_string(),
            }
        }
        _ => StoreError::Database(e.to_string()),
    }
}

/// The database file of an SQLite URL, as sqlx reads it (so both open the same file);
/// `None` for an in-memory database, which a second connection could not see, or for
/// another kind of URL.
pub(crate) fn database_file(url: &str) -> Option<PathBuf> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let in_memory =
        path.is_empty() || path == ":memory:" || query.split('&').any(|p| p == "mode=memory");
    let options = sqlx::sqlite::SqliteConnectOptions::from_str(url).ok()?;
    (!in_memory).then(|| options.get_filename().to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::database_file;
    use std::path::PathBuf;

    #[test]
    fn only_a_file_gets_an_appending_connection() {
        assert_eq!(
            database_file("sqlite:///data/switchboard.db?mode=rwc"),
            Some(PathBuf::from("/data/switchboard.db"))
        );
        assert_eq!(
            database_file("sqlite:rel.db"),
            Some(PathBuf::from("rel.db"))
        );
        assert_eq!(database_file("sqlite::memory:"), None);
        assert_eq!(
            database_file("sqlite://x.db?mode=memory&cache=shared"),
            None
        );
        assert_eq!(database_file("postgres://db/x"), None);
    }
}
