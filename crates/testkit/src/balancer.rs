//! haproxy from Debian as the load balancer in front of replicas (scripts/fixtures.sh
//! installs it): started on a config the test writes, ready once it accepts connections.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::process::{Child, Command};

/// haproxy running `config`, listening on `port` (its stdout piped when `log`, for a config
/// that logs to stdout); returns once the port accepts a connection.
pub async fn haproxy(config: &Path, port: u16, log: bool) -> Child {
    let binary = ["/usr/sbin/haproxy", "/usr/bin/haproxy"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("haproxy");
    let child = Command::new(binary)
        .args(["-db", "-f"])
        .arg(config)
        .stdout(if log { Stdio::piped() } else { Stdio::null() })
        .kill_on_drop(true)
        .spawn()
        .expect("start haproxy (scripts/fixtures.sh installs it)");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "haproxy never listened"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child
}
