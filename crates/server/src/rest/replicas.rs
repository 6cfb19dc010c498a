//! Replicas on one Postgres act as one service: change notices (LISTEN/NOTIFY) keep every
//! replica's org registries in step, and scheduled jobs run once per cluster.

use super::servers;
use crate::control_plane::ApiError;
use crate::control_plane::ControlPlane;
use rand::Rng;
use std::time::Duration;
use switchboard_store::{Change, ChangeKind, Heard, ServerRow, now_ms};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How often pins are read again for approvals made by another process.
const PIN_POLL: Duration = Duration::from_secs(3);

/// Scheduled job: list every API server's offer again.
pub(super) const REFRESH_JOB: &str = "refresh_servers";
/// Scheduled job: forget downstream MCP sessions unused for longer than they may be.
pub(super) const PRUNE_JOB: &str = "prune_sessions";

/// How often the scheduled jobs run (across the whole cluster).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct JobOptions {
    /// Re-discovery of API servers; zero turns it off.
    pub refresh_every: Duration,
    /// How long a saved downstream session may go unused (`[limits] session_expire_secs`).
    pub session_expiry: Duration,
    /// Audit rows older than this are deleted by the clean-up job (`[audit] retention_days`).
    pub audit_retention: Option<Duration>,
}

impl Default for JobOptions {
    fn default() -> Self {
        Self {
            refresh_every: Duration::from_secs(600),
            session_expiry: Duration::from_secs(
                switchboard_core::Limits::default().session_expire_secs as u64,
            ),
            audit_retention: None,
        }
    }
}

impl JobOptions {
    pub fn with_refresh_every(mut self, every: Duration) -> Self {
        self.refresh_every = every;
        self
    }
    pub fn with_session_expiry(mut self, expiry: Duration) -> Self {
        self.session_expiry = expiry;
        self
    }
    pub fn with_audit_retention(mut self, retention: Option<Duration>) -> Self {
        self.audit_retention = retention;
        self
    }
}

impl ControlPlane {
    /// Tells the other replicas that `row` changed; call after the row is saved.
    pub(super) async fn announce(&self, row: &ServerRow, kind: ChangeKind) {
        self.publish(row.org_id.clone(), row.id.clone(), kind).await;
    }

    /// Tells the other replicas to run `kind` on their config-file server `name`.
    pub async fn announce_config(&self, name: &str, kind: ChangeKind) {
        let id = format!("{}{name}", servers::CONFIG_PREFIX);
        self.publish(String::new(), id, kind).await;
    }

    async fn publish(&self, org_id: String, server_id: String, kind: ChangeKind) {
        let change = Change {
            org_id,
            server_id,
            replica: self.replica.to_string(),
            kind,
        };
        if let Err(e) = self.store.publish_change(&change).await {
            tracing::warn!(server = %change.server_id, "cannot tell the other replicas: {e}");
        }
    }

    /// Brings this replica's registry in line with one stored server.
    pub async fn apply_change(&self, change: &Change) -> Result<(), ApiError> {
        if change.kind == ChangeKind::Policy {
            self.policy_changed(&change.org_id).await;
            return Ok(());
        }
        if change.kind == ChangeKind::Identity {
            self.org_issuers.forget(Some(&change.org_id));
            return Ok(());
        }
        if change.kind == ChangeKind::Grant {
            self.follow_grant(&change.server_id).await;
            return Ok(());
        }
        if let Some(name) = change.server_id.strip_prefix(servers::CONFIG_PREFIX) {
            super::operations::follow(&self.registry, name, change.kind).await;
            return Ok(());
        }
        let Some(mut row) = self.store.server(&change.org_id, &change.server_id).await? else {
            return Ok(());
        };
        let registry = self.org_registry(&row.org_id);
        if row.deleted_at.is_some() {
            registry.remove_server(&row.slug).await;
        } else if change.kind == ChangeKind::Rediscovered
            && registry.servers().iter().any(|s| s.name == row.slug)
        {
            registry.rediscover(&row.slug).await;
        } else {
            self.reconnect_stored(&mut row).await?;
        }
        Ok(())
    }

    /// Pins or an org's document changed (here, on another replica or from the CLI):
    /// read them again and review every catalogue.
    pub async fn policy_changed(&self, org_id: &str) {
        if !org_id.is_empty() {
            self.pipeline.forget_org(org_id);
        }
        if let Err(e) = self.pipeline.reload_pins().await {
            tracing::error!("cannot read the tool pins again: {e}");
        }
        self.review_all();
    }

    /// Reads every stored server again after notices may have been missed: connects the
    /// missing, removes the deleted. (Edits missed meanwhile arrive with the next refresh.)
    pub async fn resync(&self) -> Result<(), ApiError> {
        self.org_issuers.forget(None);
        for mut row in self.store.all_servers().await? {
            let registry = self.org_registry(&row.org_id);
            let present = registry.servers().iter().any(|s| s.name == row.slug);
            match (row.deleted_at.is_some(), present) {
                (true, true) => {
                    registry.remove_server(&row.slug).await;
                }
                (false, false) => self.reconnect_stored(&mut row).await?,
                _ => {}
            }
        }
        Ok(())
    }

    /// The refresh job: every live API server listed again; a changed offer is saved and
    /// announced so the other replicas list it again too.
    async fn refresh_all(&self) -> Result<usize, ApiError> {
        let mut changed = 0;
        for mut row in self.store.all_servers().await? {
            if row.deleted_at.is_some() {
                continue;
            }
            let registry = self.org_registry(&row.org_id);
            let Some(info) = registry.rediscover(&row.slug).await else {
                continue;
            };
            let differs = servers::record_outcome(&mut row, &registry, info);
            self.store.update_server(&row).await?;
            if differs {
                changed += 1;
                self.announce(&row, ChangeKind::Rediscovered).await;
            }
        }
        Ok(changed)
    }
}

/// Applies the other replicas' change notices until `shutdown`; nothing to do on SQLite.
pub async fn spawn_change_listener(
    state: ControlPlane,
    shutdown: CancellationToken,
) -> Result<Option<JoinHandle<()>>, ApiError> {
    let Some(mut listener) = state.store.listen_changes().await? else {
        return Ok(None);
    };
    tracing::info!(replica = %state.replica, "listening for other replicas' changes");
    Ok(Some(tokio::spawn(async move {
        loop {
            let heard = tokio::select! {
                () = shutdown.cancelled() => return,
                heard = listener.next() => heard,
            };
            let applied = match heard {
                Ok(Heard::Change(change)) if *change.replica == *state.replica => continue,
                Ok(Heard::Change(change)) => state.apply_change(&change).await.map(|()| {
                    tracing::info!(server = %change.server_id, kind = ?change.kind, from = %change.replica, "applied a change from another replica");
                }),
                Ok(Heard::Resync) => {
                    tracing::warn!("change notices may have been missed; reading every server again");
                    state.resync().await
                }
                Err(e) => {
                    // The connection broke in a way sqlx does not report as a reconnect, so
                    // notices may be lost: listen again on a new connection, then read every
                    // server (after LISTEN, so nothing falls between the two).
                    tracing::error!("change listener: {e}; listening again in 1 s");
                    match relisten(&state, &shutdown).await {
                        Some(again) => {
                            listener = again;
                            tracing::warn!("listening for changes again; reading every server again");
                            resync_until_done(&state, &shutdown).await;
                            Ok(())
                        }
                        None => return,
                    }
                }
            };
            if let Err(e) = applied {
                tracing::error!("cannot apply a change from another replica: {e:?}");
            }
        }
    })))
}

/// A new change listener, tried every second until one connects (`None`: shutting down, or
/// the store no longer offers notices).
async fn relisten(
    state: &ControlPlane,
    shutdown: &CancellationToken,
) -> Option<switchboard_store::ChangeListener> {
    loop {
        if !pause(shutdown).await {
            return None;
        }
        let listened = tokio::select! {
            () = shutdown.cancelled() => return None,
            listened = state.store.listen_changes() => listened,
        };
        match listened {
            Ok(listener) => return listener,
            Err(e) => tracing::debug!("change listener: cannot listen yet: {e}"),
        }
    }
}

/// Reads every server again, retried every second until it succeeds or `shutdown`: the
/// changes missed while the connection was down are only learned this way.
async fn resync_until_done(state: &ControlPlane, shutdown: &CancellationToken) {
    loop {
        match state.resync().await {
            Ok(()) => return,
            Err(e) => tracing::error!("cannot read every server again: {e:?}; retrying in 1 s"),
        }
        if !pause(shutdown).await {
            return;
        }
    }
}

/// Waits a second between tries; `false` when shutdown came first.
async fn pause(shutdown: &CancellationToken) -> bool {
    tokio::select! {
        () = shutdown.cancelled() => false,
        () = tokio::time::sleep(Duration::from_secs(1)) => true,
    }
}

/// Runs the scheduled jobs until `shutdown`: every replica ticks, the store lets exactly one
/// replica per interval run each job.
pub fn spawn_jobs(
    state: ControlPlane,
    options: JobOptions,
    shutdown: CancellationToken,
) -> JoinHandle<()> {
    let jobs: Vec<(&'static str, Duration)> = [
        (REFRESH_JOB, options.refresh_every),
        (
            PRUNE_JOB,
            (options.session_expiry / 12).max(Duration::from_secs(10)),
        ),
    ]
    .into_iter()
    .filter(|(_, every)| !every.is_zero())
    .collect();
    let tick = jobs
        .iter()
        .map(|(_, every)| *every / 4)
        .min()
        .unwrap_or(Duration::from_secs(60))
        .clamp(Duration::from_secs(1), Duration::from_secs(60));
    // Postgres replicas and the CLI announce approvals with a change notice; on SQLite none
    // reaches us, so approvals made by `switchboard tools approve` are polled for.
    if state.store.backend() != switchboard_store::Backend::Postgres {
        tokio::spawn(poll_pins(state.clone(), shutdown.clone()));
    }
    tokio::spawn(async move {
        loop {
            for (job, every) in &jobs {
                run_if_due(&state, job, *every, &options).await;
            }
            // Jitter keeps replicas started together from ticking in lockstep.
            let jitter = rand::rng().random_range(0..=tick.as_millis() as u64 / 10);
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(tick + Duration::from_millis(jitter)) => {}
            }
        }
    })
}

async fn run_if_due(state: &ControlPlane, job: &str, every: Duration, options: &JobOptions) {
    let every_ms = every.as_millis() as i64;
    match state.store.claim_job(job, every_ms, &state.replica).await {
        Ok(false) => {
            tracing::debug!(
                job,
                "scheduled job not due here (ran on a replica recently)"
            );
            return;
        }
        Ok(true) => {}
        Err(e) => {
            tracing::warn!(job, "cannot claim the scheduled job: {e}");
            return;
        }
    }
    let outcome = match job {
        REFRESH_JOB => state
            .refresh_all()
            .await
            .map(|n| format!("{n} server(s) changed")),
        _ => {
            let before = now_ms() - options.session_expiry.as_millis() as i64;
            // Authorization flows nobody finished (they expire long before).
            let flows_before =
                now_ms() - 4 * switchboard_upstream::auth::FLOW_LIFETIME.as_millis() as i64;
            let sessions = state.store.prune_sessions(before).await;
            let flows = state
                .store
                .prune_oauth_tokens(switchboard_upstream::auth::FLOW_KEY_PREFIX, flows_before)
                .await;
            // Audit rows past the retention, the cut recorded in the chain first.
            if let Some(retention) = options.audit_retention {
                let cutoff = now_ms() - retention.as_millis() as i64;
                match switchboard_store::cut_audit_before(
                    state.store.as_ref(),
                    &state.audit,
                    cutoff,
                )
                .await
                {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(
                        rows = n,
                        "audit rows past the retention deleted (the cut is recorded as audit.retention)"
                    ),
                    Err(e) => tracing::warn!("audit retention not applied: {e}"),
                }
            }
            // Input rounds their callers never answered, tasks past their upstream TTL.
            let rounds = state.store.prune_rounds().await;
            let tasks = state.store.prune_tasks().await;
            match (sessions, flows, rounds, tasks) {
                (Ok(s), Ok(f), Ok(r), Ok(t)) => Ok(format!(
                    "{s} old session(s), {f} unfinished authorization(s), {r} unanswered input round(s) and {t} expired task(s) forgotten"
                )),
                (Err(e), ..) | (_, Err(e), ..) | (_, _, Err(e), _) | (.., Err(e)) => {
                    Err(ApiError::from(e))
                }
            }
        }
    };
    match outcome {
        Ok(summary) => {
            tracing::info!(job, replica = %state.replica, "scheduled job ran here: {summary}")
        }
        Err(e) => tracing::warn!(job, "scheduled job failed: {e:?}"),
    }
}

/// Picks up tool approvals made by another process within `PIN_POLL` (SQLite only).
async fn poll_pins(state: ControlPlane, shutdown: CancellationToken) {
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(PIN_POLL) => {}
        }
        match state.pipeline.reload_pins().await {
            Ok(true) => state.review_all(),
            Ok(false) => {}
            Err(e) => tracing::debug!("cannot read the tool pins: {e}"),
        }
    }
}
