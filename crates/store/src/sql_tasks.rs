//! Tasks upstreams run for callers, under the gateway's ids: any replica answers for them.

use crate::model::StoreError;
use crate::sql::SqlStore;
use sqlx::Row;

impl SqlStore {
    pub(crate) async fn put_task(
        &self,
        id: &str,
        owner: &str,
        record: &str,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO tasks (task_id, owner, record, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(id)
        .bind(owner)
        .bind(record)
        .bind(expires_ms)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(crate) async fn get_task(
        &self,
        id: &str,
        owner: &str,
        now_ms: i64,
    ) -> Result<Option<(String, Option<String>)>, StoreError> {
        let row = sqlx::query(
            "SELECT record, ended FROM tasks WHERE task_id = $1 AND owner = $2 AND expires_at > $3",
        )
        .bind(id)
        .bind(owner)
        .bind(now_ms)
        .fetch_optional(self.pool())
        .await?;
        row.map(|row| Ok((row.try_get("record")?, row.try_get("ended")?)))
            .transpose()
    }

    pub(crate) async fn set_task_ended(&self, id: &str, status: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE tasks SET ended = $2 WHERE task_id = $1 AND ended IS NULL")
            .bind(id)
            .bind(status)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub(crate) async fn prune_task_rows(&self, now_ms: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query("DELETE FROM tasks WHERE expires_at <= $1")
            .bind(now_ms)
            .execute(self.pool())
            .await?
            .rows_affected())
    }
}
