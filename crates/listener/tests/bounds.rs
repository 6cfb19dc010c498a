//! The listener's bounds over real sockets: a client that never finishes its request head is
//! cut off, a client at its share of connections is refused with an answer naming the limit
//! while another address still gets in, and shutdown waits for open connections.

use axum::Router;
use axum::routing::get;
use serde_json::Value;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use switchboard_listener::{Bounds, Connections};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_util::sync::CancellationToken;

/// How long a test waits for something that should happen at once (a failure guard only).
const GUARD: Duration = Duration::from_secs(20);

struct Served {
    addr: SocketAddr,
    connections: Arc<Connections>,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn serve(bounds: Bounds) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route(
        "/",
        get(
            |axum::extract::ConnectInfo(from): axum::extract::ConnectInfo<SocketAddr>| async move {
                from.ip().to_string()
            },
        ),
    );
    let connections = Connections::new(bounds);
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(switchboard_listener::serve(
        listener,
        app,
        connections.clone(),
        shutdown.clone(),
    ));
    Served {
        addr,
        connections,
        shutdown,
        task,
    }
}

fn bounds(total: usize, per_client: usize, head: Duration) -> Bounds {
    Bounds {
        max_connections: total,
        max_connections_per_client: per_client,
        header_read_timeout: head,
    }
}

/// A raw connection from `from` that has been served one request (so the listener has
/// counted it) and is kept open.
async fn held_connection(to: SocketAddr, from: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(from.parse().unwrap(), 0))
        .unwrap();
    let mut tcp = socket.connect(to).await.unwrap();
    tcp.write_all(b"GET / HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut answer = vec![0u8; 1024];
    let n = tcp.read(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.ends_with(from),
        "the app sees the client's address: {answer}"
    );
    tcp
}

/// A GET from `from` on a fresh connection: (status, Retry-After, body).
async fn get_from(to: SocketAddr, from: &str) -> (u16, Option<String>, String) {
    let client = reqwest::Client::builder()
        .local_address(from.parse::<IpAddr>().unwrap())
        .build()
        .unwrap();
    let response = client.get(format!("http://{to}/")).send().await.unwrap();
    let status = response.status().as_u16();
    let retry = (response.headers().get("retry-after")).map(|v| v.to_str().unwrap().to_string());
    (status, retry, response.text().await.unwrap())
}

#[tokio::test]
async fn a_request_head_that_never_ends_is_cut_off_and_others_are_served() {
    let served = serve(bounds(100, 100, Duration::from_millis(300))).await;
    let mut slow = TcpStream::connect(served.addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\n")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let read = tokio::time::timeout(GUARD, slow.read_to_end(&mut rest)).await;
    assert!(
        read.is_ok(),
        "the slow connection is closed by the listener"
    );
    assert_eq!(served.connections.slow_heads(), 1);
    let (status, _, body) = get_from(served.addr, "127.0.0.1").await;
    assert_eq!((status, body.as_str()), (200, "127.0.0.1"));
}

#[tokio::test]
async fn a_client_at_its_share_is_refused_naming_the_limit_while_another_gets_in() {
    let served = serve(bounds(3, 2, Duration::from_secs(10))).await;
    let _one = held_connection(served.addr, "127.0.0.1").await;
    let _two = held_connection(served.addr, "127.0.0.1").await;

    let (status, retry, body) = get_from(served.addr, "127.0.0.1").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(retry.as_deref(), Some("5"));
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["kind"], "rate_limited");
    assert_eq!(body["error"]["data"]["limit"], "max_connections_per_client");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("limit of 2 open connections"), "{message}");

    // Another address still gets in, up to the replica's total.
    let _three = held_connection(served.addr, "127.0.0.2").await;
    let (status, _, body) = get_from(served.addr, "127.0.0.3").await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("max_connections"), "{body}");
    assert_eq!(served.connections.open_count(), 3);
    let refusals = served.connections.refusals().map(|(_, n)| n);
    assert_eq!(refusals, [1, 1]);
}

#[tokio::test]
async fn shutdown_stops_accepting_and_waits_for_open_connections() {
    let served = serve(bounds(10, 10, Duration::from_secs(10))).await;
    let mut idle = held_connection(served.addr, "127.0.0.1").await;
    served.shutdown.cancel();
    let finished = tokio::time::timeout(GUARD, served.task).await;
    assert!(
        matches!(finished, Ok(Ok(Ok(())))),
        "serve returns once its idle connection is closed"
    );
    let mut rest = Vec::new();
    idle.read_to_end(&mut rest).await.unwrap();
    assert!(
        TcpStream::connect(served.addr).await.is_err(),
        "no longer listening"
    );
}
