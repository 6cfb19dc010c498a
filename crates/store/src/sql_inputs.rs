//! Stored values of VS Code `${input:ID}` placeholders, sealed by the caller.

use crate::model::{StoreError, now_ms};
use crate::sql::SqlStore;
use sqlx::Row;

impl SqlStore {
    pub(crate) async fn put_input(&self, id: &str, sealed: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO inputs (input_id, sealed, saved_at) VALUES ($1, $2, $3) ON CONFLICT (input_id) DO UPDATE SET sealed = excluded.sealed, saved_at = excluded.saved_at",
        )
        .bind(id)
        .bind(sealed)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(crate) async fn all_inputs(&self) -> Result<Vec<(String, String, i64)>, StoreError> {
        let rows = sqlx::query("SELECT input_id, sealed, saved_at FROM inputs ORDER BY input_id")
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get("input_id")?,
                    r.try_get("sealed")?,
                    r.try_get("saved_at")?,
                ))
            })
            .collect()
    }

    pub(crate) async fn remove_input(&self, id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM inputs WHERE input_id = $1")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
