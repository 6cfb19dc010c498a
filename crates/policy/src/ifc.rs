//! Information-flow control: tools carry labels (from annotations, overridden by config);
//! a session that has read sensitive data may not call tools that send data out unless a
//! rule allows that flow, and (optionally) after untrusted output destructive tools need
//! `verify`. Taint is kept in the store, so every replica sees it.

use crate::doc::{IfcDoc, Label, PolicyDoc};
use crate::rules::Glob;
use crate::rules::verify::Evaluator;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use switchboard_core::{CallContext, CallError, Effect, ErrorKind, Verdict};
use switchboard_store::PolicyStore;
use switchboard_sync::Mutex;

/// A tool's labels as bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Labels(u8);

impl std::ops::BitOr for Labels {
    type Output = Self;
    /// The labels of either.
    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

impl Labels {
    pub fn with(self, label: Label) -> Self {
        Self(self.0 | bit(label))
    }
    pub fn has(self, label: Label) -> bool {
        self.0 & bit(label) != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Defaults from MCP annotations: only hints stated `true` count (a server's own
    /// annotations are defaults, never trusted over the operator's labels).
    pub fn from_annotations(annotations: Option<&Value>) -> Self {
        let hint = |name: &str| {
            annotations
                .and_then(|a| a.get(name))
                .and_then(Value::as_bool)
                == Some(true)
        };
        let mut labels = Labels::default();
        if hint("openWorldHint") {
            labels = labels
                .with(Label::SendsExternal)
                .with(Label::UntrustedOutput);
        }
        if hint("destructiveHint") {
            labels = labels.with(Label::Destructive);
        }
        labels
    }

    pub fn names(self) -> Vec<&'static str> {
        ALL.iter()
            .filter(|l| self.has(**l))
            .map(|l| l.as_str())
            .collect()
    }
}

const ALL: [Label; 4] = [
    Label::ReadsSensitive,
    Label::SendsExternal,
    Label::UntrustedOutput,
    Label::Destructive,
];

fn bit(label: Label) -> u8 {
    match label {
        Label::ReadsSensitive => 1,
        Label::SendsExternal => 2,
        Label::UntrustedOutput => 4,
        Label::Destructive => 8,
    }
}

/// Compiled IFC settings of one rule set.
#[derive(Debug, Clone, Default)]
pub struct FlowPolicy {
    pub enabled: bool,
    untrusted_requires_verify: bool,
    verify: Option<Evaluator>,
    /// Label overrides by action glob: a matching entry replaces the annotation defaults.
    overrides: Vec<(Glob, Labels)>,
}

impl FlowPolicy {
    pub fn compile(doc: &PolicyDoc) -> Result<Self, Vec<crate::doc::DocProblem>> {
        let mut problems = Vec::new();
        let mut overrides = Vec::new();
        for (pattern, labels) in &doc.labels {
            match Glob::new(pattern) {
                Ok(g) => overrides.push((g, labels.iter().fold(Labels::default(), |l, x| l.with(*x)))),
                Err(m) => problems.push(crate::doc::DocProblem {
                    path: format!("labels.{pattern}"),
                    message: m,
                    fix: "key labels by action glob, e.g. \"mcp.files.read_*\" = [\"reads_sensitive\"]".into(),
                }),
            }
        }
        let ifc = doc.ifc.clone().unwrap_or_default();
        let verify = match &ifc.verify {
            Some(v) => match Evaluator::compile(v) {
                Ok(e) => Some(e),
                Err((field, message, fix)) => {
                    problems.push(crate::doc::DocProblem {
                        path: format!("ifc.verify.{field}"),
                        message,
                        fix,
                    });
                    None
                }
            },
            None => None,
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        let IfcDoc {
            enabled,
            untrusted_requires_verify,
            ..
        } = ifc;
        Ok(Self {
            enabled,
            untrusted_requires_verify,
            verify,
            overrides,
        })
    }

    /// The labels in force for `action`: every matching override's labels together, or
    /// the annotation defaults when no override matches.
    pub fn labels(&self, action: &str, defaults: Labels) -> Labels {
        let mut matched = false;
        let merged = self
            .overrides
            .iter()
            .filter(|(g, _)| g.matches(action))
            .fold(Labels::default(), |all, (_, l)| {
                matched = true;
                Labels(all.0 | l.0)
            });
        if matched { merged } else { defaults }
    }

    pub fn untrusted_requires_verify(&self) -> bool {
        self.untrusted_requires_verify
    }

    pub fn evaluator(&self) -> Option<&Evaluator> {
        self.verify.as_ref()
    }
}

/// Sessions whose taint this process also keeps in memory.
const MAX_LOCAL_SESSIONS: usize = 100_000;

/// A session's labels, each with the action that added it.
type Taint = Vec<(String, String)>;

/// Where taint lives: the store (shared by replicas), or this process without one.
#[derive(Clone)]
pub struct TaintBook {
    store: Option<Arc<dyn PolicyStore>>,
    /// Whether other processes write taint too (Postgres replicas): then every check reads
    /// the store. On SQLite one process serves, and its own record is the whole truth.
    shared: bool,
    local: Arc<Mutex<HashMap<String, Taint>>>,
}

impl TaintBook {
    pub fn new(store: Option<Arc<dyn PolicyStore>>, shared: bool) -> Self {
        Self {
            store,
            shared,
            local: Arc::default(),
        }
    }

    /// Records `label` for `session`. Kept in this process as well, so a write the store
    /// lost still taints the session here (a lost taint must never let data out).
    pub async fn add(&self, session: &str, label: Label, source: &str) -> Result<(), String> {
        {
            let mut local = self.local.lock();
            if local.len() >= MAX_LOCAL_SESSIONS && !local.contains_key(session) {
                // Bounded: the store holds the rest.
                local.clear();
            }
            let list = local.entry(session.to_string()).or_default();
            if !list.iter().any(|(l, _)| l == label.as_str()) {
                list.push((label.as_str().to_string(), source.to_string()));
            }
        }
        match &self.store {
            Some(store) => store
                .taint(session, label.as_str(), source)
                .await
                .map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }

    /// (label, the action that added it): the store's (every replica's) and this process's.
    pub async fn of(&self, session: &str) -> Result<Vec<(String, String)>, String> {
        let mut held = match &self.store {
            Some(store) if self.shared => store.taints(session).await.map_err(|e| e.to_string())?,
            _ => Vec::new(),
        };
        let local = self.local.lock();
        for (label, source) in local.get(session).into_iter().flatten() {
            if !held.iter().any(|(l, _)| l == label) {
                held.push((label.clone(), source.clone()));
            }
        }
        Ok(held)
    }
}

/// The flow check before a call: `allowed` is true when an `allow` rule matched the call.
pub async fn check(
    flow: &FlowPolicy,
    labels: Labels,
    taint: &TaintBook,
    call: &CallContext<'_>,
    allowed: bool,
    http: &switchboard_upstream::UpstreamHttp,
    verdicts: &mut Vec<Verdict>,
) -> Option<CallError> {
    let sink = labels.has(Label::SendsExternal);
    let destructive = labels.has(Label::Destructive) && flow.untrusted_requires_verify();
    if !flow.enabled || !(sink || destructive) {
        return None;
    }
    let session = call.caller.session.as_deref()?;
    let held = match taint.of(session).await {
        Ok(held) => held,
        Err(e) => {
            verdicts
                .push(Verdict::new("ifc", Effect::Deny).reason(format!("taint unreadable: {e}")));
            return Some(CallError::new(
                ErrorKind::PolicyDenied,
                format!(
                    "the session's information-flow state cannot be read ({e}); refusing a call that sends data out"
                ),
            ));
        }
    };
    let source = |label: Label| {
        held.iter()
            .find(|(l, _)| l == label.as_str())
            .map(|(_, s)| s.clone())
    };
    let action = call.tool.action.as_str();
    if sink && let Some(from) = source(Label::ReadsSensitive) {
        let flow_name = format!("{from} -> {action}");
        if allowed {
            verdicts.push(
                Verdict::new("ifc", Effect::Allow)
                    .rule(flow_name)
                    .reason("a rule allows this flow"),
            );
            return None;
        }
        verdicts.push(
            Verdict::new("ifc", Effect::Deny)
                .rule(flow_name.clone())
                .reason("sensitive data read earlier in this session would leave"),
        );
        return Some(CallError::new(
            ErrorKind::PolicyDenied,
            format!(
                "information flow {flow_name} denied: this session read sensitive data ({from}) and {action} sends data out; an allow rule for {action} permits the flow"
            ),
        ));
    }
    if destructive
        && !allowed
        && let Some(from) = source(Label::UntrustedOutput)
    {
        let flow_name = format!("{from} -> {action}");
        let Some(evaluator) = flow.evaluator() else {
            verdicts.push(
                Verdict::new("ifc", Effect::Deny)
                    .rule(flow_name.clone())
                    .reason("no evaluator to verify with"),
            );
            return Some(CallError::new(
                ErrorKind::PolicyDenied,
                format!(
                    "{action} is destructive and this session read untrusted output ({from}); it needs verify, and [policy.ifc] verify names no evaluator"
                ),
            ));
        };
        let answer = evaluator
            .ask(http, &crate::rules::verify_request(call))
            .await;
        verdicts.push(
            Verdict::new("ifc", Effect::Verify)
                .rule(flow_name.clone())
                .reason(answer.reason.clone()),
        );
        if !answer.allow {
            return Some(CallError::new(
                ErrorKind::PolicyDenied,
                format!("information flow {flow_name}: {}", answer.reason),
            ));
        }
    }
    None
}
