//! Persistence behind one trait: orgs and API tokens, API-managed servers with sealed
//! credentials, and the audit chain. One sqlx implementation serves SQLite (the default) and
//! Postgres with portable SQL and one set of migrations.

mod anchors;
pub mod audit;
pub mod call_stats;
mod cluster;
mod model;
mod policy;
mod retention;
pub mod seal;
mod sql;
mod sql_audit;
mod sql_console;
mod sql_grants;
mod sql_inputs;
mod sql_oauth;
mod sql_orgs;
mod sql_rounds;
mod sql_servers;
mod sql_tasks;
mod sqlite_appender;
mod writer;

pub use anchors::{HEAD_LOG_EVERY, spawn_head_log};
pub use audit::{
    Advance, AuditEntry, AuditHead, AuditRow, Chain, ChainBreak, GENESIS, HeadError, HeadFile,
    RETENTION_ACTION, Verifier, parse_head, read_head, retention_detail,
};
pub use cluster::{CHANNEL, Change, ChangeKind, ChangeListener, Heard, create_schema, drop_schema};
pub use model::{
    AgentSummary, ApiToken, AuditFilter, GrantRow, Org, ServerRow, StoreError, now_ms,
};
pub use policy::{Admit, PinRow, PolicyStore};
pub use retention::cut_audit_before;
pub use seal::{SealError, Sealer};
pub use sql::{Backend, SqlStore, new_id};
pub use writer::{
    AuditOptions, AuditWriter, AuditWriterStats, AuditWriterTask, Durability, entry_for,
};

use async_trait::async_trait;

/// The audit writer's name for one batch of rows, the same on every try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchMark {
    pub id: String,
    /// Whether an earlier try may have committed it: only then is the chain searched for it.
    pub retried: bool,
}

/// Everything the control plane keeps. Implementations must be safe to share between tasks.
#[async_trait]
pub trait Store: PolicyStore + Send + Sync + 'static {
    /// Which database this is (for messages and database-specific features).
    fn backend(&self) -> Backend;

    async fn create_org(&self, name: &str, features: &[String]) -> Result<Org, StoreError>;
    async fn org_by_name(&self, name: &str) -> Result<Option<Org>, StoreError>;
    async fn org(&self, id: &str) -> Result<Option<Org>, StoreError>;

    /// Live orgs (deleted ones are gone from every lookup), by name.
    async fn orgs(&self) -> Result<Vec<Org>, StoreError>;
    /// Replaces a live org's features; the org now, `None` if there is none.
    async fn set_org_features(
        &self,
        id: &str,
        features: &[String],
    ) -> Result<Option<Org>, StoreError>;
    /// Deletes a live org (its tokens revoked, its name free again); `Conflict` while it has
    /// servers. Whether there was one.
    async fn delete_org(&self, id: &str) -> Result<bool, StoreError>;

    /// Stores a token by its hash (the token itself is never stored), never expiring.
    async fn create_token(
        &self,
        org_id: &str,
        roles: &[String],
        token_hash: &str,
    ) -> Result<ApiToken, StoreError> {
        self.create_token_expiring(org_id, roles, token_hash, None)
            .await
    }
    /// As `create_token`, refused from `expires_at` (Unix ms) on.
    async fn create_token_expiring(
        &self,
        org_id: &str,
        roles: &[String],
        token_hash: &str,
        expires_at: Option<i64>,
    ) -> Result<ApiToken, StoreError>;
    async fn token_by_hash(&self, token_hash: &str) -> Result<Option<ApiToken>, StoreError>;
    /// Tokens (one org's when given), newest first, revoked and expired ones included.
    async fn tokens(&self, org_id: Option<&str>) -> Result<Vec<ApiToken>, StoreError>;
    async fn token(&self, id: &str) -> Result<Option<ApiToken>, StoreError>;
    /// Revokes a token; the token now (`None` if there is no such id).
    async fn revoke_token(&self, id: &str) -> Result<Option<ApiToken>, StoreError>;

    async fn insert_server(&self, row: &ServerRow) -> Result<(), StoreError>;
    async fn update_server(&self, row: &ServerRow) -> Result<(), StoreError>;
    /// Servers of an org, deleted ones included (`deleted_at` set).
    async fn servers(&self, org_id: &str) -> Result<Vec<ServerRow>, StoreError>;
    async fn server(&self, org_id: &str, id: &str) -> Result<Option<ServerRow>, StoreError>;
    /// Every server row with credentials, across orgs (key rotation re-seals them).
    async fn all_servers(&self) -> Result<Vec<ServerRow>, StoreError>;

    /// Turns one action on or off for an agent.
    async fn set_agent_action(
        &self,
        org_id: &str,
        agent_id: &str,
        action_id: &str,
        enabled: bool,
    ) -> Result<(), StoreError>;
    /// The actions an agent has enabled.
    async fn enabled_actions(
        &self,
        org_id: &str,
        agent_id: &str,
    ) -> Result<Vec<String>, StoreError>;
    /// Every agent of `org_id` with an action toggled, with how many are on.
    async fn agents(&self, org_id: &str) -> Result<Vec<AgentSummary>, StoreError>;
    /// Turns many actions on or off for an agent in one transaction: all or none.
    async fn set_agent_actions(
        &self,
        org_id: &str,
        agent_id: &str,
        action_ids: &[String],
        enabled: bool,
    ) -> Result<(), StoreError>;

    /// Appends entries to the chain in one transaction and returns the rows written.
    async fn append_audit(
        &self,
        chain: &Chain,
        entries: &[AuditEntry],
    ) -> Result<Vec<AuditRow>, StoreError>;
    /// As `append_audit`, once per batch: the batch's id is kept on its first row, and a
    /// retried batch whose rows are already in the chain (its commit's answer was lost) gets
    /// those rows back with nothing written.
    async fn append_audit_batch(
        &self,
        chain: &Chain,
        batch: &BatchMark,
        entries: &[AuditEntry],
    ) -> Result<Vec<AuditRow>, StoreError>;
    /// Rows matching `filter`, in `seq` order (newest first when it says so).
    async fn audit(&self, filter: &AuditFilter) -> Result<Vec<AuditRow>, StoreError>;
    /// `org_id`'s calls since `since_ms`, grouped by server, `step_ms` slot and latency bucket.
    async fn call_stats(
        &self,
        org_id: &str,
        since_ms: i64,
        step_ms: i64,
    ) -> Result<Vec<call_stats::StatsCell>, StoreError>;
    /// The chain's last row now, as (seq, MAC); `None` while it is empty.
    async fn audit_last(&self) -> Result<Option<(i64, String)>, StoreError>;
    /// Deletes the rows before `seq` (a retention cut, recorded in the chain first); how many.
    async fn delete_audit_before(&self, seq: i64) -> Result<u64, StoreError>;

    /// Tells every replica that a server changed (Postgres NOTIFY after the commit; nothing
    /// on SQLite, which serves one process).
    async fn publish_change(&self, change: &Change) -> Result<(), StoreError>;
    /// The change notices of every replica; `None` where there is only one process (SQLite).
    async fn listen_changes(&self) -> Result<Option<ChangeListener>, StoreError>;
    /// Claims this run of job `name` if no replica ran it in the last `every_ms`: exactly one
    /// of several replicas ticking at once gets `true` (Postgres advisory lock + `jobs` row).
    async fn claim_job(&self, name: &str, every_ms: i64, replica: &str)
    -> Result<bool, StoreError>;

    /// A downstream MCP session's saved state (its `initialize` parameters, JSON).
    async fn load_session(&self, id: &str) -> Result<Option<String>, StoreError>;
    async fn save_session(&self, id: &str, state: &str) -> Result<(), StoreError>;
    async fn delete_session(&self, id: &str) -> Result<(), StoreError>;
    /// Marks a saved session used now (loading and saving one mark it too).
    async fn touch_session(&self, id: &str) -> Result<(), StoreError>;
    /// Forgets sessions last used before `before_ms`; returns how many.
    async fn prune_sessions(&self, before_ms: i64) -> Result<u64, StoreError>;

    /// An input round handed back to its caller (JSON), for `owner` until `expires_ms`.
    async fn save_round(
        &self,
        id: &str,
        owner: &str,
        state: &str,
        expires_ms: i64,
    ) -> Result<(), StoreError>;
    /// Takes `owner`'s round: its state once, and never after; `None` when unknown, another's
    /// (left in place), taken or expired.
    async fn take_round(&self, id: &str, owner: &str) -> Result<Option<String>, StoreError>;
    /// Forgets expired rounds; returns how many.
    async fn prune_rounds(&self) -> Result<u64, StoreError>;

    /// A task an upstream runs for `owner` under the gateway's id `id` (its record, JSON),
    /// until `expires_ms`.
    async fn save_task(
        &self,
        id: &str,
        owner: &str,
        record: &str,
        expires_ms: i64,
    ) -> Result<(), StoreError>;
    /// `owner`'s task: its record and the terminal status it ended with, if it did; `None`
    /// when unknown, another's or expired.
    async fn load_task(
        &self,
        id: &str,
        owner: &str,
    ) -> Result<Option<(String, Option<String>)>, StoreError>;
    /// Records that the task ended with `status`: `true` only for the first to record it.
    async fn end_task(&self, id: &str, status: &str) -> Result<bool, StoreError>;
    /// Forgets expired tasks; returns how many.
    async fn prune_tasks(&self) -> Result<u64, StoreError>;

    /// A server's last discovery snapshot (JSON) under its fingerprint hash.
    async fn load_snapshot(&self, key: &str) -> Result<Option<String>, StoreError>;
    async fn save_snapshot(&self, key: &str, snapshot: &str) -> Result<(), StoreError>;

    /// A server's OAuth token record, sealed by the caller.
    async fn load_oauth_tokens(&self, key: &str) -> Result<Option<String>, StoreError>;
    async fn save_oauth_tokens(&self, key: &str, sealed: &str) -> Result<(), StoreError>;
    async fn delete_oauth_tokens(&self, key: &str) -> Result<(), StoreError>;
    /// Every key with a token record (for re-sealing after a key rotation).
    async fn oauth_token_keys(&self) -> Result<Vec<String>, StoreError>;
    /// Returns the record `key` and deletes it in one statement: of several replicas taking
    /// it at once, one gets it.
    async fn take_oauth_tokens(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// Waits for, then holds, a lock on `key` shared by every replica, until the value is
    /// dropped (so one replica at a time refreshes a token that rotates). `None` where one
    /// process is all there is (SQLite).
    async fn lock(&self, key: &str) -> Result<Option<Box<dyn Send>>, StoreError>;
    /// Deletes the records whose key starts with `prefix`, saved before `before_ms`.
    async fn prune_oauth_tokens(&self, prefix: &str, before_ms: i64) -> Result<u64, StoreError>;

    /// Saves an end user's grant and its sealed secret (under `row.key`), replacing theirs.
    async fn save_grant(&self, row: &GrantRow, sealed: &str) -> Result<(), StoreError>;
    /// The grant `key` and its sealed secret.
    async fn grant(&self, key: &str) -> Result<Option<(GrantRow, String)>, StoreError>;
    /// The most recently used grant of `org_id`'s end users (any) for `server` of `owner`,
    /// with its secret.
    async fn latest_grant(
        &self,
        org_id: &str,
        owner: &str,
        server: &str,
    ) -> Result<Option<(GrantRow, String)>, StoreError>;
    /// `org_id`'s grants (one end user's when named).
    async fn grants(
        &self,
        org_id: &str,
        end_user: Option<&str>,
    ) -> Result<Vec<GrantRow>, StoreError>;
    /// Removes the grant `key` and its secret; the row it was.
    async fn delete_grant(&self, key: &str) -> Result<Option<GrantRow>, StoreError>;
    /// Removes every end user's grant for `server` of `owner` (its URL or credentials
    /// changed, or it was deleted); how many.
    async fn delete_server_grants(&self, owner: &str, server: &str) -> Result<u64, StoreError>;
    /// Notes that the grant `key` was used at `at_ms`.
    async fn touch_grant(&self, key: &str, at_ms: i64) -> Result<(), StoreError>;

    /// A VS Code input's value (`switchboard input set ID`), sealed by the caller.
    async fn save_input(&self, id: &str, sealed: &str) -> Result<(), StoreError>;
    /// Every stored input as (id, sealed value, saved at ms).
    async fn inputs(&self) -> Result<Vec<(String, String, i64)>, StoreError>;
    /// Forgets an input; whether there was one.
    async fn delete_input(&self, id: &str) -> Result<bool, StoreError>;

    /// The connection pool now: (open connections, idle ones).
    fn pool_stats(&self) -> (u32, usize) {
        (0, 0)
    }
}

/// Walks the whole audit chain in pages; `progress` hears the count checked so far.
pub async fn verify_audit(
    store: &dyn Store,
    chain: &Chain,
    progress: impl FnMut(u64),
) -> Result<Result<u64, ChainBreak>, StoreError> {
    let verified = verify_audit_to(store, chain, None, progress).await?;
    Ok(verified.map(|v| v.rows))
}

/// What a walk of the audit chain found intact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verified {
    pub rows: u64,
    /// Where a retention cut left the chain starting: (first row kept, the `audit.retention`
    /// row that recorded the cut).
    pub kept_from: Option<(i64, i64)>,
}

/// [`verify_audit`], and that the chain reaches `head` (read before the walk, so rows
/// committed meanwhile only lengthen the chain past it).
pub async fn verify_audit_to(
    store: &dyn Store,
    chain: &Chain,
    head: Option<AuditHead>,
    mut progress: impl FnMut(u64),
) -> Result<Result<Verified, ChainBreak>, StoreError> {
    let mut verifier = Verifier::new(chain.clone());
    if let Some(head) = head {
        verifier = verifier.with_head(head);
    }
    let mut after = 0;
    loop {
        let page = store
            .audit(&AuditFilter {
                after_seq: Some(after),
                limit: Some(1000),
                ..Default::default()
            })
            .await?;
        let Some(last) = page.last() else { break };
        after = last.seq;
        for row in page {
            if let Err(broken) = verifier.push(row) {
                return Ok(Err(broken));
            }
        }
        progress(verifier.checked());
    }
    let rows = verifier.finish();
    let kept_from = verifier.kept_from();
    Ok(rows.map(|rows| Verified { rows, kept_from }))
}

/// A new API token (shown once) and the hash under which it is stored.
pub fn new_api_token() -> (String, String) {
    use base64::Engine;
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let token = format!(
        "sb_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    );
    let hash = hash_api_token(&token);
    (token, hash)
}

/// How an API token is looked up: its SHA-256, hex.
pub fn hash_api_token(token: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}
