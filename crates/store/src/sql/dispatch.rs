//! [`Store`] for [`SqlStore`]: each method traced (`switchboard::trace::store`) and handed to
//! the module that owns its tables (`sql_orgs`, `sql_servers`, `sql_audit`, `sql_console`, `sql_rounds`,
//! `sql_tasks`, `sql_oauth`, `sql_grants`, `sql_inputs`, `cluster`, `policy`).

use super::{Backend, SqlStore};
use crate::Store;
use crate::audit::{AuditEntry, AuditRow, Chain};
use crate::model::{ApiToken, AuditFilter, Org, ServerRow, StoreError, now_ms};
use crate::sql_orgs::OrgBy;
use async_trait::async_trait;
use sqlx::Row;
use tracing::instrument;

#[async_trait]
impl Store for SqlStore {
    fn backend(&self) -> Backend {
        self.backend
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.create_org",
        skip_all
    )]
    async fn create_org(&self, name: &str, features: &[String]) -> Result<Org, StoreError> {
        self.org_insert(name, features).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.org_by_name",
        skip_all
    )]
    async fn org_by_name(&self, name: &str) -> Result<Option<Org>, StoreError> {
        self.org_where(OrgBy::Name, name).await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.org", skip_all)]
    async fn org(&self, id: &str) -> Result<Option<Org>, StoreError> {
        self.org_where(OrgBy::Id, id).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.create_token",
        skip_all
    )]
    async fn create_token_expiring(
        &self,
        org_id: &str,
        roles: &[String],
        token_hash: &str,
        expires_at: Option<i64>,
    ) -> Result<ApiToken, StoreError> {
        self.token_insert(org_id, roles, token_hash, expires_at)
            .await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.orgs", skip_all)]
    async fn orgs(&self) -> Result<Vec<Org>, StoreError> {
        self.orgs_live().await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.set_org_features",
        skip_all
    )]
    async fn set_org_features(
        &self,
        id: &str,
        features: &[String],
    ) -> Result<Option<Org>, StoreError> {
        self.org_features_set(id, features).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.delete_org",
        skip_all
    )]
    async fn delete_org(&self, id: &str) -> Result<bool, StoreError> {
        self.org_remove(id).await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.tokens", skip_all)]
    async fn tokens(&self, org_id: Option<&str>) -> Result<Vec<ApiToken>, StoreError> {
        self.tokens_of(org_id).await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.token", skip_all)]
    async fn token(&self, id: &str) -> Result<Option<ApiToken>, StoreError> {
        self.token_by_id(id).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.revoke_token",
        skip_all
    )]
    async fn revoke_token(&self, id: &str) -> Result<Option<ApiToken>, StoreError> {
        self.token_revoke(id).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.token_by_hash",
        skip_all
    )]
    async fn token_by_hash(&self, token_hash: &str) -> Result<Option<ApiToken>, StoreError> {
        self.token_hashed(token_hash).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.insert_server",
        skip_all
    )]
    async fn insert_server(&self, r: &ServerRow) -> Result<(), StoreError> {
        self.add_server(r).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.update_server",
        skip_all
    )]
    async fn update_server(&self, r: &ServerRow) -> Result<(), StoreError> {
        self.save_server(r).await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.servers", skip_all)]
    async fn servers(&self, org_id: &str) -> Result<Vec<ServerRow>, StoreError> {
        self.org_servers(org_id).await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.server", skip_all)]
    async fn server(&self, org_id: &str, id: &str) -> Result<Option<ServerRow>, StoreError> {
        self.org_server(org_id, id).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.all_servers",
        skip_all
    )]
    async fn all_servers(&self) -> Result<Vec<ServerRow>, StoreError> {
        self.every_server().await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.set_agent_action",
        skip_all
    )]
    async fn set_agent_action(
        &self,
        org_id: &str,
        agent_id: &str,
        action_id: &str,
        enabled: bool,
    ) -> Result<(), StoreError> {
        sqlx::query(crate::sql_console::UPSERT_AGENT_ACTION)
            .bind(org_id)
            .bind(agent_id)
            .bind(action_id)
            .bind(i64::from(enabled))
            .bind(now_ms())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.enabled_actions",
        skip_all
    )]
    async fn enabled_actions(
        &self,
        org_id: &str,
        agent_id: &str,
    ) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT action_id FROM agent_actions WHERE org_id = $1 AND agent_id = $2 AND enabled = 1 ORDER BY action_id",
        )
        .bind(org_id)
        .bind(agent_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                r.try_get::<String, _>("action_id")
                    .map_err(StoreError::from)
            })
            .collect()
    }

    async fn append_audit(
        &self,
        chain: &Chain,
        entries: &[AuditEntry],
    ) -> Result<Vec<AuditRow>, StoreError> {
        self.append_audit_rows(chain, None, entries).await
    }

    async fn append_audit_batch(
        &self,
        chain: &Chain,
        batch: &crate::BatchMark,
        entries: &[AuditEntry],
    ) -> Result<Vec<AuditRow>, StoreError> {
        self.append_audit_rows(chain, Some(batch), entries).await
    }

    async fn publish_change(&self, change: &crate::Change) -> Result<(), StoreError> {
        self.publish(change).await
    }

    async fn listen_changes(&self) -> Result<Option<crate::ChangeListener>, StoreError> {
        self.listen().await
    }

    async fn claim_job(
        &self,
        name: &str,
        every_ms: i64,
        replica: &str,
    ) -> Result<bool, StoreError> {
        self.claim(name, every_ms, replica).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.load_session",
        skip_all
    )]
    async fn load_session(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.load_session_state(id).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.save_session",
        skip_all
    )]
    async fn save_session(&self, id: &str, state: &str) -> Result<(), StoreError> {
        self.save_session_state(id, state).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.delete_session",
        skip_all
    )]
    async fn delete_session(&self, id: &str) -> Result<(), StoreError> {
        self.delete_session_state(id).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.touch_session",
        skip_all
    )]
    async fn touch_session(&self, id: &str) -> Result<(), StoreError> {
        self.touch_session_state(id).await
    }

    async fn prune_sessions(&self, before_ms: i64) -> Result<u64, StoreError> {
        self.prune_session_states(before_ms).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.save_round",
        skip_all
    )]
    async fn save_round(
        &self,
        id: &str,
        owner: &str,
        state: &str,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        self.put_round(id, owner, state, expires_ms).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.take_round",
        skip_all
    )]
    async fn take_round(&self, id: &str, owner: &str) -> Result<Option<String>, StoreError> {
        self.take_round_state(id, owner, now_ms()).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.prune_rounds",
        skip_all
    )]
    async fn prune_rounds(&self) -> Result<u64, StoreError> {
        self.prune_round_states(now_ms()).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.save_task",
        skip_all
    )]
    async fn save_task(
        &self,
        id: &str,
        owner: &str,
        record: &str,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        self.put_task(id, owner, record, expires_ms).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.load_task",
        skip_all
    )]
    async fn load_task(
        &self,
        id: &str,
        owner: &str,
    ) -> Result<Option<(String, Option<String>)>, StoreError> {
        self.get_task(id, owner, now_ms()).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.end_task",
        skip_all
    )]
    async fn end_task(&self, id: &str, status: &str) -> Result<bool, StoreError> {
        self.set_task_ended(id, status).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.prune_tasks",
        skip_all
    )]
    async fn prune_tasks(&self) -> Result<u64, StoreError> {
        self.prune_task_rows(now_ms()).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.load_snapshot",
        skip_all
    )]
    async fn load_snapshot(&self, key: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT snapshot FROM snapshots WHERE fingerprint = $1")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("snapshot")).transpose()?)
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.save_snapshot",
        skip_all
    )]
    async fn save_snapshot(&self, key: &str, snapshot: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO snapshots (fingerprint, snapshot, saved_at) VALUES ($1, $2, $3) ON CONFLICT (fingerprint) DO UPDATE SET snapshot = excluded.snapshot, saved_at = excluded.saved_at",
        )
        .bind(key)
        .bind(snapshot)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.load_oauth_tokens",
        skip_all
    )]
    async fn load_oauth_tokens(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.oauth_load(key).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.save_oauth_tokens",
        skip_all
    )]
    async fn save_oauth_tokens(&self, key: &str, sealed: &str) -> Result<(), StoreError> {
        self.oauth_save(key, sealed).await
    }

    async fn oauth_token_keys(&self) -> Result<Vec<String>, StoreError> {
        self.oauth_keys().await
    }

    async fn lock(&self, key: &str) -> Result<Option<Box<dyn Send>>, StoreError> {
        self.lock_key(key).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.take_oauth_tokens",
        skip_all
    )]
    async fn take_oauth_tokens(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.oauth_take(key).await
    }

    async fn prune_oauth_tokens(&self, prefix: &str, before_ms: i64) -> Result<u64, StoreError> {
        self.oauth_prune(prefix, before_ms).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.delete_oauth_tokens",
        skip_all
    )]
    async fn delete_oauth_tokens(&self, key: &str) -> Result<(), StoreError> {
        self.oauth_delete(key).await
    }

    async fn save_grant(&self, row: &crate::GrantRow, sealed: &str) -> Result<(), StoreError> {
        self.grant_save(row, sealed).await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.grant", skip_all)]
    async fn grant(&self, key: &str) -> Result<Option<(crate::GrantRow, String)>, StoreError> {
        self.grant_load(key).await
    }

    async fn latest_grant(
        &self,
        org_id: &str,
        owner: &str,
        server: &str,
    ) -> Result<Option<(crate::GrantRow, String)>, StoreError> {
        self.grant_latest(org_id, owner, server).await
    }

    async fn grants(
        &self,
        org_id: &str,
        end_user: Option<&str>,
    ) -> Result<Vec<crate::GrantRow>, StoreError> {
        self.grant_list(org_id, end_user).await
    }

    async fn delete_grant(&self, key: &str) -> Result<Option<crate::GrantRow>, StoreError> {
        self.grant_delete(key).await
    }

    async fn delete_server_grants(&self, owner: &str, server: &str) -> Result<u64, StoreError> {
        self.grant_delete_server(owner, server).await
    }

    async fn touch_grant(&self, key: &str, at_ms: i64) -> Result<(), StoreError> {
        self.grant_touch(key, at_ms).await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.audit", skip_all)]
    async fn audit(&self, f: &AuditFilter) -> Result<Vec<AuditRow>, StoreError> {
        self.audit_rows(f).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.call_stats",
        skip_all
    )]
    async fn call_stats(
        &self,
        org_id: &str,
        since_ms: i64,
        step_ms: i64,
    ) -> Result<Vec<crate::call_stats::StatsCell>, StoreError> {
        self.stats_cells(org_id, since_ms, step_ms).await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.agents", skip_all)]
    async fn agents(&self, org_id: &str) -> Result<Vec<crate::AgentSummary>, StoreError> {
        self.agent_summaries(org_id).await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.set_agent_actions",
        skip_all
    )]
    async fn set_agent_actions(
        &self,
        org_id: &str,
        agent_id: &str,
        action_ids: &[String],
        enabled: bool,
    ) -> Result<(), StoreError> {
        self.agent_actions_set(org_id, agent_id, action_ids, enabled)
            .await
    }

    async fn audit_last(&self) -> Result<Option<(i64, String)>, StoreError> {
        self.last_audit_row().await
    }

    async fn delete_audit_before(&self, seq: i64) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM audit WHERE seq < $1")
            .bind(seq)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected())
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.save_input",
        skip_all
    )]
    async fn save_input(&self, id: &str, sealed: &str) -> Result<(), StoreError> {
        self.put_input(id, sealed).await
    }

    #[instrument(target = "switchboard::trace::store", name = "store.inputs", skip_all)]
    async fn inputs(&self) -> Result<Vec<(String, String, i64)>, StoreError> {
        self.all_inputs().await
    }

    #[instrument(
        target = "switchboard::trace::store",
        name = "store.delete_input",
        skip_all
    )]
    async fn delete_input(&self, id: &str) -> Result<bool, StoreError> {
        self.remove_input(id).await
    }

    fn pool_stats(&self) -> (u32, usize) {
        (self.pool().size(), self.pool().num_idle())
    }
}
