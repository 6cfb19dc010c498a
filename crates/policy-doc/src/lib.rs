//! The policy document: one shape for switchboard.toml's `[policy]` and the REST API's
//! `/api/policy`, checked whole so every problem names its field and the fix; with the parts
//! that compile without the pipeline (action globs, argument predicates, rates).

#![forbid(unsafe_code)]

mod glob;
mod predicate;

pub use glob::Glob;
pub use predicate::{Predicate, Test};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Everything a rule set says. Missing keys keep their defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyDoc {
    /// `enforce` (default) or `observe`: record what would be refused and let it through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<RuleMode>,
    /// What a call no `allow` rule matches gets: `allow` (default) or `deny`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<DefaultEffect>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleDoc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rate_limits: Vec<RateLimitDoc>,
    /// Per agent: the servers it may see (all when the agent is not listed).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub agents: BTreeMap<String, AgentDoc>,
    /// Information-flow labels by action glob, over the defaults from annotations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, Vec<Label>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ifc: Option<IfcDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<ScanDoc>,
    /// Pin approved definitions and quarantine changed ones (default on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinning: Option<bool>,
    /// When the store cannot be reached for a rate limit: `closed` (refuse, default) or
    /// `local` (an in-process bucket of limit ÷ `replicas`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_store_error: Option<StoreErrorMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleMode {
    Enforce,
    Observe,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefaultEffect {
    Allow,
    Deny,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreErrorMode {
    Closed,
    Local,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleEffect {
    Allow,
    Deny,
    Verify,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleDoc {
    pub name: String,
    /// Action id globs (`mcp.github.*`, `mcp.*.delete_*`); `*` matches any characters.
    pub actions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orgs: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_users: Option<Vec<String>>,
    /// Argument predicates; all must hold for the rule to match.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<PredicateDoc>,
    pub effect: RuleEffect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The evaluator `verify` asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyDoc>,
}

/// One test on the call's arguments at `path` (a JSON pointer `/a/0/b` or dotted `a.b`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredicateDoc {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<Value>,
    #[serde(default, rename = "in", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Value>>,
    /// A regular expression the string value must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gt: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gte: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lt: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lte: Option<f64>,
    /// `true`: the value must be there; `false`: it must not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyDoc {
    /// An HTTP(S) endpoint POSTed the call (egress-checked like any upstream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<String>,
    /// A local program and its arguments (no shell), given the call as JSON on stdin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Default 5000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What a timeout, an error or a garbled answer means: `deny` (default) or `allow`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<DefaultEffect>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitScope {
    /// One bucket per org and action.
    OrgAction,
    /// One bucket per org and server.
    OrgServer,
    /// One bucket per server, whoever calls.
    Server,
    /// One bucket per org and end user, over every action the rule names (calls without an
    /// end user share one).
    EndUser,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimitDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub scope: LimitScope,
    /// Action globs this limit counts (default every action).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<String>>,
    /// `N/s`, `N/m` or `N/h`.
    pub rate: String,
    /// Calls allowed at once after a quiet spell (default: N of the rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentDoc {
    /// Server names the agent sees; `["*"]` for all (the default).
    #[serde(default = "every_server")]
    pub servers: Vec<String>,
    /// How the agent's endpoint hands out tools, over the gateway's `[gateway] tools_mode`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_mode: Option<switchboard_core::ToolsMode>,
}

fn every_server() -> Vec<String> {
    vec!["*".into()]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    ReadsSensitive,
    SendsExternal,
    UntrustedOutput,
    Destructive,
}

impl Label {
    pub fn as_str(self) -> &'static str {
        match self {
            Label::ReadsSensitive => "reads_sensitive",
            Label::SendsExternal => "sends_external",
            Label::UntrustedOutput => "untrusted_output",
            Label::Destructive => "destructive",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IfcDoc {
    #[serde(default)]
    pub enabled: bool,
    /// After a tool with untrusted output answered, destructive tools need `verify`.
    #[serde(default)]
    pub untrusted_requires_verify: bool,
    /// The evaluator asked for those calls (without one they are refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyDoc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingAction {
    Warn,
    Quarantine,
    Drop,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScanDoc {
    /// Scan tool definitions at discovery (default on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// What a high-severity finding does (default `quarantine`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<FindingAction>,
    /// What medium and low findings do (default `warn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<FindingAction>,
    /// Scan call arguments and results too, counting findings in the audit row (default off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<bool>,
}

/// One problem in a document: the field's path, what is wrong and the fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DocProblem {
    /// e.g. `rules[2].when[0].gt`.
    pub path: String,
    pub message: String,
    pub fix: String,
}

impl std::fmt::Display for DocProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} (fix: {})", self.path, self.message, self.fix)
    }
}

impl PolicyDoc {
    /// Reads a document, naming the field of the first shape error.
    pub fn from_value(value: &Value) -> Result<Self, DocProblem> {
        serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            DocProblem {
                path: if path == "." { String::new() } else { path },
                fix: shape_fix(&inner),
                message: inner,
            }
        })
    }

    /// Layers a later document over this one: rules, limits, agents and labels add up; the
    /// later settings win where they say something.
    pub fn layer(&mut self, later: PolicyDoc) {
        self.mode = later.mode.or(self.mode);
        self.default = later.default.or(self.default);
        self.rules.extend(later.rules);
        self.rate_limits.extend(later.rate_limits);
        self.agents.extend(later.agents);
        self.labels.extend(later.labels);
        self.ifc = later.ifc.or(self.ifc.take());
        self.scan = later.scan.or(self.scan.take());
        self.pinning = later.pinning.or(self.pinning);
        self.on_store_error = later.on_store_error.or(self.on_store_error);
        self.replicas = later.replicas.or(self.replicas);
    }
}

fn shape_fix(message: &str) -> String {
    if message.contains("unknown field") || message.contains("unknown variant") {
        "use one of the names the message lists (docs/policy.md has the whole format)".into()
    } else if message.contains("missing field") {
        "add the field (docs/policy.md has the whole format)".into()
    } else {
        "write the value in the type the message names (docs/policy.md)".into()
    }
}

/// `N/s`, `N/m`, `N/h` → (N, period in µs); `None` for anything else or N = 0.
pub fn parse_rate(rate: &str) -> Option<(u32, i64)> {
    let (count, unit) = rate.trim().split_once('/')?;
    let count: u32 = count.trim().parse().ok().filter(|n| *n > 0)?;
    let period = match unit.trim() {
        "s" | "sec" | "second" => 1_000_000,
        "m" | "min" | "minute" => 60_000_000,
        "h" | "hour" => 3_600_000_000,
        _ => return None,
    };
    Some((count, period))
}
