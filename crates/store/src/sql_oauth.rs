//! OAuth tokens (and registered clients) per upstream server, sealed by the caller, by key.

use crate::model::{StoreError, now_ms};
use crate::sql::SqlStore;
use sqlx::Row;

impl SqlStore {
    pub(crate) async fn oauth_load(&self, key: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT sealed FROM oauth_tokens WHERE token_key = $1")
            .bind(key)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| r.try_get("sealed")).transpose()?)
    }

    pub(crate) async fn oauth_save(&self, key: &str, sealed: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO oauth_tokens (token_key, sealed, saved_at) VALUES ($1, $2, $3) ON CONFLICT (token_key) DO UPDATE SET sealed = excluded.sealed, saved_at = excluded.saved_at",
        )
        .bind(key)
        .bind(sealed)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(crate) async fn oauth_keys(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query("SELECT token_key FROM oauth_tokens ORDER BY token_key")
            .fetch_all(self.pool())
            .await?;
        Ok(rows
            .iter()
            .map(|r| r.try_get("token_key"))
            .collect::<Result<_, _>>()?)
    }

    pub(crate) async fn oauth_take(&self, key: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("DELETE FROM oauth_tokens WHERE token_key = $1 RETURNING sealed")
            .bind(key)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| r.try_get("sealed")).transpose()?)
    }

    pub(crate) async fn oauth_prune(
        &self,
        prefix: &str,
        before_ms: i64,
    ) -> Result<u64, StoreError> {
        let pattern = format!("{}%", prefix.replace('%', "").replace('_', "\\_"));
        Ok(sqlx::query(
            "DELETE FROM oauth_tokens WHERE token_key LIKE $1 ESCAPE '\\' AND saved_at < $2",
        )
        .bind(pattern)
        .bind(before_ms)
        .execute(self.pool())
        .await?
        .rows_affected())
    }

    pub(crate) async fn oauth_delete(&self, key: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM oauth_tokens WHERE token_key = $1")
            .bind(key)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
