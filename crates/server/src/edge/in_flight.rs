//! Counts requests whose answer is still being written (POST, PUT, PATCH, DELETE), so a
//! graceful shutdown can wait until every call's result has reached its caller. Streams that
//! only listen (GET: server-sent events) never count: they would never end. The front door's
//! middleware (`request_bounds::bound`) does the counting.

use axum::body::Body;
use axum::response::Response;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

#[derive(Clone, Default)]
pub struct InFlight(Arc<Counter>);

#[derive(Default)]
struct Counter {
    count: AtomicUsize,
    idle: Notify,
    /// Set when shutdown begins: `/readyz` then says so, and load balancers move away.
    draining: std::sync::atomic::AtomicBool,
}

/// Held while one request's answer is written; dropping it counts the request done.
pub(crate) struct Guard(InFlight);

impl Drop for Guard {
    fn drop(&mut self) {
        if self.0.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.0.idle.notify_waiters();
        }
    }
}

impl InFlight {
    /// Marks the gateway as shutting down (`/readyz` answers 503 from now on).
    pub fn begin_drain(&self) {
        self.0.draining.store(true, Ordering::Release);
    }

    pub fn is_draining(&self) -> bool {
        self.0.draining.load(Ordering::Acquire)
    }

    pub fn count(&self) -> usize {
        self.0.count.load(Ordering::Acquire)
    }

    /// Waits (at most `grace`) until no answer is being written; `false` if some still are.
    pub async fn wait_idle(&self, grace: Duration) -> bool {
        tokio::time::timeout(grace, async {
            loop {
                let idle = self.0.idle.notified();
                let mut idle = std::pin::pin!(idle);
                // Registered before the check, so a request ending in between still wakes us.
                idle.as_mut().enable();
                if self.count() == 0 {
                    return;
                }
                idle.await;
            }
        })
        .await
        .is_ok()
    }

    /// Counts one request whose answer is being written until the guard is dropped.
    pub(crate) fn enter(&self) -> Guard {
        self.0.count.fetch_add(1, Ordering::AcqRel);
        Guard(self.clone())
    }
}

/// `response` with `guard` kept alive until its body has been sent (or dropped).
pub(crate) fn held_until_sent<G: Send + Unpin + 'static>(response: Response, guard: G) -> Response {
    let (parts, body) = response.into_parts();
    Response::from_parts(
        parts,
        Body::new(Held {
            body,
            _guard: guard,
        }),
    )
}

/// A response body holding its request's guard. It keeps the inner body's size, so an
/// answer of known length is still sent with `Content-Length`, not chunked.
struct Held<G> {
    body: Body,
    _guard: G,
}

impl<G: Send + Unpin + 'static> http_body::Body for Held<G> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
