//! Discovery review: each tool definition is scanned for poisoning (cached by its hash) and
//! checked against its pin; the first clean definition is pinned (trust on first use).

use crate::doc::{FindingAction, ScanDoc};
use crate::pins::{PinBook, TOFU, canonical, looks_renamed};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use switchboard_core::{Owner, Review, ServerSlug};
use switchboard_scan::{ScanReport, Severity};
use switchboard_store::{AuditEntry, AuditWriter, PinRow, PolicyStore, now_ms};
use switchboard_sync::{Mutex, RwLock};

/// How discovery treats findings and pins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewSettings {
    pub scan: bool,
    pub high: FindingAction,
    pub other: FindingAction,
    pub pinning: bool,
}

impl Default for ReviewSettings {
    fn default() -> Self {
        Self {
            scan: true,
            high: FindingAction::Quarantine,
            other: FindingAction::Warn,
            pinning: true,
        }
    }
}

impl ReviewSettings {
    pub fn from_doc(scan: Option<&ScanDoc>, pinning: Option<bool>) -> Self {
        let d = Self::default();
        Self {
            scan: scan.and_then(|s| s.enabled).unwrap_or(d.scan),
            high: scan.and_then(|s| s.high).unwrap_or(d.high),
            other: scan.and_then(|s| s.other).unwrap_or(d.other),
            pinning: pinning.unwrap_or(d.pinning),
        }
    }

    /// What the gateway does with a tool whose worst finding has `severity`.
    pub fn action_for(&self, severity: Severity) -> FindingAction {
        match severity {
            Severity::High => self.high,
            _ => self.other,
        }
    }
}

/// Scans and pins, with what it persists and audits.
pub(crate) struct Reviewer {
    pub settings: RwLock<ReviewSettings>,
    pub book: PinBook,
    scans: Mutex<HashMap<String, Arc<ScanReport>>>,
    /// (owner, server, tool, hash) already persisted as pending or pinned by this process.
    persisted: Mutex<HashSet<(String, String, String, String)>>,
    store: Option<Arc<dyn PolicyStore>>,
    audit: Option<AuditWriter>,
}

/// Answers `server.tool` for a tool name on another server, or `None`.
pub(crate) type NameLookup<'a> = dyn Fn(&str) -> Option<String> + 'a;

impl Reviewer {
    pub(crate) fn new(store: Option<Arc<dyn PolicyStore>>, audit: Option<AuditWriter>) -> Self {
        Self {
            settings: RwLock::new(ReviewSettings::default()),
            book: PinBook::default(),
            scans: Mutex::default(),
            persisted: Mutex::default(),
            store,
            audit,
        }
    }

    pub(crate) fn audit(&self) -> Option<&AuditWriter> {
        self.audit.as_ref()
    }

    fn settings(&self) -> ReviewSettings {
        *self.settings.read()
    }

    /// The scanner's report for a definition, computed once per distinct definition.
    pub(crate) fn scan(&self, hash: &str, tool: &Value) -> Arc<ScanReport> {
        if let Some(hit) = self.scans.lock().get(hash) {
            return hit.clone();
        }
        let report = Arc::new(switchboard_scan::scan_tool(tool, &[]));
        let mut scans = self.scans.lock();
        if scans.len() > 50_000 {
            scans.clear();
        }
        scans.insert(hash.to_string(), report.clone());
        report
    }

    /// `elsewhere` maps name skeletons to a tool of another server (`server.tool`), for
    /// look-alike names across servers; `mentions` (none when the owner has no other server)
    /// answers `server.tool` for the exact name of a tool on another of the owner's servers,
    /// for definitions that refer to it.
    pub(crate) fn review(
        &self,
        owner: &Owner,
        server: &ServerSlug,
        launch: &str,
        tools: &[&Value],
        elsewhere: &dyn Fn(&str) -> Option<String>,
        mentions: Option<&NameLookup<'_>>,
    ) -> Vec<Review> {
        let settings = self.settings();
        let owner_key = owner.key();
        let server = server.as_str();
        let names: Vec<&str> = tools
            .iter()
            .map(|t| t.get("name").and_then(Value::as_str).unwrap_or_default())
            .collect();
        let vanished = if settings.pinning {
            self.book.vanished(&owner_key, server, launch, &names)
        } else {
            Vec::new()
        };
        let mut seen = std::collections::HashSet::new();
        tools
            .iter()
            .zip(&names)
            .map(|(tool, name)| {
                // A second tool of the same name is dropped by the catalogue: never compare
                // it with the first one's pin.
                if !seen.insert(*name) {
                    return Review::default();
                }
                let (text, hash) = canonical(tool);
                let report = settings.scan.then(|| self.scan(&hash, tool));
                let mut review = Review::default();
                let mut worst = None;
                let lookalike = settings.scan.then(|| elsewhere(name)).flatten().map(|other| {
                    switchboard_scan::Finding {
                        rule: switchboard_scan::rules::LOOKALIKE_NAME.into(),
                        severity: Severity::High,
                        evidence: format!("name: {name} looks like {other}"),
                    }
                });
                // Names of the owner's other servers' tools in this one's text (not cached: it
                // depends on what else is connected).
                let across = match mentions.filter(|_| settings.scan) {
                    Some(mentions) => switchboard_scan::other_servers(tool, mentions),
                    None => Vec::new(),
                };
                if let Some(report) = &report {
                    for f in report.findings.iter().chain(&lookalike).chain(&across) {
                        review.findings.push(format!("{} ({:?})", f.rule, f.severity).to_lowercase());
                        if worst.is_none_or(|(s, _)| f.severity > s) {
                            worst = Some((f.severity, f));
                        }
                    }
                }
                let pin = settings
                    .pinning
                    .then(|| self.book.get(&owner_key, server, launch, name))
                    .flatten();
                let row = |note: String| PinRow {
                    owner: owner_key.clone(),
                    server: server.to_string(),
                    launch: launch.to_string(),
                    tool: name.to_string(),
                    hash: hash.clone(),
                    definition: text.clone(),
                    at: now_ms(),
                    note,
                };
                // An operator approved exactly this definition: findings stay visible only.
                if pin.as_ref().is_some_and(|p| p.hash == hash && p.note != TOFU) {
                    return review;
                }
                let action = worst.map(|(severity, _)| settings.action_for(severity));
                if let (Some(FindingAction::Drop), Some((_, f))) = (action, worst) {
                    review.dropped = Some(format!("dropped by the scanner: {}: {}", f.rule, f.evidence));
                    return review;
                }
                if let (Some(FindingAction::Quarantine), Some((_, f))) = (action, worst) {
                    let reason = format!("poisoning suspected ({}: {}); approve it once reviewed", f.rule, f.evidence);
                    self.hold(row(reason.clone()), pin.as_ref());
                    review.quarantined = Some(reason);
                    return review;
                }
                match pin {
                    Some(p) if p.hash == hash => {}
                    Some(p) => {
                        let reason = format!(
                            "changed since approval (approved sha256 {}…, now {}…); `switchboard tools diff {server} {name}` shows the change",
                            &p.hash[..12],
                            &hash[..12]
                        );
                        self.hold(row(reason.clone()), Some(&p));
                        review.quarantined = Some(reason);
                    }
                    None if settings.pinning && let Some(before) = self.book.under_other_launch(&owner_key, server, launch, name) => {
                        self.repin(row(before.note.clone()), &before);
                    }
                    None if settings.pinning => {
                        let renamed = vanished
                            .iter()
                            .find(|old| looks_renamed(&old.tool, &old.definition, name, &text));
                        match renamed {
                            Some(old) => {
                                let reason = format!(
                                    "appeared as {:?} vanished: looks like a rename or a look-alike; approve it once reviewed",
                                    old.tool
                                );
                                self.hold(row(reason.clone()), Some(old));
                                review.quarantined = Some(reason);
                            }
                            None => self.trust_first_use(row(TOFU.into())),
                        }
                    }
                    None => {}
                }
                review
            })
            .collect()
    }

    /// Pins a clean first definition, here at once and in the store in the background
    /// (where the first replica to write wins; a different winner is adopted).
    fn trust_first_use(&self, row: PinRow) {
        if self.first_time(&row) {
            self.persist_pin(row);
        } else {
            self.book.put(row);
        }
    }

    /// Puts `row` in the book at once and in the store in the background.
    fn persist_pin(&self, row: PinRow) {
        self.book.put(row.clone());
        let Some(store) = self.store.clone() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let book_row = row;
        runtime.spawn(async move {
            match store.pin_first(&book_row).await {
                Ok(held) if held.hash != book_row.hash => tracing::warn!(
                    server = %held.server, tool = %held.tool,
                    "another replica pinned a different definition first; it applies at the next discovery"
                ),
                Ok(_) => {}
                Err(e) => tracing::error!("cannot save the pin of {}.{}: {e}", book_row.server, book_row.tool),
            }
        });
    }

    /// Pins what a server returns after its operator changed its launch (command, args, env,
    /// cwd or URL): an approval carries over to the same definition; a different one is pinned
    /// as on first use and audited with both launches' hashes.
    fn repin(&self, mut row: PinRow, before: &PinRow) {
        if row.hash != before.hash {
            row.note = TOFU.into();
            if let Some(audit) = self.audit.as_ref().filter(|_| self.first_time(&row)) {
                tracing::info!(server = %row.server, tool = %row.tool, "re-pinned after config change");
                audit.record_now(AuditEntry {
                    at: now_ms(),
                    org_id: row.owner.strip_prefix("org:").map(String::from),
                    action_id: "policy.repin".into(),
                    server: Some(row.server.clone()),
                    verdict: "allowed".into(),
                    outcome: "ok".into(),
                    detail: Some(format!(
                        "re-pinned after config change: tool={} old_launch={} new_launch={} old_hash={} new_hash={}",
                        row.tool, before.launch, row.launch, before.hash, row.hash
                    )),
                    ..Default::default()
                });
            }
        }
        self.persist_pin(row);
    }

    /// Keeps a quarantined definition for diff/approve, and audits it once.
    fn hold(&self, row: PinRow, approved: Option<&PinRow>) {
        let first = self.first_time(&row);
        if first {
            tracing::warn!(server = %row.server, tool = %row.tool, "quarantined: {}", row.note);
        }
        if let Some(audit) = self.audit.as_ref().filter(|_| first) {
            audit.record_now(AuditEntry {
                at: now_ms(),
                org_id: row.owner.strip_prefix("org:").map(String::from),
                action_id: "policy.quarantine".into(),
                server: Some(row.server.clone()),
                verdict: "denied".into(),
                outcome: "quarantined".into(),
                detail: Some(format!(
                    "tool={} approved_hash={} new_hash={} reason={}",
                    row.tool,
                    approved.map_or("-", |p| p.hash.as_str()),
                    row.hash,
                    row.note
                )),
                ..Default::default()
            });
        }
        // Once per definition (an approval forgets the tool's, so a flip back is held again).
        let Some(store) = self.store.clone().filter(|_| first) else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            if let Err(e) = store.save_pending(&row).await {
                tracing::error!(
                    "cannot save the changed definition of {}.{}: {e}",
                    row.server,
                    row.tool
                );
            }
        });
    }

    /// Forgets what was persisted for one tool (after an approval), so a later change or a
    /// flip back is held and audited again.
    pub(crate) fn forget(&self, owner: &str, server: &str, tool: &str) {
        self.persisted
            .lock()
            .retain(|(o, s, t, _)| !(o == owner && s == server && t == tool));
    }

    fn first_time(&self, row: &PinRow) -> bool {
        self.persisted.lock().insert((
            row.owner.clone(),
            row.server.clone(),
            row.tool.clone(),
            row.hash.clone(),
        ))
    }
}
