//! The one guard every tool call passes: what the registry asks the policy pipeline at list
//! time, at discovery and at call time, and the verdicts that land in the audit row.

use crate::{ActionId, CallError, Caller, ServerSlug};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;

/// A boxed future, so the guard stays object-safe without an async runtime in core.
pub type GuardFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Who declared a registry's servers, and so who owns their pins and rules.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "org")]
pub enum Owner {
    /// The operator's config-file servers (shared by every org).
    #[default]
    Operator,
    /// An org's servers connected through the REST API.
    Org(String),
}

impl Owner {
    /// `operator` or `org:<id>`: the key pins and rate limits are kept under.
    pub fn key(&self) -> String {
        match self {
            Owner::Operator => "operator".into(),
            Owner::Org(id) => format!("org:{id}"),
        }
    }

    /// The org's id, `None` for the operator.
    pub fn org_id(&self) -> Option<&str> {
        match self {
            Owner::Operator => None,
            Owner::Org(id) => Some(id),
        }
    }
}

/// One tool as the guard sees it.
#[derive(Debug, Clone, Copy)]
pub struct ToolRef<'a> {
    pub owner: &'a Owner,
    pub server: &'a ServerSlug,
    /// The upstream tool name.
    pub tool: &'a str,
    pub action: &'a ActionId,
}

/// Whether a caller may see a tool at list time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Visibility {
    Visible,
    /// Hidden by configuration (allowlists, an agent's server list): neither listed nor
    /// callable, and calls answer `tool_not_found` so its existence is not revealed.
    Hidden,
    /// Not listed, and calls answer `policy_denied` with this reason (a disabled agent
    /// action, a quarantined tool).
    Denied(String),
}

/// What discovery decided about one tool definition.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Review {
    /// `None`: exposed. `Some(reason)`: kept out of lists and calls until approved.
    pub quarantined: Option<String>,
    /// Dropped outright (never exposed, not approvable from here).
    pub dropped: Option<String>,
    /// Scanner findings worth showing (rule ids with severity), even when exposed.
    pub findings: Vec<String>,
}

/// One call about to be made.
#[derive(Debug, Clone, Copy)]
pub struct CallContext<'a> {
    pub tool: ToolRef<'a>,
    pub caller: &'a Caller,
    pub end_user: Option<&'a str>,
    pub arguments: Option<&'a Map<String, Value>>,
    /// Why discovery quarantined the tool, if it did (the guard refuses it after its
    /// visibility check, so a hidden tool still answers as unknown).
    pub quarantined: Option<&'a str>,
}

/// How a stage's rule was applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Enforce,
    /// Recorded, never applied: what would have happened.
    Observe,
}

/// What a stage did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    Allow,
    Deny,
    /// An external evaluator was asked (its answer is in the reason).
    Verify,
    /// A rate limit refused the call.
    Limit,
    /// Something worth recording that changes nothing (findings, taint).
    Note,
}

/// One stage's verdict on one call: what lands in the audit row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub stage: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    pub effect: Effect,
    pub mode: Mode,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Verdict {
    pub fn new(stage: &str, effect: Effect) -> Self {
        Self {
            stage: stage.into(),
            rule: None,
            effect,
            mode: Mode::Enforce,
            reason: None,
        }
    }
    pub fn rule(mut self, rule: impl Into<String>) -> Self {
        self.rule = Some(rule.into());
        self
    }
    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
    pub fn observed(mut self) -> Self {
        self.mode = Mode::Observe;
        self
    }
}

/// The guard's answer before a call: the verdicts so far, and whether it may go ahead.
#[derive(Debug, Clone, Default)]
pub struct Admission {
    pub verdicts: Vec<Verdict>,
    /// `Some`: refused, with this error (`policy_denied`, `rate_limited`, `tool_not_found`).
    pub refused: Option<CallError>,
}

impl Admission {
    pub fn allowed(verdicts: Vec<Verdict>) -> Self {
        Self {
            verdicts,
            refused: None,
        }
    }
    pub fn refused(verdicts: Vec<Verdict>, error: CallError) -> Self {
        Self {
            verdicts,
            refused: Some(error),
        }
    }
}

/// The policy pipeline as the registry sees it (implemented by `switchboard-policy`), so
/// the registry depends on neither policy nor store.
pub trait CallGuard: Send + Sync + 'static {
    /// Decides, at discovery, what happens to each tool of one server: `tools` are the
    /// upstream definitions as JSON. Returns one review per tool, in order. Runs whenever
    /// the catalogue is rebuilt: implementations cache by definition.
    /// `launch` is the server's [`crate::ServerSpec::launch_hash`].
    fn review(
        &self,
        owner: &Owner,
        server: &ServerSlug,
        launch: &str,
        tools: &[&Value],
    ) -> Vec<Review>;

    /// List time: which of `tools` the caller sees (one answer per tool, in order).
    fn visibility<'a>(
        &'a self,
        caller: &'a Caller,
        tools: &'a [ToolRef<'a>],
    ) -> GuardFuture<'a, Vec<Visibility>>;

    /// Whether the caller sees a server at all (its resources, prompts and completions
    /// follow it). By default: the visibility of a tool no allowlist names.
    fn server_visibility<'a>(
        &'a self,
        caller: &'a Caller,
        owner: &'a Owner,
        server: &'a ServerSlug,
    ) -> GuardFuture<'a, Visibility> {
        Box::pin(async move {
            let action = ActionId::new(server, "*");
            let probe = [ToolRef {
                owner,
                server,
                tool: "*",
                action: &action,
            }];
            let seen = self.visibility(caller, &probe).await;
            seen.into_iter().next().unwrap_or(Visibility::Visible)
        })
    }

    /// Call time, before the call leaves: visibility, rules, verification, information
    /// flow and rate limits.
    fn admit<'a>(&'a self, call: CallContext<'a>) -> GuardFuture<'a, Admission>;

    /// After the upstream answered (`ok`: a result that is not an error); `result` is the
    /// answer as JSON when the guard asked for it ([`CallGuard::wants_results`]). Returns
    /// verdicts to add to the audit row (taint recorded, findings in the result).
    fn finished<'a>(
        &'a self,
        call: CallContext<'a>,
        ok: bool,
        result: Option<&'a Value>,
    ) -> GuardFuture<'a, Vec<Verdict>>;

    /// Whether [`CallGuard::finished`] needs the result as JSON (result scanning on).
    fn wants_results(&self) -> bool {
        false
    }

    /// `server` is gone from `owner`'s registry: what discovery taught about it may go
    /// (approved pins stay: they are the operator's decisions, kept in the store).
    fn forget_server(&self, _owner: &Owner, _server: &ServerSlug) {}

    /// The tools mode the policy sets for this caller (an agent's `tools_mode`), if any; it
    /// overrides the endpoint's.
    fn tools_mode<'a>(&'a self, _caller: &'a Caller) -> GuardFuture<'a, Option<crate::ToolsMode>> {
        Box::pin(async { None })
    }
}

impl std::fmt::Debug for dyn CallGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<call guard>")
    }
}
