//! Input rounds handed back to their caller, taken once by whichever replica the answer reaches.

use crate::model::StoreError;
use crate::sql::SqlStore;
use sqlx::Row;

impl SqlStore {
    pub(crate) async fn put_round(
        &self,
        id: &str,
        owner: &str,
        state: &str,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO input_rounds (round_id, owner, state, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(id)
        .bind(owner)
        .bind(state)
        .bind(expires_ms)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(crate) async fn take_round_state(
        &self,
        id: &str,
        owner: &str,
        now_ms: i64,
    ) -> Result<Option<String>, StoreError> {
        // Only its owner takes it: anyone else leaves it where it is.
        let row = sqlx::query(
            "DELETE FROM input_rounds WHERE round_id = $1 AND owner = $2 RETURNING state, expires_at",
        )
        .bind(id)
        .bind(owner)
        .fetch_optional(self.pool())
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let expires: i64 = row.try_get("expires_at")?;
        Ok((expires > now_ms)
            .then(|| row.try_get("state"))
            .transpose()?)
    }

    pub(crate) async fn prune_round_states(&self, now_ms: i64) -> Result<u64, StoreError> {
        Ok(
            sqlx::query("DELETE FROM input_rounds WHERE expires_at <= $1")
                .bind(now_ms)
                .execute(self.pool())
                .await?
                .rows_affected(),
        )
    }
}
