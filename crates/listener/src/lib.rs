//! Serves an HTTP app on a TCP listener within bounds: connections in all and per client
//! address, and the time a client may take to send a request's head (slow clients).

mod connections;
mod refusal;

pub use connections::{Bounds, Connections, Refused, client_key, within_open_files};
pub use refusal::refusal_body;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// Serves `app` on `listener` within `connections`' bounds until `shutdown` is cancelled,
/// then stops accepting and waits for open connections to finish. Each request carries
/// its client's address as axum's `ConnectInfo<SocketAddr>`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    connections: Arc<Connections>,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(connections.bounds().header_read_timeout);
    let graceful = GracefulShutdown::new();
    let refusals = refusal::Refusals::default();
    loop {
        let (tcp, remote) = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    accept_failed(e, &shutdown).await;
                    continue;
                }
            },
        };
        // Responses are streamed (SSE): without TCP_NODELAY the event written after the
        // headers waits for the client's delayed ACK, adding ~40 ms to every call.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
        let held = match connections.open(remote.ip()) {
            Ok(held) => held,
            Err(refused) => {
                refusals.answer(tcp, refused, connections.bounds());
                continue;
            }
        };
        let service = app
            .clone()
            .map_request(move |mut request: hyper::Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(remote));
                request
            });
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(tcp), TowerToHyperService::new(service))
            .into_owned();
        let served = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = served.await {
                held.failed(&*e);
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// A failed accept: a connection the client gave up on is skipped; running out of file
/// descriptors (or any other error) is logged and waited out for a second, as axum does.
async fn accept_failed(e: std::io::Error, shutdown: &CancellationToken) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(
        "cannot accept a connection: {e}; retrying in 1 s (if the process is out of file descriptors, lower [limits] max_connections or raise `ulimit -n`)"
    );
    tokio::select! {
        _ = shutdown.cancelled() => {}
        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
    }
}
