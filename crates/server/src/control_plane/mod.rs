//! What every face of the gateway shares: the control plane (the config registry, the store,
//! the sealer, the audit writer, the orgs' registries and the policy pipeline), who holds an
//! API token, and what the registry keeps in the store.

pub(crate) mod callers;
pub(crate) mod consent_flows;
pub(crate) mod consents;
pub(crate) mod end_users;
mod error;
pub(crate) mod grants;
pub(crate) mod org_issuers;
pub(crate) mod people;
pub(crate) mod snapshots;
pub mod tenancy;
pub(crate) mod tokens;

pub use error::ApiError;
use std::sync::Arc;
use switchboard_registry::{ExposedTool, Registry};
use switchboard_store::{AuditWriter, Sealer, Store};

/// What the MCP endpoints, the REST API and the admin routes share.
#[derive(Clone)]
pub struct ControlPlane {
    /// The gateway's registry (config servers); org registries are made as its siblings.
    pub registry: Registry,
    pub store: Arc<dyn Store>,
    pub sealer: Arc<Sealer>,
    pub audit: AuditWriter,
    pub orgs: OrgRegistries,
    /// Names this process among replicas (change notices it sent itself are skipped).
    pub replica: Arc<str>,
    /// The policy pipeline every registry's calls pass.
    pub pipeline: switchboard_policy::Pipeline,
    /// The issuers orgs configured over REST, per org.
    pub org_issuers: org_issuers::OrgIssuers,
    /// The public URL and the operator's issuers, whose access tokens the REST API takes.
    pub(crate) resource: Option<crate::edge::identity::ResourceServer>,
    /// Cancelled when the listener shuts down: streams that only listen end with it.
    pub(crate) shutdown: tokio_util::sync::CancellationToken,
    /// End users' credentials for per-end-user servers, sealed in the store.
    pub grants: grants::StoredGrants,
}

/// Where a server was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Connected through the REST API by an org.
    Api,
    /// Declared by the operator in a config file.
    Config,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Api => "api",
            Source::Config => "config",
        }
    }
}

/// One registry per org for the servers it connected through the API, so slugs and tools of
/// different orgs never meet.
#[derive(Clone, Default)]
pub struct OrgRegistries {
    map: Arc<switchboard_sync::Mutex<std::collections::HashMap<String, Registry>>>,
    /// Told about each org's registry as it is made (the status watch of `/metrics`).
    on_new: Arc<std::sync::OnceLock<NewRegistryHook>>,
}

/// What is run on each org's registry as it is made.
pub(crate) type NewRegistryHook = Arc<dyn Fn(&Registry) + Send + Sync>;

impl OrgRegistries {
    pub fn get(&self, base: &Registry, org_id: &str) -> Registry {
        let mut map = self.map.lock();
        map.entry(org_id.to_string())
            .or_insert_with(|| {
                let made = base.sibling(switchboard_core::Owner::Org(org_id.to_string()));
                if let Some(hook) = self.on_new.get() {
                    hook(&made);
                }
                made
            })
            .clone()
    }

    /// Runs `hook` on every org's registry, those there now and each one made later; set once
    /// (a second hook is refused and returned).
    pub(crate) fn on_each(&self, hook: NewRegistryHook) -> Result<(), NewRegistryHook> {
        let map = self.map.lock();
        self.on_new.set(hook.clone())?;
        for registry in map.values() {
            hook(registry);
        }
        Ok(())
    }

    /// Runs `visit` on every org's registry, under the map's lock (nothing is cloned).
    pub(crate) fn for_each(&self, mut visit: impl FnMut(&Registry)) {
        self.map.lock().values().for_each(&mut visit);
    }

    /// Every org's registry.
    pub fn all(&self) -> Vec<Registry> {
        let map = self.map.lock();
        map.values().cloned().collect()
    }

    /// The org whose registry serves `name` declared as `origin` (an API row).
    pub fn org_serving(&self, name: &str, origin: &str) -> Option<String> {
        let map = self.map.lock();
        map.iter()
            .find(|(_, registry)| registry.server(name).is_some_and(|s| s.origin == origin))
            .map(|(org, _)| org.clone())
    }

    /// Stops every org's servers.
    pub async fn shutdown(&self) {
        let all: Vec<Registry> = self.map.lock().values().cloned().collect();
        for registry in all {
            registry.shutdown().await;
        }
    }
}

impl ControlPlane {
    pub fn new(
        registry: Registry,
        store: Arc<dyn Store>,
        sealer: Arc<Sealer>,
        audit: AuditWriter,
    ) -> Self {
        // Agent toggles and every other check live in the pipeline: a registry built
        // without one gets the default (no rules), so the REST API never runs unguarded.
        let pipeline = switchboard_policy::Pipeline::new(
            switchboard_policy::PipelineOptions::new(Default::default(), registry.http().clone())
                .with_store(store.clone())
                .with_audit(audit.clone()),
        )
        .unwrap_or_else(|_| unreachable!("an empty policy always compiles"));
        if registry.guard().is_none() {
            registry.set_guard(Arc::new(pipeline.clone()));
        }
        let fetcher = switchboard_identity::Fetcher::new(registry.http().policy().clone());
        let replica: Arc<str> = switchboard_store::new_id("replica").into();
        let grants = grants::StoredGrants::new(store.clone(), sealer.clone());
        grants.report_to(audit.clone(), replica.clone());
        Self {
            grants,
            pipeline,
            org_issuers: org_issuers::OrgIssuers::new(fetcher),
            resource: None,
            registry,
            store,
            sealer,
            audit,
            orgs: OrgRegistries::default(),
            replica,
            shutdown: Default::default(),
        }
    }

    /// The control plane of a listener whose public URL and issuers are `resource`.
    pub(crate) fn with_resource(
        mut self,
        resource: Option<crate::edge::identity::ResourceServer>,
    ) -> Self {
        // Consent links need somewhere people sign in: a public URL and an issuer's sign-in.
        if let Some(resource) = &resource
            && !resource.issuers().sign_in_issuers().is_empty()
        {
            self.grants.offer_consent_at(resource.public_url());
        }
        self.resource = resource;
        self
    }

    /// The control plane of a listener that shuts down with `shutdown`.
    pub(crate) fn closing_with(mut self, shutdown: tokio_util::sync::CancellationToken) -> Self {
        self.shutdown = shutdown;
        self
    }

    /// The end users' grants the registry reads (one cache, and consent links made where
    /// the registry makes them).
    pub fn with_grants(mut self, grants: grants::StoredGrants) -> Self {
        grants.report_to(self.audit.clone(), self.replica.clone());
        self.grants = grants;
        self
    }

    /// The pipeline the registry was built with (its pins, org documents and approvals).
    pub fn with_pipeline(mut self, pipeline: switchboard_policy::Pipeline) -> Self {
        self.pipeline = pipeline;
        self
    }

    /// Reviews every catalogue again (pins approved, a policy changed).
    pub fn review_all(&self) {
        self.registry.review_again();
        for registry in self.orgs.all() {
            registry.review_again();
        }
    }

    /// The registries `org_id` reaches, each with its source: its own API servers, then the
    /// operator's config-file servers.
    pub fn registries_of(&self, org_id: &str) -> [(Registry, Source); 2] {
        [
            (self.org_registry(org_id), Source::Api),
            (self.registry.clone(), Source::Config),
        ]
    }

    /// The tools an agent of `org_id` may be given: the org's API servers, then the
    /// operator's config-file servers.
    pub fn agent_tools(&self, org_id: &str) -> Vec<(ExposedTool, Source)> {
        (self.registries_of(org_id).into_iter())
            .flat_map(|(registry, source)| registry.tools().into_iter().map(move |t| (t, source)))
            .collect()
    }

    /// The registry serving `action_id` for `org_id`, and the tool's exposed name there.
    pub fn find_action(&self, org_id: &str, action_id: &str) -> Option<(Registry, String)> {
        (self.registries_of(org_id).into_iter()).find_map(|(registry, _)| {
            let exposed = registry
                .catalog()
                .tools
                .iter()
                .find(|t| t.action_id.as_str() == action_id)?
                .exposed_name
                .clone();
            Some((registry, exposed))
        })
    }

    /// The registry of `org_id`'s API-connected servers.
    pub fn org_registry(&self, org_id: &str) -> Registry {
        self.orgs.get(&self.registry, org_id)
    }

    /// Connects every live API server found in the store (at start-up), concurrently.
    pub async fn load_servers(&self) -> Result<usize, ApiError> {
        if let Err(e) = self.pipeline.load().await {
            tracing::error!("cannot read the tool pins: {e}");
        }
        let rows: Vec<_> = self
            .store
            .all_servers()
            .await?
            .into_iter()
            .filter(|r| r.deleted_at.is_none())
            .collect();
        let count = rows.len();
        futures::future::join_all(
            rows.into_iter()
                .map(|mut row| async move { self.reconnect_and_record(&mut row).await }),
        )
        .await;
        Ok(count)
    }
}
