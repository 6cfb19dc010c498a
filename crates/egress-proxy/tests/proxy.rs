//! The proxy over real loopback sockets: plain http:// requests and CONNECT tunnels to a
//! listed host reach a loopback web server; anything else is refused with 403 and reported,
//! request by request on one kept-alive connection.

use std::sync::Arc;
use switchboard_egress::{EgressPolicy, StaticLookup};
use switchboard_egress_proxy::{Gate, ProxyRefusal, serve};
use switchboard_sync::Mutex;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// A web server on loopback answering every request with `hello from <path> at <Host>`.
async fn web_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                while let Some(head) = read_head(&mut stream).await {
                    let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
                    let host = (head.lines())
                        .find_map(|l| l.strip_prefix("host: ").or(l.strip_prefix("Host: ")))
                        .unwrap_or("")
                        .to_string();
                    let body = format!("hello from {path} at {host}");
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    if stream.write_all(answer.as_bytes()).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    port
}

/// One request head (through the blank line), or `None` at the end of the stream.
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    Some(String::from_utf8_lossy(&head).into_owned())
}

/// One response: its status and body (by content-length).
async fn read_response(stream: &mut TcpStream) -> (u16, String) {
    let head = read_head(stream).await.expect("a response");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let length = (head.lines())
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).await.unwrap();
    (status, String::from_utf8(body).unwrap())
}

struct Proxy {
    port: u16,
    refusals: Arc<Mutex<Vec<ProxyRefusal>>>,
    _stop: tokio_util::sync::DropGuard,
}

/// The proxy for a server whose `sandbox.net` is `net` (names resolve to loopback).
async fn proxy(net: &[String]) -> Proxy {
    let lookup = StaticLookup::default();
    for name in ["localhost", "web.test", "other.test"] {
        lookup.set(name, vec!["127.0.0.1".parse().unwrap()]);
    }
    let gate = Gate::new(net, &EgressPolicy::default(), Vec::new(), Arc::new(lookup));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let refusals = Arc::new(Mutex::new(Vec::new()));
    let seen = refusals.clone();
    let stop = CancellationToken::new();
    let refused = Arc::new(move |r: &ProxyRefusal| seen.lock().push(r.clone()));
    tokio::spawn(serve(listener, Arc::new(gate), refused, stop.clone()));
    Proxy {
        port,
        refusals,
        _stop: stop.drop_guard(),
    }
}

#[tokio::test]
async fn plain_requests_reach_a_listed_host_and_each_request_is_checked() {
    let web = web_server().await;
    let proxy = proxy(&[format!("web.test:{web}")]).await;
    let mut client = TcpStream::connect(("127.0.0.1", proxy.port)).await.unwrap();
    // The Host header the client sends is replaced by the host checked.
    let get = |host: &str, path: &str| {
        format!("GET http://{host}{path} HTTP/1.1\r\nHost: admin.internal\r\n\r\n")
    };
    client
        .write_all(get(&format!("web.test:{web}"), "/page").as_bytes())
        .await
        .unwrap();
    assert_eq!(
        read_response(&mut client).await,
        (200, format!("hello from /page at web.test:{web}"))
    );
    // The same kept-alive connection, another host: refused, with the fix.
    client
        .write_all(get(&format!("other.test:{web}"), "/secret").as_bytes())
        .await
        .unwrap();
    let (status, body) = read_response(&mut client).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains(&format!(
            "other.test:{web} is not on this server's sandbox.net list"
        )),
        "{body}"
    );
    let refusals = proxy.refusals.lock().clone();
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert_eq!(refusals[0].reason(), "not_listed");
    assert_eq!(refusals[0].target(), format!("other.test:{web}"));
}

#[tokio::test]
async fn connect_tunnels_to_a_listed_host_and_refuses_other_ports() {
    let web = web_server().await;
    let proxy = proxy(&[format!("localhost:{web}")]).await;
    let mut client = TcpStream::connect(("127.0.0.1", proxy.port)).await.unwrap();
    let connect = format!("CONNECT localhost:{web} HTTP/1.1\r\nHost: localhost:{web}\r\n\r\n");
    client.write_all(connect.as_bytes()).await.unwrap();
    let head = read_head(&mut client).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // Inside the tunnel, bytes go as they are (TLS would, end to end).
    client
        .write_all(b"GET /through HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    assert_eq!(
        read_response(&mut client).await,
        (200, "hello from /through at localhost".into())
    );

    let mut other = TcpStream::connect(("127.0.0.1", proxy.port)).await.unwrap();
    let port = web.wrapping_add(1).max(1);
    let connect = format!("CONNECT localhost:{port} HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n");
    other.write_all(connect.as_bytes()).await.unwrap();
    let (status, body) = read_response(&mut other).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains(&format!("add \"localhost:{port}\"")),
        "{body}"
    );
    assert_eq!(proxy.refusals.lock()[0].reason(), "port");
}

#[tokio::test]
async fn https_urls_in_absolute_form_are_refused_as_bad_requests() {
    let proxy = proxy(&["web.test".into()]).await;
    let mut client = TcpStream::connect(("127.0.0.1", proxy.port)).await.unwrap();
    client
        .write_all(b"GET https://web.test/ HTTP/1.1\r\nHost: web.test\r\n\r\n")
        .await
        .unwrap();
    let (status, body) = read_response(&mut client).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("goes through CONNECT"), "{body}");
}
