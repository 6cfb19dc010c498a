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

/// haproxy on `port` (its config written in `dir`), sending each request to the next of the
/// replicas at `a` and `b` (`host:port`), round robin, no stickiness.
pub async fn round_robin(dir: &Path, port: u16, a: &str, b: &str) -> Child {
    let config = dir.join("haproxy.cfg");
    let text = format!(
        "defaults\n  mode http\n  timeout connect 5s\n  timeout client 60s\n  timeout server 60s\n\
         frontend gw\n  bind 127.0.0.1:{port}\n  default_backend both\n\
         backend both\n  balance roundrobin\n  server a {a}\n  server b {b}\n"
    );
    std::fs::write(&config, text).unwrap();
    haproxy(&config, port, false).await
}

/// Two replicas of `binary` (`serve` with `args`, `config` and `env`; their data in `dir/a`
/// and `dir/b`, logs ignored) behind haproxy on `port` (round robin): the replicas, then the
/// balancer (alive while kept).
pub async fn two_replicas(
    binary: &Path,
    dir: &Path,
    port: u16,
    (args, config, env): (&[&str], &Path, &[(&str, &str)]),
) -> (crate::Gateway, crate::Gateway, Child) {
    let start = |name: &str| {
        let dir = dir.join(name);
        async move {
            let mut gw = crate::Gateway::start_with_env(binary, args, &dir, config, env).await;
            gw.ignore_log();
            gw
        }
    };
    let (a, b) = (start("a").await, start("b").await);
    let host = |url: &str| (url.trim_start_matches("http://").trim_end_matches("/mcp")).to_string();
    let balancer = round_robin(dir, port, &host(&a.url), &host(&b.url)).await;
    (a, b, balancer)
}
