//! Orgs and their API tokens (only the token's SHA-256 is kept).

use crate::model::{ApiToken, Org, StoreError, now_ms};
use crate::sql::{SqlStore, json, list, new_id};
use sqlx::Row;
use sqlx::any::AnyRow;

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
            .await?;
        Ok(org)
    }

    /// The org whose id or name (`by`) is `value`.
    pub(crate) async fn org_where(
        &self,
        by: OrgBy,
        value: &str,
    ) -> Result<Option<Org>, StoreError> {
        let query = match by {
            OrgBy::Id => "SELECT id, name, features, created_at FROM orgs WHERE id = $1",
            OrgBy::Name => "SELECT id, name, features, created_at FROM orgs WHERE name = $1",
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
    ) -> Result<ApiToken, StoreError> {
        let token = ApiToken {
            id: new_id("tok"),
            org_id: org_id.to_string(),
            roles: roles.to_vec(),
            created_at: now_ms(),
            revoked_at: None,
        };
        sqlx::query(
            "INSERT INTO api_tokens (id, org_id, token_hash, roles, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&token.id)
        .bind(&token.org_id)
        .bind(token_hash)
        .bind(json(&token.roles))
        .bind(token.created_at)
        .execute(self.pool())
        .await?;
        Ok(token)
    }

    pub(crate) async fn token_hashed(
        &self,
        token_hash: &str,
    ) -> Result<Option<ApiToken>, StoreError> {
        let row = sqlx::query(
            "SELECT id, org_id, roles, created_at, revoked_at FROM api_tokens WHERE token_hash = $1",
        )
        .bind(token_hash)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(token_from).transpose()
    }
}
