//! When servers run: restart backoff after crashes, stopping idle stdio servers, and the
//! snapshot cache that lets a lazy server's tools be listed before it ever runs.

use crate::entry::ServerEntry;
use rand::Rng;
use std::sync::Arc;
use std::time::Duration;
use switchboard_core::{ServerSpec, ServerStatus};
use switchboard_upstream::Snapshot;
use tokio::time::Instant;

/// Consecutive failed starts (or crashes) after which a server stays in `error` until it is
/// refreshed, enabled or re-added.
pub const MAX_FAILURES: u32 = 5;
const FIRST_RETRY: Duration = Duration::from_millis(500);
const LONGEST_RETRY: Duration = Duration::from_secs(30);

/// Where discovery snapshots are kept between runs (the control plane's store, usually).
#[async_trait::async_trait]
pub trait SnapshotCache: Send + Sync + 'static {
    /// The snapshot last saved for a server with this [`ServerSpec::fingerprint`].
    async fn load(&self, fingerprint: &str) -> Option<Snapshot>;
    async fn save(&self, fingerprint: &str, snapshot: &Snapshot);
}

impl std::fmt::Debug for dyn SnapshotCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<SnapshotCache>")
    }
}

/// How long to wait before start attempt number `failures + 1`: doubling from 0.5 s up to
/// 30 s, with ±20% jitter so servers that failed together do not retry together.
pub(crate) fn backoff(failures: u32) -> Duration {
    let doubled = FIRST_RETRY.saturating_mul(1 << failures.saturating_sub(1).min(16));
    let base = doubled.min(LONGEST_RETRY);
    base.mul_f64(rand::rng().random_range(0.8..=1.2))
}

/// Whether a running server has been without calls for its whole idle timeout.
pub(crate) fn idle_due(
    spec: &ServerSpec,
    last_used: Instant,
    in_flight: usize,
    now: Instant,
) -> bool {
    match spec.idle_after() {
        Some(after) => in_flight == 0 && now.saturating_duration_since(last_used) >= after,
        None => false,
    }
}

/// Whether an authorization link handed out at `since` has expired by `now`.
pub(crate) fn authorization_expired(since: Instant, now: Instant) -> bool {
    now.saturating_duration_since(since) >= switchboard_upstream::auth::FLOW_LIFETIME
}

/// Servers whose authorization link expired unused leave `authenticating` for `error`, so
/// nobody is shown a dead link (a working server's link for more scope is just dropped);
/// returns them.
pub(crate) fn expire_authorizations(entries: &[Arc<ServerEntry>]) -> Vec<Arc<ServerEntry>> {
    let now = Instant::now();
    let mut expired = Vec::new();
    for entry in entries {
        let mut state = entry.state();
        let due = state
            .authorize_since
            .is_some_and(|since| authorization_expired(since, now));
        if !due {
            continue;
        }
        if state.status() == ServerStatus::Authenticating {
            // (No connection is open while it waits.)
            let _ = state.refuse(
                "the authorization link expired unused (links last 15 minutes); reauthorize to get a new one"
                    .into(),
            );
        } else {
            state.clear_link();
        }
        drop(state);
        expired.push(entry.clone());
    }
    expired
}

/// Stops the stdio servers that sat idle too long (their tools stay listed, status `idle`);
/// returns the ones stopped.
pub(crate) async fn stop_idle(entries: &[Arc<ServerEntry>]) -> Vec<Arc<ServerEntry>> {
    let now = Instant::now();
    let mut stopped = Vec::new();
    for entry in entries {
        let due = {
            let state = entry.state();
            state.status() == ServerStatus::Ready
                && state.connection.is_some()
                && !entry.watched.any()
                && idle_due(
                    &entry.spec,
                    state.last_used.unwrap_or(now),
                    entry.in_flight(),
                    now,
                )
        };
        if due {
            tracing::info!(server = %entry.spec.name, "stopping after {:?} without calls", entry.spec.idle_after().unwrap_or_default());
            entry.close().await;
            entry.state().set_status(ServerStatus::Idle);
            stopped.push(entry.clone());
        }
    }
    stopped
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_core::{ServerSlug, StdioSpec, Transport};

    fn stdio(idle: Option<Duration>) -> ServerSpec {
        let mut spec = ServerSpec::new(
            ServerSlug::parse("fx").unwrap(),
            Transport::Stdio(StdioSpec {
                command: "fx".into(),
                args: vec![],
                env: Default::default(),
                cwd: None,
                limits: Default::default(),
            }),
        );
        spec.idle_timeout = idle;
        spec
    }

    #[tokio::test(start_paused = true)]
    async fn idle_is_due_only_after_the_whole_timeout_without_calls() {
        let spec = stdio(Some(Duration::from_secs(60)));
        let used = Instant::now();
        tokio::time::advance(Duration::from_secs(59)).await;
        assert!(!idle_due(&spec, used, 0, Instant::now()));
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(idle_due(&spec, used, 0, Instant::now()));
        assert!(
            !idle_due(&spec, used, 1, Instant::now()),
            "a call in flight keeps it up"
        );
        assert!(!idle_due(
            &stdio(Some(Duration::ZERO)),
            used,
            0,
            Instant::now()
        ));
        tokio::time::advance(Duration::from_secs(240)).await;
        assert!(
            idle_due(&stdio(None), used, 0, Instant::now()),
            "default 300 s"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_unused_authorization_link_expires_after_fifteen_minutes() {
        let entry = Arc::new(ServerEntry::new(
            stdio(None),
            &Default::default(),
            Default::default(),
        ));
        {
            let mut state = entry.state();
            state.set_status(ServerStatus::Authenticating);
            state.authorize_url = Some("https://as.test/authorize?state=s".into());
            state.authorize_since = Some(Instant::now());
        }
        let entries = [entry.clone()];
        tokio::time::advance(Duration::from_secs(15 * 60 - 1)).await;
        assert!(expire_authorizations(&entries).is_empty());
        assert_eq!(entry.status(), ServerStatus::Authenticating);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(expire_authorizations(&entries).len(), 1);
        let info = entry.info();
        assert_eq!(info.status, ServerStatus::Error);
        assert_eq!(info.authorize_url, None, "no dead link is shown");
        assert!(info.last_error.unwrap().contains("expired"));

        // A working server's link for more scope is dropped; the server stays as it is.
        {
            let mut state = entry.state();
            state.set_status(ServerStatus::Ready);
            state.authorize_url = Some("https://as.test/authorize?state=t".into());
            state.authorize_since = Some(Instant::now());
        }
        tokio::time::advance(Duration::from_secs(15 * 60)).await;
        assert_eq!(expire_authorizations(&entries).len(), 1);
        assert_eq!(entry.status(), ServerStatus::Ready);
        assert_eq!(entry.info().authorize_url, None);
    }

    #[test]
    fn backoff_doubles_with_jitter_up_to_a_ceiling() {
        for (failures, base) in [
            (1, 0.5),
            (2, 1.0),
            (3, 2.0),
            (4, 4.0),
            (7, 30.0),
            (40, 30.0),
        ] {
            let wait = backoff(failures).as_secs_f64();
            assert!(
                (base * 0.8..=base * 1.2).contains(&wait),
                "failure {failures}: {wait}"
            );
        }
        let spread: std::collections::HashSet<u128> =
            (0..20).map(|_| backoff(3).as_micros()).collect();
        assert!(spread.len() > 1, "jittered");
    }
}
