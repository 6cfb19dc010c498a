//! Orgs and their API tokens (only the token's SHA-256 is kept).

use crate::model::{ApiToken, Org, StoreError, now_ms};
use crate::sql::{SqlStore, json, list, new_id};
use sqlx::Row;
use sqlx::any::AnyRow;

/// The columns a token is read from (a macro, so queries stay literal strings).
macro_rules! token_select {
    ($rest:literal) => {
        concat!(
            "SELECT id, org_id, roles, created_at, revoked_at, expires_at FROM api_tokens ",
            $rest
        )
    };
}

fn org_from(row: &AnyRow) -> Result<Org, StoreError> {
    Ok(Org {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        features: list(&row.try_get::<String, _>("features")?)?,
        created_at: row.try_get("created_at")?,
    })
}

fn token_from(row: &AnyRow) -> Result<ApiToken, StoreError> {
    Ok(ApiToken {
        id: row.try_get("id")?,
        org_id: row.try_get("org_id")?,
        roles: list(&row.try_get::<String, _>("roles")?)?,
        created_at: row.try_get("created_at")?,
        revoked_at: row.try_get("revoked_at")?,
        expires_at: row.try_get("expires_at")?,
    })
}

/// What an org is looked up by.
pub(crate) enum OrgBy {
    Id,
    Name,
}

impl SqlStore {
    pub(crate) async fn org_insert(
        &self,
        name: &str,
        features: &[String],
    ) -> Result<Org, StoreError> {
        let org = Org {
            id: new_id("org"),
            name: name.to_string(),
            features: features.to_vec(),
            created_at: now_ms(),
        };
        sqlx::query("INSERT INTO orgs (id, name, features, created_at) VALUES ($1, $2, $3, $4)")
            .bind(&org.id)
            .bind(&org.name)
            .bind(json(&org.features))
            .bind(org.created_at)
            .execute(self.pool())
            .await
            .map_err(|e| match StoreError::from(e) {
                StoreError::Conflict { .. } => StoreError::Conflict {
                    what: format!("org {name:?}"),
                },
                other => other,
            })?;
        Ok(org)
    }

    /// The org whose id or name (`by`) is `value`.
    pub(crate) async fn org_where(
        &self,
        by: OrgBy,
        value: &str,
    ) -> Result<Option<Org>, StoreError> {
        let query = match by {
            OrgBy::Id => {
                "SELECT id, name, features, created_at FROM orgs WHERE id = $1 AND deleted_at IS NULL"
            }
            OrgBy::Name => {
                "SELECT id, name, features, created_at FROM orgs WHERE name = $1 AND deleted_at IS NULL"
            }
        };
        let row = sqlx::query(query)
            .bind(value)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(org_from).transpose()
    }

    pub(crate) async fn token_insert(
        &self,
        org_id: &str,
        roles: &[String],
        token_hash: &str,
        expires_at: Option<i64>,
    ) -> Result<ApiToken, StoreError> {
        let token = ApiToken {
            id: new_id("tok"),
            org_id: org_id.to_string(),
            roles: roles.to_vec(),
            created_at: now_ms(),
            revoked_at: None,
            expires_at,
        };
        sqlx::query(
            "INSERT INTO api_tokens (id, org_id, token_hash, roles, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&token.id)
        .bind(&token.org_id)
        .bind(token_hash)
        .bind(json(&token.roles))
        .bind(token.created_at)
        .bind(token.expires_at)
        .execute(self.pool())
        .await?;
        Ok(token)
    }

    pub(crate) async fn token_hashed(
        &self,
        token_hash: &str,
    ) -> Result<Option<ApiToken>, StoreError> {
        let row = sqlx::query(token_select!("WHERE token_hash = $1"))
            .bind(token_hash)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(token_from).transpose()
    }
}

impl SqlStore {
    /// Live orgs, by name.
    pub(crate) async fn orgs_live(&self) -> Result<Vec<Org>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, name, features, created_at FROM orgs WHERE deleted_at IS NULL ORDER BY name",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(org_from).collect()
    }

    /// Replaces a live org's features; the org as it is now, `None` if there is none.
    pub(crate) async fn org_features_set(
        &self,
        id: &str,
        features: &[String],
    ) -> Result<Option<Org>, StoreError> {
        sqlx::query("UPDATE orgs SET features = $1 WHERE id = $2 AND deleted_at IS NULL")
            .bind(json(features))
            .bind(id)
            .execute(self.pool())
            .await?;
        self.org_where(OrgBy::Id, id).await
    }

    /// Deletes a live org: its tokens are revoked and its name is freed (the row stays, as
    /// audit rows name it). `Conflict` while it still has servers; whether there was one.
    pub(crate) async fn org_remove(&self, id: &str) -> Result<bool, StoreError> {
        let mut tx = self.pool().begin().await?;
        let servers: Vec<String> = sqlx::query_scalar(
            "SELECT slug FROM servers WHERE org_id = $1 AND deleted_at IS NULL ORDER BY slug",
        )
        .bind(id)
        .fetch_all(&mut *tx)
        .await?;
        if !servers.is_empty() {
            return Err(StoreError::Conflict {
                what: format!(
                    "its server(s) {} (delete them first: DELETE /api/integrations/mcp/servers/ID); the org",
                    servers.join(", ")
                ),
            });
        }
        let now = now_ms();
        let done = sqlx::query(
            "UPDATE orgs SET deleted_at = $1, name = name || '~deleted~' || id WHERE id = $2 AND deleted_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE api_tokens SET revoked_at = $1 WHERE org_id = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    }

    /// Tokens (of one org when given), newest first.
    pub(crate) async fn tokens_of(
        &self,
        org_id: Option<&str>,
    ) -> Result<Vec<ApiToken>, StoreError> {
        let rows = match org_id {
            Some(org) => {
                sqlx::query(token_select!(
                    "WHERE org_id = $1 ORDER BY created_at DESC, id"
                ))
                .bind(org)
                .fetch_all(self.pool())
                .await?
            }
            None => {
                sqlx::query(token_select!("ORDER BY created_at DESC, id"))
                    .fetch_all(self.pool())
                    .await?
            }
        };
        rows.iter().map(token_from).collect()
    }

    pub(crate) async fn token_by_id(&self, id: &str) -> Result<Option<ApiToken>, StoreError> {
        let row = sqlx::query(token_select!("WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(token_from).transpose()
    }

    /// Revokes a token (once: an already revoked one keeps its time); the token as it is now.
    pub(crate) async fn token_revoke(&self, id: &str) -> Result<Option<ApiToken>, StoreError> {
        sqlx::query("UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
            .bind(now_ms())
            .bind(id)
            .execute(self.pool())
            .await?;
        self.token_by_id(id).await
    }
}
