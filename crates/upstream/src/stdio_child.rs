//! A stdio server's pipes as rmcp's transport, with its stdin shared by the direct path: both
//! write whole lines under one lock, so their messages never interleave on the pipe.

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use switchboard_sync::Finish;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::{Mutex, OwnedMutexGuard, oneshot};

/// How long a child has to exit once its stdin is closed (and again after `SIGTERM`), as
/// rmcp's own child transport waits.
const EXIT_WAIT: Duration = Duration::from_secs(3);

type Locking = Pin<Box<dyn Future<Output = OwnedMutexGuard<ChildStdin>> + Send>>;

/// rmcp's side of the child's stdin: what its codec writes is kept until a flush, which writes
/// it all to the pipe under the shared lock. The only strong handle: dropped (rmcp closed the
/// transport), the child reads end of file once a direct write in progress is done.
struct SharedStdin {
    stdin: Arc<Mutex<ChildStdin>>,
    /// Whole messages rmcp's codec wrote, not yet on the pipe.
    pending: Vec<u8>,
    written: usize,
    locking: Option<Locking>,
    held: Option<OwnedMutexGuard<ChildStdin>>,
}

impl AsyncWrite for SharedStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().pending.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.pending.is_empty() {
            return Poll::Ready(Ok(()));
        }
        if this.held.is_none() {
            let stdin = &this.stdin;
            let locking = this
                .locking
                .get_or_insert_with(|| Box::pin(stdin.clone().lock_owned()));
            this.held = Some(ready!(locking.as_mut().poll(cx)));
            this.locking = None;
        }
        let Some(stdin) = this.held.as_mut() else {
            return Poll::Ready(Ok(()));
        };
        // Held across partial writes (and a dropped flush): no direct line can land inside.
        while this.written < this.pending.len() {
            let rest = &this.pending[this.written..];
            let n = ready!(Pin::new(&mut **stdin).poll_write(cx, rest))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            this.written += n;
        }
        ready!(Pin::new(&mut **stdin).poll_flush(cx))?;
        this.pending.clear();
        this.written = 0;
        this.held = None;
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // The pipe closes when this, its only strong handle, is dropped.
        self.poll_flush(cx)
    }
}

/// The direct path's way onto the child's stdin.
#[derive(Clone)]
pub(crate) struct StdinLine(Weak<Mutex<ChildStdin>>);

impl StdinLine {
    /// Writes one whole message line. Started, it is finished even if the caller goes away,
    /// so no half line is left on the pipe. `Err` when the transport is closed or the pipe
    /// broke.
    pub(crate) async fn write(&self, line: Vec<u8>) -> io::Result<()> {
        let stdin = self.0.upgrade().ok_or_else(closed)?;
        let (done, written) = oneshot::channel();
        Finish::new(async move {
            let mut stdin = stdin.lock().await;
            let result = async {
                stdin.write_all(&line).await?;
                stdin.flush().await
            };
            let _ = done.send(result.await);
        })
        .await;
        written.await.unwrap_or_else(|_| Err(closed()))
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "the server's stdin is closed")
}

/// The child, killed when dropped without a graceful shutdown.
struct ChildGuard(Option<Box<dyn ChildWrapper>>);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let Some(mut child) = self.0.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = Box::into_pin(child.kill()).await {
                    tracing::warn!("killing a stdio server: {e}");
                }
            });
        }
    }
}

/// A stdio server as rmcp's transport (rmcp's own line codec and reader, the stdin shared).
pub(crate) struct StdioChild {
    child: ChildGuard,
    transport: AsyncRwTransport<RoleClient, ChildStdout, SharedStdin>,
}

impl StdioChild {
    /// Starts `cmd` with piped stdin, stdout and stderr.
    pub(crate) fn spawn(
        mut cmd: CommandWrap,
    ) -> io::Result<(Self, StdinLine, Option<ChildStderr>)> {
        use std::process::Stdio;
        cmd.command_mut()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn()?;
        let pipes = child.inner_mut();
        let (Some(stdin), Some(stdout)) = (pipes.stdin().take(), pipes.stdout().take()) else {
            return Err(io::Error::other("the child's stdio was not piped"));
        };
        let stderr = pipes.stderr().take();
        let stdin = Arc::new(Mutex::new(stdin));
        let line = StdinLine(Arc::downgrade(&stdin));
        let shared = SharedStdin {
            stdin,
            pending: Vec::new(),
            written: 0,
            locking: None,
            held: None,
        };
        let transport = AsyncRwTransport::new_client(stdout, shared);
        let child = ChildGuard(Some(child));
        Ok((Self { child, transport }, line, stderr))
    }

    pub(crate) fn id(&self) -> Option<u32> {
        self.child.0.as_ref()?.id()
    }

    /// The stdio shutdown the spec describes: close stdin and wait for the child to exit;
    /// then `SIGTERM` and wait again; then kill it.
    async fn shut_down(&mut self) -> io::Result<()> {
        // The child stays in its guard until it is gone: cancelled midway, it is still killed.
        let Some(child) = self.child.0.as_mut() else {
            return Ok(());
        };
        self.transport.close().await?;
        if exited(child).await? {
            self.child.0 = None;
            return Ok(());
        }
        match child.signal(libc::SIGTERM) {
            Ok(()) if exited(child).await? => {
                self.child.0 = None;
                return Ok(());
            }
            Ok(()) => {}
            Err(e) => tracing::warn!("sending SIGTERM to a stdio server: {e}"),
        }
        Box::into_pin(child.kill()).await?;
        self.child.0 = None;
        Ok(())
    }
}

/// Whether the child exits within [`EXIT_WAIT`].
async fn exited(child: &mut Box<dyn ChildWrapper>) -> io::Result<bool> {
    match tokio::time::timeout(EXIT_WAIT, child.wait()).await {
        Ok(status) => status.map(|_| true),
        Err(_) => Ok(false),
    }
}

impl Transport<RoleClient> for StdioChild {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.transport.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.transport.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.shut_down()
    }
}
