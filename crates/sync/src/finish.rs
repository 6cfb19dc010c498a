//! Work polled by whoever waits for it, and finished in a task of its own if they go away.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A future run in place by the task that awaits it (no task of its own, no wake-up across
/// workers), which is not lost when that task drops it unfinished: the rest then runs in a
/// spawned task, as if it had been spawned from the start. For work that must finish once
/// started (a call that is audited, a line half written to a pipe) but whose waiter may go.
#[must_use = "work that is neither awaited nor detached runs only when dropped"]
pub struct Finish<F: Future<Output = ()> + Send + 'static>(Option<Pin<Box<F>>>);

impl<F: Future<Output = ()> + Send + 'static> Finish<F> {
    pub fn new(work: F) -> Self {
        Self(Some(Box::pin(work)))
    }

    /// Stops waiting: what is left runs in its own task from now on.
    pub fn detach(mut self) {
        self.spawn_rest();
    }

    fn spawn_rest(&mut self) {
        let Some(rest) = self.0.take() else { return };
        // Outside a runtime (its shutdown) there is nowhere to finish: the work is dropped.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(rest);
        }
    }
}

impl<F: Future<Output = ()> + Send + 'static> Future for Finish<F> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let Some(work) = self.0.as_mut() else {
            return Poll::Ready(());
        };
        let done = work.as_mut().poll(cx);
        if done.is_ready() {
            self.0 = None;
        }
        done
    }
}

impl<F: Future<Output = ()> + Send + 'static> Drop for Finish<F> {
    fn drop(&mut self) {
        self.spawn_rest();
    }
}

#[cfg(test)]
mod tests {
    use super::Finish;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use tokio::sync::{Notify, oneshot};

    #[tokio::test]
    async fn work_awaited_to_the_end_runs_in_place_once() {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        let here = std::thread::current().id();
        let (seen, thread) = oneshot::channel();
        Finish::new(async move {
            let _ = seen.send(std::thread::current().id());
            assert!(!flag.swap(true, Ordering::SeqCst), "ran twice");
        })
        .await;
        assert!(ran.load(Ordering::SeqCst));
        assert_eq!(thread.await.unwrap(), here, "polled by the awaiting task");
    }

    #[tokio::test]
    async fn work_dropped_unfinished_finishes_in_its_own_task() {
        let go = Arc::new(Notify::new());
        let (done, finished) = oneshot::channel();
        let started = Arc::new(Notify::new());
        let work = {
            let (go, started) = (go.clone(), started.clone());
            Finish::new(async move {
                started.notify_one();
                go.notified().await;
                let _ = done.send(());
            })
        };
        // Polled until it waits, then abandoned by its waiter.
        tokio::select! {
            _ = work => unreachable!("it waits for `go`"),
            _ = started.notified() => {}
        }
        go.notify_one();
        finished
            .await
            .expect("the rest ran after its waiter went away");
    }

    #[tokio::test]
    async fn detached_work_finishes_without_a_waiter() {
        let (done, finished) = oneshot::channel();
        let go = Arc::new(Notify::new());
        let work = {
            let go = go.clone();
            Finish::new(async move {
                go.notified().await;
                let _ = done.send(());
            })
        };
        work.detach();
        go.notify_one();
        finished.await.expect("detached work ran");
    }
}
