//! The servers an org connected through the REST API: their rows (credentials sealed).

use crate::model::{ServerRow, StoreError};
use crate::sql::{SqlStore, json, list};
use sqlx::Row;
use sqlx::any::AnyRow;

fn server_from(row: &AnyRow) -> Result<ServerRow, StoreError> {
    Ok(ServerRow {
        id: row.try_get("id")?,
        org_id: row.try_get("org_id")?,
        slug: row.try_get("slug")?,
        name: row.try_get("name")?,
        url: row.try_get("url")?,
        auth_method: row.try_get("auth_method")?,
        credentials: row.try_get("credentials")?,
        status: row.try_get("status")?,
        last_error: row.try_get("last_error")?,
        discovered_tools: list(&row.try_get::<String, _>("discovered_tools")?)?,
        last_discovered_at: row.try_get("last_discovered_at")?,
        created_at: row.try_get("created_at")?,
        deleted_at: row.try_get("deleted_at")?,
    })
}

macro_rules! server_columns {
    () => {
        "id, org_id, slug, name, url, auth_method, credentials, status, last_error, discovered_tools, last_discovered_at, created_at, deleted_at"
    };
}

impl SqlStore {
    pub(crate) async fn add_server(&self, r: &ServerRow) -> Result<(), StoreError> {
        sqlx::query(concat!(
            "INSERT INTO servers (",
            server_columns!(),
            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        ))
        .bind(&r.id)
        .bind(&r.org_id)
        .bind(&r.slug)
        .bind(&r.name)
        .bind(&r.url)
        .bind(&r.auth_method)
        .bind(&r.credentials)
        .bind(&r.status)
        .bind(&r.last_error)
        .bind(json(&r.discovered_tools))
        .bind(r.last_discovered_at)
        .bind(r.created_at)
        .bind(r.deleted_at)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(crate) async fn save_server(&self, r: &ServerRow) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE servers SET slug = $1, name = $2, url = $3, auth_method = $4, credentials = $5, status = $6, last_error = $7, discovered_tools = $8, last_discovered_at = $9, deleted_at = $10 WHERE id = $11 AND org_id = $12",
        )
        .bind(&r.slug)
        .bind(&r.name)
        .bind(&r.url)
        .bind(&r.auth_method)
        .bind(&r.credentials)
        .bind(&r.status)
        .bind(&r.last_error)
        .bind(json(&r.discovered_tools))
        .bind(r.last_discovered_at)
        .bind(r.deleted_at)
        .bind(&r.id)
        .bind(&r.org_id)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub(crate) async fn org_servers(&self, org_id: &str) -> Result<Vec<ServerRow>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            server_columns!(),
            " FROM servers WHERE org_id = $1 ORDER BY created_at, id"
        ))
        .bind(org_id)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(server_from).collect()
    }

    pub(crate) async fn org_server(
        &self,
        org_id: &str,
        id: &str,
    ) -> Result<Option<ServerRow>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            server_columns!(),
            " FROM servers WHERE org_id = $1 AND id = $2"
        ))
        .bind(org_id)
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(server_from).transpose()
    }

    pub(crate) async fn every_server(&self) -> Result<Vec<ServerRow>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            server_columns!(),
            " FROM servers ORDER BY id"
        ))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(server_from).collect()
    }
}
