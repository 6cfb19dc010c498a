//! Idle downstream sessions leave memory: a session with nothing open for a while is parked
//! (its rmcp worker, service and gateway are dropped) and lives on only as its row in the
//! session store, from which rmcp restores it on its next request.

use crate::mcp::sessions::ordered::OrderedSessions;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a session with nothing open stays in memory by default (`[limits]
/// session_park_secs`). A minute keeps rmcp's cache of finished request streams (kept a
/// minute too) for a client that resumes one.
pub(crate) const DEFAULT_PARK_AFTER: Duration = Duration::from_secs(60);

/// Parks the idle sessions of one endpoint until `shutdown`, looking every few seconds; also
/// forgets its parked sessions unused past their expiry and marks the saved rows of sessions
/// busy in memory as used.
pub(crate) fn spawn(sessions: Arc<OrderedSessions>, after: Duration, shutdown: CancellationToken) {
    let every = (after / 6).clamp(Duration::from_secs(1), Duration::from_secs(10));
    let expiry = sessions.limits().caps().expire_after;
    let mark_every = (expiry / 4).max(Duration::from_secs(1));
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = ticks.tick() => {}
            }
            for (id, idle) in sessions.live().take_idle(after.min(expiry)) {
                sessions.park(&id, idle).await;
                tracing::debug!(session = %id, "parked an idle session");
            }
            let expired = sessions.limits().expire(sessions.scope());
            if expired > 0 {
                tracing::debug!(expired, "forgot sessions unused past their expiry");
            }
            for id in sessions.live().rows_to_mark(mark_every) {
                sessions.mark_used(&id).await;
            }
        }
    });
}
