//! The sqlx implementation of [`Store`] for SQLite and Postgres (portable SQL, one migration set).

use crate::model::StoreError;
use rand::RngCore;
use sqlx::AnyPool;
use sqlx::any::AnyPoolOptions;
use std::path::Path;

mod dispatch;

/// Which database a store is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

pub struct SqlStore {
    pool: AnyPool,
    backend: Backend,
    /// Kept for connections outside the pool (the change listener).
    url: String,
    /// Connections that locks may hold at once: the rest of the pool stays for the work done
    /// while holding them (and for everything else).
    lock_slots: std::sync::Arc<tokio::sync::Semaphore>,
    /// SQLite on a file: the audit's own connection and thread.
    appender: Option<crate::sqlite_appender::SqliteAppender>,
}

/// Pool size on Postgres; locks may hold half of it.
const PG_POOL: u32 = 8;

/// A random id such as `srv_3f9a…` (24 hex characters after the prefix).
pub fn new_id(prefix: &str) -> String {
    let mut bytes = [0u8; 12];
    rand::rng().fill_bytes(&mut bytes);
    format!("{prefix}_{}", hex::encode(bytes))
}

pub(crate) fn list(text: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(e.to_string()))
}

pub(crate) fn json(list: &[String]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".into())
}

impl SqlStore {
    /// Embedded SQLite in `dir` (created if needed), WAL mode.
    pub async fn open_sqlite(dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::Open {
            url: dir.display().to_string(),
            message: e.to_string(),
        })?;
        let url = format!("sqlite://{}?mode=rwc", dir.join("switchboard.db").display());
        Self::open(&url).await
    }

    /// `sqlite://…` or `postgres://…`; runs migrations.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            return Err(StoreError::Open {
                url: url.to_string(),
                message: "use a sqlite:// or postgres:// URL".into(),
            });
        };
        let mut options = AnyPoolOptions::new().max_connections(match backend {
            Backend::Sqlite => 4,
            Backend::Postgres => PG_POOL,
        });
        if backend == Backend::Sqlite {
            // A connection to a local file does not go stale as a socket does: no ping (a
            // round trip to the connection's thread) before each use, such as each audit batch.
            options = options.test_before_acquire(false);
            options = options.after_connect(|conn, _| {
                Box::pin(async move {
                    sqlx::query("PRAGMA journal_mode = WAL")
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("PRAGMA busy_timeout = 5000")
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("PRAGMA foreign_keys = ON")
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                })
            });
        }
        let pool = options.connect(url).await.map_err(|e| StoreError::Open {
            url: redact_url(url),
            message: e.to_string(),
        })?;
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .map_err(|e| StoreError::Migrate(e.to_string()))?;
        let appender = crate::sqlite_appender::database_file(url)
            .map(crate::sqlite_appender::SqliteAppender::start)
            .transpose()
            .map_err(|e| StoreError::Open {
                url: redact_url(url),
                message: format!(
                    "cannot start the audit appending thread ({e}): the process is out of threads or memory; raise `ulimit -u` or free memory"
                ),
            })?;
        Ok(Self {
            pool,
            backend,
            appender,
            url: url.to_string(),
            lock_slots: std::sync::Arc::new(tokio::sync::Semaphore::new(PG_POOL as usize / 2)),
        })
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    pub(crate) fn appender(&self) -> Option<&crate::sqlite_appender::SqliteAppender> {
        self.appender.as_ref()
    }

    /// Runs `pragma` on every connection audit rows are appended on: the SQLite appender's
    /// own, or (Postgres, or SQLite in memory) nothing, since those use the pool. Tests set
    /// `max_page_count` with it to stand for a full disk.
    pub async fn audit_connection_pragma(&self, pragma: &str) -> Result<(), StoreError> {
        match &self.appender {
            Some(appender) => appender.pragma(pragma).await,
            None => Ok(()),
        }
    }

    pub(crate) fn lock_slots(&self) -> std::sync::Arc<tokio::sync::Semaphore> {
        self.lock_slots.clone()
    }

    pub(crate) fn url(&self) -> &str {
        &self.url
    }
}

/// A database URL without its password, for messages.
pub(crate) fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}{user}:<redacted>{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn database_passwords_never_reach_messages() {
        assert_eq!(
            super::redact_url("postgres://app:hunter2@db:5432/x"),
            "postgres://app:<redacted>@db:5432/x"
        );
        assert_eq!(
            super::redact_url("sqlite:///tmp/x.db"),
            "sqlite:///tmp/x.db"
        );
    }
}
