//! The test Postgres (`SWITCHBOARD_TEST_DATABASE_URL`, set by scripts/test.sh and .ci/run): a
//! fresh schema per test, and the address a proxy in front of it forwards to.

use std::net::SocketAddr;

/// The test database's URL; panics with the fix when it is not set.
pub fn postgres_url() -> String {
    std::env::var("SWITCHBOARD_TEST_DATABASE_URL").expect(
        "SWITCHBOARD_TEST_DATABASE_URL is not set: point it at a Postgres database (scripts/test.sh sets postgres://postgres@127.0.0.1:5432/test)",
    )
}

/// A new schema named for `tag`, this process and the time: (the database's URL, the URL
/// scoped to the schema).
pub async fn postgres_schema(tag: &str) -> (String, String) {
    let url = postgres_url();
    let schema = format!(
        "sb_{tag}_{}_{}",
        std::process::id(),
        switchboard_store::now_ms()
    );
    let scoped = switchboard_store::create_schema(&url, &schema)
        .await
        .expect("a schema on the test Postgres");
    (url, scoped)
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
