//! A loopback TCP proxy a test controls: it forwards to a real service (Postgres) until the
//! test cuts it (every open connection closed, new ones accepted and closed at once), then
//! forwards again once restored. How a test makes a shared database "unreachable" without
//! touching the database other tests use.

use std::net::SocketAddr;
use std::sync::Arc;
use switchboard_sync::Mutex;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// The proxy; dropping it stops it and closes every connection through it.
pub struct TcpProxy {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: CancellationToken,
}

struct State {
    /// Cancelled when the proxy is cut: the connections opened since the last cut.
    open: CancellationToken,
    cut: bool,
}

impl TcpProxy {
    /// Listens on 127.0.0.1 (a free port) and forwards to `target`.
    pub async fn start(target: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a proxy");
        let addr = listener.local_addr().expect("the proxy's address");
        let state = Arc::new(Mutex::new(State {
            open: CancellationToken::new(),
            cut: false,
        }));
        let stop = CancellationToken::new();
        tokio::spawn(accept(listener, target, state.clone(), stop.clone()));
        Self { addr, state, stop }
    }

    /// Closes every connection through the proxy and refuses new ones until `restore`.
    pub fn cut(&self) {
        let mut state = self.state.lock();
        state.cut = true;
        state.open.cancel();
        state.open = CancellationToken::new();
    }

    /// Forwards new connections again.
    pub fn restore(&self) {
        self.state.lock().cut = false;
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.stop.cancel();
        self.cut();
    }
}

async fn accept(
    listener: TcpListener,
    target: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.cancelled() => return,
        };
        let Ok((inbound, _)) = accepted else { continue };
        let open = {
            let state = state.lock();
            (!state.cut).then(|| state.open.clone())
        };
        // Cut: the connection is dropped (closed) as soon as it is accepted.
        let Some(open) = open else { continue };
        tokio::spawn(forward(inbound, target, open));
    }
}

async fn forward(mut inbound: TcpStream, target: SocketAddr, open: CancellationToken) {
    let Ok(mut outbound) = TcpStream::connect(target).await else {
        return;
    };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
        _ = open.cancelled() => {}
    }
}
