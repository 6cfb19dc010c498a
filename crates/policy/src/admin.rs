//! What operators and orgs do with the pipeline: read and replace an org's document, list
//! definitions waiting for approval, diff them against what was approved, approve them.

use crate::Pipeline;
use crate::compiled::Compiled;
use crate::doc::{DocProblem, PolicyDoc};
use serde::Serialize;
use std::sync::Arc;
use switchboard_core::Owner;
use switchboard_store::{AuditEntry, PinRow, now_ms};

/// A definition waiting for approval, with the one approved before it (if any).
#[derive(Debug, Clone, Serialize)]
pub struct PendingChange {
    pub server: String,
    /// The launch hash of the server when the change was seen.
    pub launch: String,
    pub tool: String,
    pub reason: String,
    pub approved_hash: Option<String>,
    pub new_hash: String,
    /// Canonical JSON of the approved definition.
    pub approved: Option<serde_json::Value>,
    pub new: serde_json::Value,
    pub seen_at: i64,
}

/// Why an approval did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApproveError {
    /// Nothing of that server (or tool) waits for approval.
    NothingWaiting(String),
    /// The definition waiting is not the one the approver reviewed (`expect_hash`).
    Changed(String),
    /// The store failed, or there is none.
    Store(String),
}

impl std::fmt::Display for ApproveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NothingWaiting(m) | Self::Changed(m) | Self::Store(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ApproveError {}

/// One approval made.
#[derive(Debug, Clone, Serialize)]
pub struct Approval {
    pub server: String,
    pub tool: String,
    pub old_hash: Option<String>,
    pub new_hash: String,
}

impl Pipeline {
    /// The org's document as stored (empty when it has none).
    pub async fn read_org_doc(&self, org: &str) -> Result<PolicyDoc, String> {
        let Some(store) = &self.inner.store else {
            return Ok(PolicyDoc::default());
        };
        match store.org_policy(org).await.map_err(|e| e.to_string())? {
            None => Ok(PolicyDoc::default()),
            Some(text) => {
                let value: serde_json::Value = serde_json::from_str(&text)
                    .map_err(|e| format!("stored policy is not JSON: {e}"))?;
                PolicyDoc::from_value(&value).map_err(|p| p.to_string())
            }
        }
    }

    /// Checks a document without keeping it: every problem, each naming its field.
    pub fn check(value: &serde_json::Value) -> Result<PolicyDoc, Vec<DocProblem>> {
        Self::compile_value(value).map(|compiled| compiled.doc)
    }

    fn compile_value(value: &serde_json::Value) -> Result<Compiled, Vec<DocProblem>> {
        Compiled::compile(PolicyDoc::from_value(value).map_err(|p| vec![p])?)
    }

    /// Checks an org's document: as [`Pipeline::check`], and it may not run programs on the
    /// gateway's host (`command` evaluators) nor hold settings only the operator's counts.
    pub fn check_org(value: &serde_json::Value) -> Result<PolicyDoc, Vec<DocProblem>> {
        Self::compile_org(value).map(|compiled| compiled.doc)
    }

    fn compile_org(value: &serde_json::Value) -> Result<Compiled, Vec<DocProblem>> {
        let compiled = Self::compile_value(value)?;
        let doc = &compiled.doc;
        let mut problems = Vec::new();
        let mut refuse = |path: String, message: &str, fix: &str| {
            problems.push(DocProblem {
                path,
                message: message.into(),
                fix: fix.into(),
            })
        };
        let host = "an org's rules may not run programs on the gateway's host";
        for (i, rule) in doc.rules.iter().enumerate() {
            if rule.verify.as_ref().is_some_and(|v| v.command.is_some()) {
                refuse(
                    format!("rules[{i}].verify.command"),
                    host,
                    "use verify.webhook",
                );
            }
        }
        let ifc_verify = doc.ifc.as_ref().and_then(|i| i.verify.as_ref());
        if ifc_verify.is_some_and(|v| v.command.is_some()) {
            refuse("ifc.verify.command".into(), host, "use verify.webhook");
        }
        for (set, name) in [
            (doc.scan.is_some(), "scan"),
            (doc.pinning.is_some(), "pinning"),
            (doc.on_store_error.is_some(), "on_store_error"),
            (doc.replicas.is_some(), "replicas"),
        ] {
            if set {
                refuse(
                    name.into(),
                    "only the operator's [policy] sets this",
                    "remove it from the org's document",
                );
            }
        }
        if problems.is_empty() {
            Ok(compiled)
        } else {
            Err(problems)
        }
    }

    /// Replaces the org's document: checked whole first, so a bad one changes nothing.
    pub async fn set_org_doc(
        &self,
        org: &str,
        value: &serde_json::Value,
    ) -> Result<PolicyDoc, Result<Vec<DocProblem>, String>> {
        let compiled = Self::compile_org(value).map_err(Ok)?;
        let store = self
            .inner
            .store
            .as_ref()
            .ok_or_else(|| Err("no store to keep the policy in".to_string()))?;
        let text = serde_json::to_string(&compiled.doc).unwrap_or_default();
        store
            .save_org_policy(org, &text)
            .await
            .map_err(|e| Err(e.to_string()))?;
        let doc = compiled.doc.clone();
        self.inner
            .orgs
            .write()
            .insert(org.to_string(), Arc::new(compiled));
        Ok(doc)
    }

    /// Definitions of `owner`'s servers waiting for approval.
    pub async fn pending(
        &self,
        owner: &Owner,
        server: Option<&str>,
    ) -> Result<Vec<PendingChange>, String> {
        let Some(store) = &self.inner.store else {
            return Ok(Vec::new());
        };
        let key = owner.key();
        let rows = store.pending(Some(&key)).await.map_err(|e| e.to_string())?;
        let pins = store.pins(Some(&key)).await.map_err(|e| e.to_string())?;
        let book = &self.inner.reviewer.book;
        Ok(rows
            .into_iter()
            .filter(|r| server.is_none_or(|s| r.server == s))
            .map(|r| {
                let stored = (pins.iter())
                    .filter(|p| p.server == r.server && p.tool == r.tool)
                    .find(|p| p.launch == r.launch || p.launch.is_empty())
                    .cloned();
                // A pin taken on first use reaches the store in the background; this
                // replica's book has it at once (an approval right after it names it too).
                let approved = stored.or_else(|| book.get(&key, &r.server, &r.launch, &r.tool));
                let approved = approved.as_ref();
                PendingChange {
                    approved_hash: approved.map(|p| p.hash.clone()),
                    approved: approved.and_then(|p| serde_json::from_str(&p.definition).ok()),
                    new: serde_json::from_str(&r.definition).unwrap_or_default(),
                    new_hash: r.hash,
                    reason: r.note,
                    server: r.server,
                    launch: r.launch,
                    tool: r.tool,
                    seen_at: r.at,
                }
            })
            .collect())
    }

    /// Approves the waiting definitions of `server` (one tool, or all): each is pinned,
    /// audited with both hashes, and exposed at the next catalogue rebuild.
    pub async fn approve(
        &self,
        owner: &Owner,
        server: &str,
        tool: Option<&str>,
        expect_hash: Option<&str>,
        by: &str,
    ) -> Result<Vec<Approval>, ApproveError> {
        let Some(store) = &self.inner.store else {
            return Err(ApproveError::Store(
                "approvals are kept in the store, and this pipeline has none".into(),
            ));
        };
        let waiting: Vec<PendingChange> = self
            .pending(owner, Some(server))
            .await
            .map_err(ApproveError::Store)?
            .into_iter()
            .filter(|p| tool.is_none_or(|t| p.tool == t))
            .collect();
        if let Some(expected) = expect_hash
            && let Some(other) = waiting.iter().find(|p| !p.new_hash.starts_with(expected))
        {
            return Err(ApproveError::Changed(format!(
                "{}.{} now waits with sha256 {}…, not the {expected}… you reviewed; diff it again",
                other.server,
                other.tool,
                &other.new_hash[..12]
            )));
        }
        if waiting.is_empty() {
            return Err(ApproveError::NothingWaiting(match tool {
                Some(t) => format!(
                    "{server}.{t} has no change waiting for approval; `switchboard tools diff {server}` lists what waits"
                ),
                None => format!(
                    "server {server} has no change waiting for approval; `switchboard tools diff {server}` lists what waits"
                ),
            }));
        }
        let mut done = Vec::new();
        for p in waiting {
            let row = PinRow {
                owner: owner.key(),
                server: p.server.clone(),
                launch: p.launch.clone(),
                tool: p.tool.clone(),
                hash: p.new_hash.clone(),
                definition: p.new.to_string(),
                at: now_ms(),
                note: by.to_string(),
            };
            store
                .approve_pin(&row)
                .await
                .map_err(|e| ApproveError::Store(e.to_string()))?;
            self.inner.reviewer.book.put(row);
            self.inner.reviewer.forget(&owner.key(), &p.server, &p.tool);
            if let Some(audit) = self.audit() {
                audit.record_now(AuditEntry {
                    at: now_ms(),
                    org_id: match owner {
                        Owner::Org(id) => Some(id.clone()),
                        Owner::Operator => None,
                    },
                    action_id: "policy.approve".into(),
                    server: Some(p.server.clone()),
                    verdict: "allowed".into(),
                    outcome: "ok".into(),
                    detail: Some(format!(
                        "tool={} old_hash={} new_hash={} by={by}",
                        p.tool,
                        p.approved_hash.as_deref().unwrap_or("-"),
                        p.new_hash
                    )),
                    ..Default::default()
                });
            }
            done.push(Approval {
                server: p.server,
                tool: p.tool,
                old_hash: p.approved_hash,
                new_hash: p.new_hash,
            });
        }
        Ok(done)
    }

    fn audit(&self) -> Option<&switchboard_store::AuditWriter> {
        self.inner.reviewer.audit()
    }

    /// Re-reads every pin from the store; `true` when they changed (approvals made by
    /// another process), so the caller rebuilds its catalogues.
    pub async fn reload_pins(&self) -> Result<bool, String> {
        let Some(store) = &self.inner.store else {
            return Ok(false);
        };
        let rows = store.pins(None).await.map_err(|e| e.to_string())?;
        Ok(self.inner.reviewer.book.replace_if_changed(rows))
    }
}

impl Pipeline {
    /// The information-flow labels of tools as `caller` meets them, from every rule set that
    /// applies (annotations' defaults and `[policy.labels]`): the sets are read once, then
    /// each tool's labels are answered from them. Fails when the org's stored policy does
    /// not compile (the reason names it).
    pub async fn labeler(
        &self,
        caller: &switchboard_core::Caller,
    ) -> Result<impl Fn(&switchboard_core::ToolRef<'_>) -> Vec<&'static str> + '_, String> {
        let sets = self.sets(caller).await?;
        Ok(move |tool: &switchboard_core::ToolRef<'_>| {
            let all = sets.iter().fold(crate::ifc::Labels::default(), |all, set| {
                all | self.labels(tool, set)
            });
            all.names()
        })
    }
}
