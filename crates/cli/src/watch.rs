//! Config reloads while serving: on SIGHUP (`systemctl reload`, `kill -HUP`) always, and with
//! `serve --watch` when the files change, once edits settle; an edit with problems is reported
//! and the running configuration kept.

use crate::args::Global;
use crate::setup;
use anyhow::Context;
use notify::{EventKind, RecursiveMode, Watcher};
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;
use switchboard_registry::Registry;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Edits closer together than this are one change (editors write, rename and touch).
const SETTLE: Duration = Duration::from_millis(300);

/// Starts watching `global`'s config files; the task ends at `shutdown`.
pub(crate) fn spawn(
    global: Global,
    registry: Registry,
    pipeline: switchboard_policy::Pipeline,
    shutdown: CancellationToken,
) -> anyhow::Result<JoinHandle<()>> {
    let files: HashSet<PathBuf> = setup::watched_paths(&global)
        .into_iter()
        .map(|p| std::path::absolute(&p).unwrap_or(p))
        .collect();
    let (tx, mut rx) = mpsc::channel::<()>(64);
    let watched = files.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        let edits = matches!(
            event.kind,
            EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
        );
        if edits && event.paths.iter().any(|p| watched.contains(p)) {
            let _ = tx.try_send(());
        }
    })
    .context("cannot watch the config files")?;
    // Watch the folders: editors replace a file by renaming a new one over it, which a watch
    // on the file itself would not survive.
    let folders: HashSet<PathBuf> = files
        .iter()
        .filter_map(|f| f.parent().map(PathBuf::from))
        .collect();
    for folder in &folders {
        watcher
            .watch(folder, RecursiveMode::NonRecursive)
            .with_context(|| format!("cannot watch {}", folder.display()))?;
    }
    tracing::info!(files = ?files, "watching the config files; edits are applied without a restart");
    Ok(tokio::spawn(async move {
        let _watcher = watcher;
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                event = rx.recv() => if event.is_none() { return },
            }
            while let Ok(Some(())) = tokio::time::timeout(SETTLE, rx.recv()).await {}
            reload(&global, &registry, &pipeline).await;
        }
    }))
}

/// Reads the config files again on each SIGHUP until `shutdown`.
#[cfg(unix)]
pub(crate) fn reload_on_hangup(
    global: Global,
    registry: Registry,
    pipeline: switchboard_policy::Pipeline,
    shutdown: CancellationToken,
) -> anyhow::Result<JoinHandle<()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut hangups = signal(SignalKind::hangup()).context("cannot listen for SIGHUP")?;
    Ok(tokio::spawn(async move {
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                hangup = hangups.recv() => if hangup.is_none() { return },
            }
            tracing::info!("SIGHUP: reading the config files again");
            reload(&global, &registry, &pipeline).await;
        }
    }))
}

async fn reload(global: &Global, registry: &Registry, pipeline: &switchboard_policy::Pipeline) {
    let config = match setup::load_config_if_any(global) {
        Ok(config) => config,
        Err(e) => {
            tracing::error!("config not reloaded; the running one stays: {e:#}");
            return;
        }
    };
    // The policy first, whole or not at all: a broken [policy] keeps the running one.
    let policy = crate::policy::operator_doc(&config).map_err(|problems| {
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    });
    match policy.and_then(|doc| {
        pipeline.set_operator(doc).map_err(|problems| {
            problems
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        })
    }) {
        Ok(()) => registry.review_again(),
        Err(e) => {
            tracing::error!(
                "config not reloaded; the running one stays: the policy has problems: {e}"
            );
            return;
        }
    }
    let servers = registry.apply_config(&config).await;
    let names: Vec<String> = servers
        .iter()
        .map(|s| format!("{} ({})", s.name, s.status))
        .collect();
    tracing::info!("config reloaded: {}", names.join(", "));
}
