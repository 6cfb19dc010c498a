//! The proxy's connections: an HTTP/1 server on each accepted connection; every request is
//! checked on its own (a kept-alive connection cannot switch to an unchecked host).

use crate::gate::{Denial, Gate, ProxyRefusal};
use bytes::Bytes;
use http::header::{CONNECTION, CONTENT_TYPE, HOST, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// Told of every refusal (the gateway audits and counts it).
pub type Refused = Arc<dyn Fn(&ProxyRefusal) + Send + Sync>;

/// How long a connection to a checked address may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections one server may hold open through its proxy at once.
const MAX_CONNECTIONS: usize = 256;

/// Headers that concern only the hop to the proxy.
const HOP_BY_HOP: [&str; 7] = [
    "proxy-connection",
    "proxy-authorization",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
];

type Body = BoxBody<Bytes, hyper::Error>;

/// Serves the proxy on `listener` until `stop`: the connections open then are closed too.
pub async fn serve(
    listener: std::net::TcpListener,
    gate: Arc<Gate>,
    refused: Refused,
    stop: CancellationToken,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = TcpListener::from_std(listener)?;
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return Ok(()),
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors or an aborted handshake: try again shortly.
                tracing::debug!(error = %e, "egress proxy: accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::warn!(
                "egress proxy: {MAX_CONNECTIONS} connections open already; one more refused"
            );
            continue;
        };
        let (gate, refused, stop) = (gate.clone(), refused.clone(), stop.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                handle(request, gate.clone(), refused.clone())
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            tokio::select! {
                _ = connection => {}
                _ = stop.cancelled() => {}
            }
            drop(slot);
        });
    }
}

async fn handle(
    request: Request<Incoming>,
    gate: Arc<Gate>,
    refused: Refused,
) -> Result<Response<Body>, std::convert::Infallible> {
    let answer = match request.method() == Method::CONNECT {
        true => tunnel(request, &gate).await,
        false => forward(request, &gate).await,
    };
    Ok(match answer {
        Ok(response) => response,
        Err(Denial::Refused(refusal)) => {
            refused(&refusal);
            let body = format!("switchboard egress proxy refused: {refusal}\n");
            text(StatusCode::FORBIDDEN, body)
        }
        Err(Denial::Failed(why)) => text(
            StatusCode::BAD_GATEWAY,
            format!("switchboard egress proxy: {why}\n"),
        ),
    })
}

fn text(status: StatusCode, body: String) -> Response<Body> {
    let mut response: Response<Body> =
        Response::new(Full::new(Bytes::from(body)).map_err(|n| match n {}).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

fn bad(why: &str) -> Denial {
    Denial::Refused(ProxyRefusal::BadRequest(why.to_string()))
}

/// `CONNECT host:port`: checked, connected, then the bytes both ways (TLS end to end).
async fn tunnel(request: Request<Incoming>, gate: &Gate) -> Result<Response<Body>, Denial> {
    let authority =
        (request.uri().authority().cloned()).ok_or_else(|| bad("CONNECT names host:port"))?;
    let port = (authority.port_u16()).ok_or_else(|| bad("CONNECT names host:port"))?;
    let addrs = gate.check(authority.host(), port).await?;
    let mut upstream = connect(&addrs, authority.as_str()).await?;
    tokio::spawn(async move {
        match hyper::upgrade::on(request).await {
            Ok(upgraded) => {
                let mut client = TokioIo::new(upgraded);
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            }
            Err(e) => tracing::debug!(error = %e, "egress proxy: the tunnel was not taken up"),
        }
    });
    Ok(Response::new(Empty::new().map_err(|n| match n {}).boxed()))
}

/// An absolute-form `http://` request: checked, then sent on in origin form.
async fn forward(mut request: Request<Incoming>, gate: &Gate) -> Result<Response<Body>, Denial> {
    let uri = request.uri().clone();
    if uri.scheme_str() != Some("http") {
        return Err(bad(
            "only absolute http:// requests and CONNECT go through this proxy (https:// goes through CONNECT)",
        ));
    }
    let authority = uri
        .authority()
        .ok_or_else(|| bad("the URL names no host"))?;
    let port = authority.port_u16().unwrap_or(80);
    let addrs = gate.check(authority.host(), port).await?;
    let stream = connect(&addrs, authority.as_str()).await?;
    let failed = |e: hyper::Error| Denial::Failed(format!("{authority}: {e}"));
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(failed)?;
    tokio::spawn(connection);
    let origin_form = uri.path_and_query().map_or("/", |p| p.as_str());
    *request.uri_mut() = origin_form.parse().map_err(|_| bad("a malformed path"))?;
    let headers = request.headers_mut();
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
    // The host checked, whatever Host the client sent (RFC 9112 3.2.2): an upstream that
    // routes by Host never reaches a name nobody listed.
    let host = match authority.port() {
        Some(port) => format!("{}:{port}", authority.host()),
        None => authority.host().to_string(),
    };
    headers.insert(
        HOST,
        HeaderValue::from_str(&host).map_err(|_| bad("a bad host"))?,
    );
    let response = sender.send_request(request).await.map_err(failed)?;
    Ok(response.map(BodyExt::boxed))
}

/// The first of the checked addresses that answers.
async fn connect(addrs: &[SocketAddr], target: &str) -> Result<TcpStream, Denial> {
    let mut last = String::from("no address");
    for addr in addrs {
        match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Ok(Err(e)) => last = format!("{addr}: {e}"),
            Err(_) => last = format!("{addr}: no answer in {}s", CONNECT_TIMEOUT.as_secs()),
        }
    }
    Err(Denial::Failed(format!(
        "cannot connect to {target} ({last})"
    )))
}
