//! The control plane's pieces for commands that need them: store, key ring, audit writer.

use crate::args::Global;
use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;
use switchboard_store::{
    AuditOptions, AuditWriter, AuditWriterTask, Chain, Durability, HeadFile, Sealer, SqlStore,
};

pub(crate) struct Control {
    pub store: Arc<SqlStore>,
    pub sealer: Arc<Sealer>,
    /// The audit chain's checkpoint file (SQLite stores: in the data folder, beside the
    /// master key file, also for a `--database-url sqlite://…`).
    pub head_file: Option<HeadFile>,
    /// End users' grants: one cache for the registry's calls and the REST API.
    pub grants: switchboard_server::StoredGrants,
    /// `serve`'s additions to sandboxed servers' egress proxies (its listen address, audited
    /// refusals); other commands log refusals.
    pub sandbox_net: Option<crate::sandbox_cmds::SandboxNet>,
}

pub(crate) fn key_file(global: &Global) -> PathBuf {
    global.data.join("master.key")
}

impl Control {
    pub(crate) async fn open(global: &Global) -> anyhow::Result<Self> {
        let store = match &global.database_url {
            Some(url) => SqlStore::open(url).await,
            None => SqlStore::open_sqlite(&global.data).await,
        }
        .context("cannot open the store; check --data or --database-url")?;
        let master = std::env::var("SWITCHBOARD_MASTER_KEY").ok();
        let sealer = Sealer::load(master.as_deref(), &key_file(global))
            .context("cannot load the master key")?;
        let sqlite = (global.database_url.as_deref()).is_none_or(|url| url.starts_with("sqlite:"));
        let head_file = sqlite.then(|| HeadFile::new(global.data.join("audit.head")));
        let (store, sealer) = (Arc::new(store), Arc::new(sealer));
        Ok(Self {
            grants: switchboard_server::StoredGrants::new(store.clone(), sealer.clone()),
            store,
            sealer,
            head_file,
            sandbox_net: None,
        })
    }

    /// Writes one audit row (a control-plane change made at the CLI) and waits until it is
    /// committed. The config's `[audit]` settings are about calls failing closed, so the
    /// defaults serve: no config file is read for it.
    pub(crate) async fn record(&self, entry: switchboard_store::AuditEntry) {
        let (audit, task) = self.audit(&switchboard_config::AuditSettings::default());
        audit.record_now(entry);
        task.finish().await;
    }

    pub(crate) fn chain(&self) -> Chain {
        Chain::new(self.sealer.audit_key())
    }

    /// Discovery snapshots in the store (lazy stdio servers list their tools from these).
    pub(crate) fn snapshots(&self) -> Arc<dyn switchboard_registry::SnapshotCache> {
        Arc::new(switchboard_server::StoreSnapshots(self.store.clone()))
    }

    /// Starts the audit writer (group commit) as `[audit]` asks.
    pub(crate) fn audit(
        &self,
        settings: &switchboard_config::AuditSettings,
    ) -> (AuditWriter, AuditWriterTask) {
        let mut options = AuditOptions::default();
        if settings.strict == Some(true) {
            options = options.with_durability(Durability::Strict);
        }
        if let Some(queue) = settings.queue {
            options = options.with_queue(queue);
        }
        if let Some(ms) = settings.strict_wait_ms {
            options = options.with_strict_wait(std::time::Duration::from_millis(ms as u64));
        }
        if let Some(file) = &self.head_file {
            options = options.with_head_file(file.clone());
        }
        AuditWriter::start_with(self.store.clone(), self.chain(), options)
    }
}
