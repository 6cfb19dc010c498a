//! The policy pipeline every call passes: visibility (allowlists, agent server lists,
//! toggles), rules (allow, deny, verify; enforce or observe), information-flow control,
//! rate limits; and, at discovery, the poisoning scan and rug-pull pins. The registry sees
//! it through core's [`CallGuard`].

#![forbid(unsafe_code)]

mod admin;
mod calls;
mod compiled;
/// The policy document and its pipeline-free parts (its own crate, so it can be fuzzed).
pub use switchboard_policy_doc as doc;
pub mod ifc;
pub mod pins;
pub mod ratelimit;
mod review;
pub mod rules;

pub use admin::{Approval, ApproveError, PendingChange};
pub use compiled::Compiled;
pub use doc::{DocProblem, PolicyDoc};
pub use review::ReviewSettings;

use ifc::{Labels, TaintBook};
use ratelimit::{Limiter, LocalLimiter, StoreLimiter};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use switchboard_core::{
    ActionId, Admission, CallContext, CallGuard, Caller, GuardFuture, Owner, Review, ServerSlug,
    ToolRef, ToolsMode, Verdict, Visibility,
};
use switchboard_store::{AuditWriter, Store};
use switchboard_sync::{Mutex, RwLock};
use switchboard_upstream::UpstreamHttp;

/// Each action's argument names (from its input schema), for rule warnings.
type ArgumentNames = HashMap<String, Vec<String>>;

/// What a pipeline is built from.
#[derive(Clone)]
#[non_exhaustive]
pub struct PipelineOptions {
    /// The operator's document (switchboard.toml `[policy]`).
    pub operator: PolicyDoc,
    /// Pins, taint, org documents, agent toggles and (on Postgres) rate-limit cells.
    pub store: Option<Arc<dyn Store>>,
    /// Where quarantines and approvals are audited.
    pub audit: Option<AuditWriter>,
    /// Webhook evaluators go through it (egress-checked).
    pub http: UpstreamHttp,
}

impl PipelineOptions {
    pub fn new(operator: PolicyDoc, http: UpstreamHttp) -> Self {
        Self {
            operator,
            store: None,
            audit: None,
            http,
        }
    }
    pub fn with_store(mut self, store: Arc<dyn Store>) -> Self {
        self.store = Some(store);
        self
    }
    pub fn with_audit(mut self, audit: AuditWriter) -> Self {
        self.audit = Some(audit);
        self
    }
}

/// The pipeline. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Pipeline {
    inner: Arc<Inner>,
}

struct Inner {
    operator: RwLock<Arc<Compiled>>,
    /// Org documents read from the store, kept until a change notice.
    orgs: RwLock<HashMap<String, Arc<Compiled>>>,
    reviewer: review::Reviewer,
    limiter: Arc<dyn Limiter>,
    taint: TaintBook,
    http: UpstreamHttp,
    store: Option<Arc<dyn Store>>,
    /// Annotation labels by `owner|action`, recorded at discovery.
    annotations: RwLock<HashMap<String, Labels>>,
    /// Servers and tool argument names seen, by owner, for rule warnings.
    known: RwLock<HashMap<String, HashMap<String, ArgumentNames>>>,
    warned: Mutex<HashSet<String>>,
    /// Confusable skeletons of tool names seen, computed once per name.
    skeletons: Mutex<HashMap<String, String>>,
}

impl Pipeline {
    /// Checks and compiles the operator's document; every problem is reported.
    pub fn new(options: PipelineOptions) -> Result<Self, Vec<DocProblem>> {
        let doc = options.operator;
        let settings = ReviewSettings::from_doc(doc.scan.as_ref(), doc.pinning);
        let fallback = match doc.on_store_error {
            Some(doc::StoreErrorMode::Local) => Some(doc.replicas.unwrap_or(1)),
            _ => None,
        };
        let compiled = Compiled::compile(doc)?;
        // Postgres: exact across replicas, one statement per limited call. SQLite: in this
        // process (a write transaction per limited call would cost more than the call; the
        // serving process is the one that counts).
        let limiter: Arc<dyn Limiter> = match &options.store {
            Some(store) if store.backend() == switchboard_store::Backend::Postgres => {
                Arc::new(StoreLimiter::new(store.clone(), fallback))
            }
            _ => Arc::new(LocalLimiter::default()),
        };
        let policy_store = options
            .store
            .clone()
            .map(|s| s as Arc<dyn switchboard_store::PolicyStore>);
        let shared = options
            .store
            .as_ref()
            .is_some_and(|s| s.backend() == switchboard_store::Backend::Postgres);
        let reviewer = review::Reviewer::new(policy_store.clone(), options.audit);
        *reviewer.settings.write() = settings;
        Ok(Self {
            inner: Arc::new(Inner {
                operator: RwLock::new(Arc::new(compiled)),
                orgs: RwLock::default(),
                reviewer,
                limiter,
                taint: TaintBook::new(policy_store, shared),
                http: options.http,
                store: options.store,
                annotations: RwLock::default(),
                known: RwLock::default(),
                warned: Mutex::default(),
                skeletons: Mutex::default(),
            }),
        })
    }

    /// Reads the pins from the store (call before servers are discovered).
    pub async fn load(&self) -> Result<usize, String> {
        let Some(store) = &self.inner.store else {
            return Ok(0);
        };
        let pins = store.pins(None).await.map_err(|e| e.to_string())?;
        let count = pins.len();
        // The store wins; pins taken here meanwhile and not yet saved stay.
        for pin in pins {
            self.inner.reviewer.book.put(pin);
        }
        Ok(count)
    }

    /// The operator's compiled set.
    pub fn operator(&self) -> Arc<Compiled> {
        self.inner.operator.read().clone()
    }

    /// Replaces the operator's document (a config reload), keeping the old one on error.
    pub fn set_operator(&self, doc: PolicyDoc) -> Result<(), Vec<DocProblem>> {
        let settings = ReviewSettings::from_doc(doc.scan.as_ref(), doc.pinning);
        let compiled = Compiled::compile(doc)?;
        *self.inner.operator.write() = Arc::new(compiled);
        *self.inner.reviewer.settings.write() = settings;
        Ok(())
    }

    /// The org's compiled set, read from the store on first use. `Err` when it cannot be
    /// read or does not compile: the caller fails closed (never "no org rules").
    async fn org(&self, org: Option<&str>) -> Result<Option<Arc<Compiled>>, String> {
        let Some(org) = org else { return Ok(None) };
        if let Some(hit) = self.inner.orgs.read().get(org) {
            return Ok(Some(hit.clone()).filter(|c| !c.is_empty()));
        }
        let doc = self
            .read_org_doc(org)
            .await
            .map_err(|e| format!("the org's policy cannot be read: {e}"))?;
        let compiled = Compiled::compile(doc).map_err(|problems| {
            let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
            format!(
                "the org's stored policy does not compile: {}",
                text.join("; ")
            )
        })?;
        let compiled = Arc::new(compiled);
        self.inner
            .orgs
            .write()
            .insert(org.to_string(), compiled.clone());
        Ok(Some(compiled).filter(|c| !c.is_empty()))
    }

    /// Forgets a cached org document (after a change here or on another replica).
    pub fn forget_org(&self, org: &str) {
        self.inner.orgs.write().remove(org);
    }

    fn labels(&self, tool: &ToolRef<'_>, compiled: &Compiled) -> Labels {
        let key = format!("{}|{}", tool.owner.key(), tool.action);
        let defaults = self
            .inner
            .annotations
            .read()
            .get(&key)
            .copied()
            .unwrap_or_default();
        compiled.flow.labels(tool.action.as_str(), defaults)
    }

    /// The rule sets that apply to `caller`: the operator's, then its org's.
    async fn sets(&self, caller: &Caller) -> Result<Vec<Arc<Compiled>>, String> {
        let mut sets = vec![self.operator()];
        if let Some(org) = self.org(caller.org_id.as_deref()).await? {
            sets.push(org);
        }
        Ok(sets)
    }

    /// The actions enabled for the caller's agent, when toggles apply (an agent of an org).
    async fn toggles(&self, caller: &Caller) -> Result<Option<HashSet<String>>, String> {
        let (Some(org), Some(agent), Some(store)) =
            (&caller.org_id, &caller.agent_id, &self.inner.store)
        else {
            return Ok(None);
        };
        let enabled = store
            .enabled_actions(org, agent)
            .await
            .map_err(|e| e.to_string())?;
        Ok(Some(enabled.into_iter().collect()))
    }

    fn visibility_of(
        sets: &[Arc<Compiled>],
        toggles: &Option<HashSet<String>>,
        caller: &Caller,
        tool: &ToolRef<'_>,
    ) -> Visibility {
        let mut seen = Visibility::Visible;
        for set in sets {
            match set.visibility(caller, tool) {
                Visibility::Hidden => return Visibility::Hidden,
                Visibility::Denied(r) if seen == Visibility::Visible => {
                    seen = Visibility::Denied(r)
                }
                _ => {}
            }
        }
        if seen == Visibility::Visible
            && let Some(enabled) = toggles
            && !enabled.contains(tool.action.as_str())
        {
            let agent = caller.agent_id.as_deref().unwrap_or_default();
            return Visibility::Denied(format!(
                "{} is not enabled for agent {agent}; enable it with PUT /api/agents/{agent}/actions/{}",
                tool.action, tool.action
            ));
        }
        seen
    }

    fn skeleton(&self, name: &str) -> String {
        let mut cache = self.inner.skeletons.lock();
        if cache.len() > 100_000 {
            cache.clear();
        }
        cache
            .entry(name.to_string())
            .or_insert_with(|| switchboard_scan::name_skeleton(name))
            .clone()
    }

    /// Skeletons of every other server's tool names (all owners): (server, tool) by skeleton.
    /// The owner's tools on its other servers, by lower-case name: `server.tool`.
    fn other_servers_tools(&self, owner: &Owner, server: &ServerSlug) -> HashMap<String, String> {
        let (owner_key, server) = (owner.key(), server.as_str());
        let known = self.inner.known.read();
        let mut out = HashMap::new();
        for (s, actions) in known.get(&owner_key).into_iter().flatten() {
            if s == server {
                continue;
            }
            for action in actions.keys() {
                if let Some((_, tool)) = switchboard_core::ActionId::parse(action) {
                    out.entry(tool.to_lowercase())
                        .or_insert_with(|| format!("{s}.{tool}"));
                }
            }
        }
        out
    }

    fn lookalike_index(
        &self,
        owner: &Owner,
        server: &ServerSlug,
    ) -> HashMap<String, (String, String)> {
        let (owner_key, server) = (owner.key(), server.as_str());
        let known = self.inner.known.read();
        let mut index = HashMap::new();
        for (o, servers) in known.iter() {
            for (s, actions) in servers {
                if *o == owner_key && s == server {
                    continue;
                }
                for action in actions.keys() {
                    let Some((_, tool)) = switchboard_core::ActionId::parse(action) else {
                        continue;
                    };
                    index
                        .entry(self.skeleton(&tool))
                        .or_insert((s.clone(), tool));
                }
            }
        }
        index
    }

    /// Records what discovery taught (labels, argument names) and warns once about rules
    /// naming servers or fields nobody offers.
    fn learn(&self, owner: &Owner, server: &ServerSlug, tools: &[&Value]) {
        let owner_key = owner.key();
        let mut fields = HashMap::new();
        {
            let mut annotations = self.inner.annotations.write();
            for tool in tools {
                let Some(name) = tool.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let action = switchboard_core::ActionId::new(server, name);
                annotations.insert(
                    format!("{owner_key}|{action}"),
                    Labels::from_annotations(tool.get("annotations")),
                );
                let props = tool
                    .pointer("/inputSchema/properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                fields.insert(action.to_string(), props);
            }
        }
        let mut known = self.inner.known.write();
        let servers = known.entry(owner_key).or_default();
        servers.insert(server.to_string(), fields);
        let names: Vec<&str> = servers.keys().map(String::as_str).collect();
        let lookup = |action: &str| servers.values().find_map(|f| f.get(action).cloned());
        let warnings = self.operator().rules.lint(&names, &lookup);
        let mut warned = self.inner.warned.lock();
        for w in warnings {
            if warned.insert(w.clone()) {
                tracing::warn!("policy: {w}");
            }
        }
    }
}

impl CallGuard for Pipeline {
    fn review(
        &self,
        owner: &Owner,
        server: &ServerSlug,
        launch: &str,
        tools: &[&Value],
    ) -> Vec<Review> {
        self.learn(owner, server, tools);
        let index = self.lookalike_index(owner, server);
        let elsewhere = |name: &str| {
            let mine = self.skeleton(name);
            index
                .get(&mine)
                .filter(|(_, other)| !other.eq_ignore_ascii_case(name))
                .map(|(server, other)| format!("{server}.{other}"))
        };
        let siblings = self.other_servers_tools(owner, server);
        let lookup = |word: &str| siblings.get(&word.to_lowercase()).cloned();
        // A lone server has no other tools to name: its definitions are not read again.
        let mentions = (!siblings.is_empty()).then_some(&lookup as &review::NameLookup<'_>);
        self.inner
            .reviewer
            .review(owner, server, launch, tools, &elsewhere, mentions)
    }

    /// A server is seen when its rule sets and the agent's server list allow it; an agent's
    /// per-action toggles are about tools, not about the server's resources and prompts.
    fn server_visibility<'a>(
        &'a self,
        caller: &'a Caller,
        owner: &'a Owner,
        server: &'a ServerSlug,
    ) -> GuardFuture<'a, Visibility> {
        Box::pin(async move {
            let sets = match self.sets(caller).await {
                Ok(sets) => sets,
                Err(e) => return Visibility::Denied(e),
            };
            let action = ActionId::new(server, "*");
            let probe = ToolRef {
                owner,
                server,
                tool: "*",
                action: &action,
            };
            Self::visibility_of(&sets, &None, caller, &probe)
        })
    }

    fn visibility<'a>(
        &'a self,
        caller: &'a Caller,
        tools: &'a [ToolRef<'a>],
    ) -> GuardFuture<'a, Vec<Visibility>> {
        Box::pin(async move {
            let sets = match self.sets(caller).await {
                Ok(sets) => sets,
                Err(e) => {
                    tracing::error!("{e}; the org's tools are hidden until it can be read");
                    return vec![Visibility::Denied(e); tools.len()];
                }
            };
            let toggles = self.toggles(caller).await.unwrap_or_else(|e| {
                tracing::error!("cannot read the agent's enabled actions: {e}");
                Some(HashSet::new())
            });
            tools
                .iter()
                .map(|t| Self::visibility_of(&sets, &toggles, caller, t))
                .collect()
        })
    }

    fn admit<'a>(&'a self, call: CallContext<'a>) -> GuardFuture<'a, Admission> {
        Box::pin(self.admit_call(call))
    }

    fn finished<'a>(
        &'a self,
        call: CallContext<'a>,
        ok: bool,
        result: Option<&'a Value>,
    ) -> GuardFuture<'a, Vec<Verdict>> {
        Box::pin(self.after_call(call, ok, result))
    }

    fn wants_results(&self) -> bool {
        self.scans_calls()
    }

    fn tools_mode<'a>(&'a self, caller: &'a Caller) -> GuardFuture<'a, Option<ToolsMode>> {
        Box::pin(async move {
            let agent = caller.agent_id.as_deref()?;
            // The org's document (last) wins over the operator's.
            let sets = self.sets(caller).await.ok()?;
            sets.iter()
                .rev()
                .find_map(|set| set.doc.agents.get(agent)?.tools_mode)
        })
    }

    fn forget_server(&self, owner: &Owner, server: &ServerSlug) {
        let owner_key = owner.key();
        let prefix = format!(
            "{owner_key}|{}",
            switchboard_core::ActionId::new(server, "")
        );
        (self.inner.annotations.write()).retain(|key, _| !key.starts_with(&prefix));
        let mut known = self.inner.known.write();
        if let Some(servers) = known.get_mut(&owner_key) {
            servers.remove(server.as_str());
        }
    }
}
