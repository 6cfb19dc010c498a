//! The test Postgres (`SWITCHBOARD_TEST_DATABASE_URL`, set by scripts/test.sh and .ci/run): a
//! fresh schema per test, and the address a proxy in front of it forwards to.

use std::net::SocketAddr;

/// The test database's URL; panics with the fix when it is not set.
pub fn postgres_url() -> String {
    std::env::var("SWITCHBOARD_TEST_DATABASE_URL").expect(
        "SWITCHBOARD_TEST_DATABASE_URL is not set: point it at a Postgres database (scripts/test.sh sets postgres://postgres@127.0.0.1:5432/test)",
    )
}

/// One test's schema on the test Postgres; `remove` drops it and everything in it.
pub struct TestSchema {
    /// The database's URL (the server the schema lives on).
    pub server: String,
    pub name: String,
    /// The URL scoped to the schema: what a gateway or store is given.
    pub url: String,
}

impl TestSchema {
    /// A new schema named for `tag`, this process and the time.
    pub async fn create(tag: &str) -> Self {
        let server = postgres_url();
        let name = format!(
            "sb_{tag}_{}_{}",
            std::process::id(),
            switchboard_store::now_ms()
        );
        let url = switchboard_store::create_schema(&server, &name)
            .await
            .expect("a schema on the test Postgres");
        Self { server, name, url }
    }

    /// Drops the schema, so tests leave nothing behind in the shared database.
    pub async fn remove(self) {
        switchboard_store::drop_schema(&self.server, &self.name)
            .await
            .expect("drop the test schema");
    }
}

/// host:port of a `postgres://` URL (5432 when it names none).
pub fn postgres_addr(url: &str) -> SocketAddr {
    let after_at = url.rsplit('@').next().unwrap_or(url);
    let host_port = after_at.trim_start_matches("postgres://");
    let host_port = host_port.split(['/', '?']).next().unwrap_or_default();
    let host_port = match host_port.contains(':') {
        true => host_port.to_string(),
        false => format!("{host_port}:5432"),
    };
    host_port
        .parse()
        .expect("a loopback host:port in the test database URL")
}

/// Runs `statement` on the store at `url` (`sqlite://…` or `postgres://…`) as an attacker
/// with database access would, outside the gateway; the rows it touched.
pub async fn tamper(url: &str, statement: &'static str) -> u64 {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url)
        .await
        .expect("connect to the store");
    let done = sqlx::query(statement)
        .execute(&pool)
        .await
        .expect("run the statement");
    pool.close().await;
    done.rows_affected()
}

/// The count a `SELECT COUNT(*) …` query answers on the store at `url`.
pub async fn count(url: &str, query: &'static str) -> i64 {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url)
        .await
        .expect("connect to the store");
    let n: i64 = sqlx::query_scalar(query)
        .fetch_one(&pool)
        .await
        .expect("run the query");
    pool.close().await;
    n
}
