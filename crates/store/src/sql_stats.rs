//! Read-only summaries in SQL for the console: call figures grouped by the database, and the
//! agents an org has given actions to.

use crate::call_stats::{STATS_SQL, StatsCell};
use crate::model::{AgentSummary, StoreError};
use crate::sql::SqlStore;
use sqlx::Row;

impl SqlStore {
    pub(crate) async fn stats_cells(
        &self,
        org_id: &str,
        since_ms: i64,
        step_ms: i64,
    ) -> Result<Vec<StatsCell>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(STATS_SQL.as_str()))
            .bind(since_ms)
            .bind(step_ms.max(1))
            .bind(org_id)
            .bind(since_ms)
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|row| {
                let bucket: i64 = row.try_get("bucket")?;
                Ok(StatsCell {
                    server: row.try_get("server")?,
                    slot: row.try_get("slot")?,
                    bucket: usize::try_from(bucket).unwrap_or_default(),
                    calls: row.try_get("calls")?,
                    errors: row.try_get("errors")?,
                })
            })
            .collect()
    }

    pub(crate) async fn agent_summaries(
        &self,
        org_id: &str,
    ) -> Result<Vec<AgentSummary>, StoreError> {
        let rows = sqlx::query(
            "SELECT agent_id, CAST(SUM(enabled) AS BIGINT) AS enabled, CAST(MAX(updated_at) AS BIGINT) AS updated_at FROM agent_actions WHERE org_id = $1 GROUP BY agent_id ORDER BY agent_id",
        )
        .bind(org_id)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(AgentSummary {
                    agent_id: row.try_get("agent_id")?,
                    enabled: row.try_get("enabled")?,
                    updated_at: row.try_get("updated_at")?,
                })
            })
            .collect()
    }
}
