//! End users' grants for per-end-user servers: the listed row here, the sealed secret in
//! `oauth_tokens` under the same key, written and removed together.

use crate::model::{GrantRow, StoreError};
use crate::sql::SqlStore;
use sqlx::Row;

/// The row's columns, in one place (a macro, so the queries stay static strings).
macro_rules! columns {
    () => {
        "grant_key, grant_id, org_id, owner, server, end_user, kind, scopes, issued_at, last_used_at, expires_at"
    };
}

fn grant(row: &sqlx::any::AnyRow) -> Result<GrantRow, StoreError> {
    let scopes: String = row.try_get("scopes")?;
    Ok(GrantRow {
        key: row.try_get("grant_key")?,
        id: row.try_get("grant_id")?,
        org_id: row.try_get("org_id")?,
        owner: row.try_get("owner")?,
        server: row.try_get("server")?,
        end_user: row.try_get("end_user")?,
        kind: row.try_get("kind")?,
        scopes: scopes.split_whitespace().map(String::from).collect(),
        issued_at: row.try_get("issued_at")?,
        last_used_at: row.try_get("last_used_at")?,
        expires_at: row.try_get("expires_at")?,
    })
}

impl SqlStore {
    pub(crate) async fn grant_save(&self, row: &GrantRow, sealed: &str) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        sqlx::query(concat!("INSERT INTO end_user_grants (", columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (grant_key) DO UPDATE SET grant_id = excluded.grant_id, kind = excluded.kind, scopes = excluded.scopes, issued_at = excluded.issued_at, last_used_at = excluded.last_used_at, expires_at = excluded.expires_at"))
        .bind(&row.key)
        .bind(&row.id)
        .bind(&row.org_id)
        .bind(&row.owner)
        .bind(&row.server)
        .bind(&row.end_user)
        .bind(&row.kind)
        .bind(row.scopes.join(" "))
        .bind(row.issued_at)
        .bind(row.last_used_at)
        .bind(row.expires_at)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO oauth_tokens (token_key, sealed, saved_at) VALUES ($1, $2, $3) ON CONFLICT (token_key) DO UPDATE SET sealed = excluded.sealed, saved_at = excluded.saved_at",
        )
        .bind(&row.key)
        .bind(sealed)
        .bind(row.issued_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The grant `key` and its sealed secret.
    pub(crate) async fn grant_load(
        &self,
        key: &str,
    ) -> Result<Option<(GrantRow, String)>, StoreError> {
        let row = sqlx::query(concat!("SELECT ", columns!(), ", sealed FROM end_user_grants JOIN oauth_tokens ON token_key = grant_key WHERE grant_key = $1"))
        .bind(key)
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| Ok((grant(&r)?, r.try_get("sealed")?)))
            .transpose()
    }

    /// The most recently used (else newest) grant of `org_id`'s end users for `server` of
    /// `owner`, with its secret.
    pub(crate) async fn grant_latest(
        &self,
        org_id: &str,
        owner: &str,
        server: &str,
    ) -> Result<Option<(GrantRow, String)>, StoreError> {
        let row = sqlx::query(concat!("SELECT ", columns!(), ", sealed FROM end_user_grants JOIN oauth_tokens ON token_key = grant_key WHERE org_id = $1 AND owner = $2 AND server = $3 ORDER BY COALESCE(last_used_at, issued_at) DESC LIMIT 1"))
        .bind(org_id)
        .bind(owner)
        .bind(server)
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| Ok((grant(&r)?, r.try_get("sealed")?)))
            .transpose()
    }

    /// `org_id`'s grants, of one end user when named, by end user and server.
    pub(crate) async fn grant_list(
        &self,
        org_id: &str,
        end_user: Option<&str>,
    ) -> Result<Vec<GrantRow>, StoreError> {
        let rows = match end_user {
            Some(user) => sqlx::query(concat!(
                "SELECT ",
                columns!(),
                " FROM end_user_grants WHERE org_id = $1 AND end_user = $2 ORDER BY owner, server"
            ))
            .bind(org_id)
            .bind(user)
            .fetch_all(self.pool())
            .await?,
            None => {
                sqlx::query(concat!(
                    "SELECT ",
                    columns!(),
                    " FROM end_user_grants WHERE org_id = $1 ORDER BY end_user, owner, server"
                ))
                .bind(org_id)
                .fetch_all(self.pool())
                .await?
            }
        };
        rows.iter().map(grant).collect()
    }

    /// Removes the grant `key` and its secret; the row it was, if any.
    pub(crate) async fn grant_delete(&self, key: &str) -> Result<Option<GrantRow>, StoreError> {
        let mut tx = self.pool().begin().await?;
        let row = sqlx::query(concat!(
            "DELETE FROM end_user_grants WHERE grant_key = $1 RETURNING ",
            columns!(),
            ""
        ))
        .bind(key)
        .fetch_optional(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM oauth_tokens WHERE token_key = $1")
            .bind(key)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        row.as_ref().map(grant).transpose()
    }

    pub(crate) async fn grant_touch(&self, key: &str, at_ms: i64) -> Result<(), StoreError> {
        sqlx::query("UPDATE end_user_grants SET last_used_at = $2 WHERE grant_key = $1")
            .bind(key)
            .bind(at_ms)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Removes every grant of `server` of `owner` and their secrets; how many.
    pub(crate) async fn grant_delete_server(
        &self,
        owner: &str,
        server: &str,
    ) -> Result<u64, StoreError> {
        let mut tx = self.pool().begin().await?;
        sqlx::query("DELETE FROM oauth_tokens WHERE token_key IN (SELECT grant_key FROM end_user_grants WHERE owner = $1 AND server = $2)")
            .bind(owner)
            .bind(server)
            .execute(&mut *tx)
            .await?;
        let gone = sqlx::query("DELETE FROM end_user_grants WHERE owner = $1 AND server = $2")
            .bind(owner)
            .bind(server)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(gone)
    }
}
