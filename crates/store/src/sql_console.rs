//! What the console reads and changes in SQL: call figures grouped by the database, the agents
//! an org has given actions to, and many of an agent's actions toggled in one transaction.

use crate::call_stats::{STATS_SQL, StatsCell};
use crate::model::{AgentSummary, StoreError};
use crate::sql::SqlStore;
use sqlx::Row;

/// One agent's one action on or off (one toggle, or each of a bulk toggle's).
pub(crate) const UPSERT_AGENT_ACTION: &str = "INSERT INTO agent_actions (org_id, agent_id, action_id, enabled, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (org_id, agent_id, action_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at";

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
                    // -1: refused by the policy, so no call time to count.
                    bucket: usize::try_from(bucket).ok(),
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

    pub(crate) async fn agent_actions_set(
        &self,
        org_id: &str,
        agent_id: &str,
        action_ids: &[String],
        enabled: bool,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        for action_id in action_ids {
            sqlx::query(UPSERT_AGENT_ACTION)
                .bind(org_id)
                .bind(agent_id)
                .bind(action_id)
                .bind(i64::from(enabled))
                .bind(crate::now_ms())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}
