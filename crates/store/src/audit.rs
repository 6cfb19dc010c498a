//! The audit chain: each row's MAC covers its fields and the previous row's MAC, keyed by a
//! secret derived from the master key, so edits, deletions and insertions are all detectable.

mod head;

pub use head::{Advance, AuditHead, HEAD_WAIT, HeadError, HeadFile, parse_head, read_head};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::fmt;

/// The `prev_hash` of the first row.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One audited event, before it joins the chain. Argument values are never part of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AuditEntry {
    /// Unix time in milliseconds.
    pub at: i64,
    pub org_id: Option<String>,
    pub agent_id: Option<String>,
    pub end_user_id: Option<String>,
    pub token_id: Option<String>,
    /// `mcp.<server>.<tool>`, or a config event such as `config.connect`.
    pub action_id: String,
    pub server: Option<String>,
    /// `allowed` or `denied`.
    pub verdict: String,
    /// `ok` or an error kind.
    pub outcome: String,
    pub duration_us: i64,
    pub request_bytes: i64,
    pub response_bytes: i64,
    pub detail: Option<String>,
    /// Every policy stage's verdict (JSON list); `None` on rows from before the pipeline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
}

/// An entry in the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRow {
    pub seq: i64,
    #[serde(flatten)]
    pub entry: AuditEntry,
    pub prev_hash: String,
    pub hash: String,
}

/// Computes and checks row MACs.
#[derive(Clone)]
pub struct Chain {
    key: [u8; 32],
}

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Chain { key: <redacted> }")
    }
}

impl Chain {
    pub fn new(key: [u8; 32]) -> Self {
        Self { key }
    }

    /// The MAC of a row at `seq` after `prev_hash`.
    pub fn hash(&self, seq: i64, entry: &AuditEntry, prev_hash: &str) -> String {
        let mut canonical = serde_json::json!([
            seq,
            entry.at,
            entry.org_id,
            entry.agent_id,
            entry.end_user_id,
            entry.token_id,
            entry.action_id,
            entry.server,
            entry.verdict,
            entry.outcome,
            entry.duration_us,
            entry.request_bytes,
            entry.response_bytes,
            entry.detail,
        ]);
        // Rows written before the policy column existed hash exactly as they did then.
        if let (Some(policy), Some(list)) = (&entry.policy, canonical.as_array_mut()) {
            list.push(serde_json::Value::String(policy.clone()));
        }
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key).expect("any key length");
        mac.update(prev_hash.as_bytes());
        mac.update(b"\n");
        mac.update(canonical.to_string().as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// Chains `entries` after the row (`last_seq`, `last_hash`).
    pub fn link(&self, last_seq: i64, last_hash: &str, entries: &[AuditEntry]) -> Vec<AuditRow> {
        let mut prev = last_hash.to_string();
        entries
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let seq = last_seq + 1 + i as i64;
                let hash = self.hash(seq, entry, &prev);
                let row = AuditRow {
                    seq,
                    entry: entry.clone(),
                    prev_hash: prev.clone(),
                    hash: hash.clone(),
                };
                prev = hash;
                row
            })
            .collect()
    }
}

/// The first place the chain is broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainBreak {
    /// Row `seq`'s contents changed after it was written.
    Altered { seq: i64 },
    /// Rows between `after` and `next` are gone.
    Removed { after: i64, next: i64 },
    /// Row `seq` was not written by the gateway (inserted or forged).
    Inserted { seq: i64 },
    /// The newest rows are gone: the chain ends before row `head`, which a head kept outside
    /// the database names; `first_missing` is the first row not found.
    Cut { first_missing: i64, head: i64 },
    /// Row `seq` is not the row the head recorded: rows from there on were cut and the
    /// chain written again in their place.
    Rewritten { seq: i64 },
}

impl ChainBreak {
    /// The first row that is not as it was written (missing, altered, forged or replaced).
    pub fn first_bad_row(&self) -> i64 {
        match *self {
            ChainBreak::Altered { seq }
            | ChainBreak::Inserted { seq }
            | ChainBreak::Rewritten { seq } => seq,
            ChainBreak::Removed { after, .. } => after + 1,
            ChainBreak::Cut { first_missing, .. } => first_missing,
        }
    }
}

impl fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChainBreak::Altered { seq } => write!(f, "row {seq} was altered after it was written"),
            ChainBreak::Removed { after, next } => {
                write!(f, "rows after {after} and before {next} were removed")
            }
            ChainBreak::Inserted { seq } => {
                write!(f, "row {seq} was inserted: it is not part of the chain")
            }
            ChainBreak::Cut {
                first_missing,
                head,
            } if *first_missing == *head => write!(f, "row {head}, the newest, was removed"),
            ChainBreak::Cut {
                first_missing,
                head,
            } => write!(
                f,
                "rows {first_missing} to {head}, the newest, were removed"
            ),
            ChainBreak::Rewritten { seq } => write!(
                f,
                "row {seq} is not the row that was written there: the rows from {seq} or before were removed and others written in their place"
            ),
        }
    }
}

/// Walks rows in `seq` order and reports the first break. Feed every row, then `finish`.
pub struct Verifier {
    chain: Chain,
    last_seq: i64,
    last_hash: String,
    pending: Option<AuditRow>,
    checked: u64,
    /// A head kept outside the database: the chain reaches it, through the row it names.
    head: Option<AuditHead>,
    /// The first row found, when it is not the chain's first (older rows were removed), with
    /// the hash it links to: a retention row must vouch for exactly that cut.
    start: Option<(i64, String)>,
    /// The retention row that vouches for `start`: its seq.
    vouched: Option<i64>,
}

/// The action id of the row that records a retention cut (docs/cli.md "Audit"): its detail
/// names the first row kept and the hash that row links to.
pub const RETENTION_ACTION: &str = "audit.retention";

/// The detail of a retention row for a cut that keeps rows from `seq` (which links to `prev`).
pub fn retention_detail(seq: i64, prev: &str, cutoff_ms: i64) -> String {
    format!("kept_from_seq={seq} kept_from_prev_hash={prev} cutoff_ms={cutoff_ms}")
}

/// The (first kept seq, its prev hash) a retention row's detail names.
fn retention_of(entry: &AuditEntry) -> Option<(i64, &str)> {
    if entry.action_id != RETENTION_ACTION {
        return None;
    }
    let detail = entry.detail.as_deref()?;
    let field = |name: &str| {
        detail
            .split_whitespace()
            .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
    };
    Some((
        field("kept_from_seq")?.parse().ok()?,
        field("kept_from_prev_hash")?,
    ))
}

impl Verifier {
    pub fn new(chain: Chain) -> Self {
        Self {
            chain,
            last_seq: 0,
            last_hash: GENESIS.to_string(),
            pending: None,
            checked: 0,
            head: None,
            start: None,
            vouched: None,
        }
    }

    /// Where a retention cut left the chain starting: (first row kept, the retention row
    /// that recorded the cut).
    pub fn kept_from(&self) -> Option<(i64, i64)> {
        Some((self.start.as_ref()?.0, self.vouched?))
    }

    /// Also checks that the chain reaches `head` (a checkpoint or an anchor, already
    /// checked as signed by this chain's key), so a cut of the newest rows is found.
    pub fn with_head(mut self, head: AuditHead) -> Self {
        self.head = Some(head);
        self
    }

    /// Rows accepted so far.
    pub fn checked(&self) -> u64 {
        self.checked
    }

    /// Checks the row held back (needing one row of look-ahead) against `next`.
    pub fn push(&mut self, row: AuditRow) -> Result<(), ChainBreak> {
        if let Some(held) = self.pending.take() {
            self.settle(held, Some(&row))?;
        }
        self.pending = Some(row);
        Ok(())
    }

    pub fn finish(&mut self) -> Result<u64, ChainBreak> {
        if let Some(held) = self.pending.take() {
            self.settle(held, None)?;
        }
        // Rows before the first were removed: only a retention row may have done that.
        if let Some((first, _)) = &self.start
            && self.vouched.is_none()
        {
            return Err(ChainBreak::Removed {
                after: 0,
                next: *first,
            });
        }
        if let Some(head) = &self.head
            && self.last_seq < head.seq
        {
            return Err(ChainBreak::Cut {
                first_missing: self.last_seq + 1,
                head: head.seq,
            });
        }
        Ok(self.checked)
    }

    fn settle(&mut self, row: AuditRow, next: Option<&AuditRow>) -> Result<(), ChainBreak> {
        let genuine = self.chain.hash(row.seq, &row.entry, &row.prev_hash) == row.hash;
        if !genuine {
            // A forged row slipped in keeps the chain intact around it: the next row still
            // links to the row before it.
            let skipped = next.is_some_and(|n| n.prev_hash == self.last_hash);
            return Err(if skipped {
                ChainBreak::Inserted { seq: row.seq }
            } else {
                ChainBreak::Altered { seq: row.seq }
            });
        }
        // The first row found, later than the chain's first: older rows were cut, which a
        // retention row further on must have recorded (checked at the end).
        if self.checked == 0 && self.last_seq == 0 && row.seq > 1 {
            self.start = Some((row.seq, row.prev_hash.clone()));
            self.last_seq = row.seq - 1;
            self.last_hash = row.prev_hash.clone();
        }
        if row.seq != self.last_seq + 1 || row.prev_hash != self.last_hash {
            return Err(ChainBreak::Removed {
                after: self.last_seq,
                next: row.seq,
            });
        }
        if self
            .head
            .as_ref()
            .is_some_and(|h| h.seq == row.seq && h.hash != row.hash)
        {
            return Err(ChainBreak::Rewritten { seq: row.seq });
        }
        if let (Some((seq, prev)), Some((first, first_prev))) =
            (retention_of(&row.entry), &self.start)
            && seq == *first
            && prev == first_prev
        {
            self.vouched = Some(row.seq);
        }
        self.last_seq = row.seq;
        self.last_hash = row.hash;
        self.checked += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(i: i64) -> AuditEntry {
        AuditEntry {
            at: 1_000 + i,
            action_id: format!("mcp.s.t{i}"),
            verdict: "allowed".into(),
            outcome: "ok".into(),
            ..Default::default()
        }
    }

    fn rows(chain: &Chain, n: i64) -> Vec<AuditRow> {
        chain.link(0, GENESIS, &(1..=n).map(entry).collect::<Vec<_>>())
    }

    fn verify(chain: &Chain, rows: Vec<AuditRow>) -> Result<u64, ChainBreak> {
        let mut v = Verifier::new(chain.clone());
        for row in rows {
            v.push(row)?;
        }
        v.finish()
    }

    #[test]
    fn a_retention_cut_recorded_in_the_chain_is_not_a_removal() {
        let chain = Chain::new([5; 32]);
        let mut all = rows(&chain, 5);
        // The cut keeps rows from 3: recorded by row 6, then rows 1 and 2 deleted.
        let cut = AuditEntry {
            action_id: RETENTION_ACTION.into(),
            detail: Some(retention_detail(3, &all[2].prev_hash, 1_003)),
            ..entry(6)
        };
        all.extend(chain.link(5, &all[4].hash.clone(), &[cut]));
        let kept: Vec<_> = all[2..].to_vec();
        let mut v = Verifier::new(chain.clone());
        for row in kept.clone() {
            v.push(row).unwrap();
        }
        assert_eq!(v.finish(), Ok(4));
        assert_eq!(v.kept_from(), Some((3, 6)));
        // One more row gone than the record says: removed, not retention.
        assert_eq!(
            verify(&chain, kept[1..].to_vec()),
            Err(ChainBreak::Removed { after: 0, next: 4 })
        );
        // Rows gone with no record at all: removed.
        assert_eq!(
            verify(&chain, rows(&chain, 5)[2..].to_vec()),
            Err(ChainBreak::Removed { after: 0, next: 3 })
        );
    }

    #[test]
    fn rows_with_and_without_policy_verdicts_chain_together() {
        let chain = Chain::new([3; 32]);
        let mut with_policy = entry(2);
        with_policy.policy = Some(r#"[{"stage":"rules","effect":"deny","mode":"enforce"}]"#.into());
        let mut rows = chain.link(0, GENESIS, &[entry(1), with_policy, entry(3)]);
        assert_eq!(verify(&chain, rows.clone()), Ok(3));
        rows[1].entry.policy = Some("[]".into());
        assert_eq!(verify(&chain, rows), Err(ChainBreak::Altered { seq: 2 }));
    }

    #[test]
    fn an_untouched_chain_verifies() {
        let chain = Chain::new([3; 32]);
        assert_eq!(verify(&chain, rows(&chain, 5)), Ok(5));
        assert_eq!(verify(&chain, vec![]), Ok(0));
    }

    #[test]
    fn edits_deletions_and_insertions_are_found_where_they_are() {
        let chain = Chain::new([3; 32]);
        let mut edited = rows(&chain, 5);
        edited[2].entry.outcome = "timeout".into();
        assert_eq!(verify(&chain, edited), Err(ChainBreak::Altered { seq: 3 }));

        let mut deleted = rows(&chain, 5);
        deleted.remove(2);
        assert_eq!(
            verify(&chain, deleted),
            Err(ChainBreak::Removed { after: 2, next: 4 })
        );

        let mut last_deleted = rows(&chain, 5);
        last_deleted.pop();
        assert_eq!(
            verify(&chain, last_deleted.clone()),
            Ok(4),
            "a truncated tail is only visible against a head"
        );
        let full = rows(&chain, 5);
        let head = chain.sign_head(5, &full[4].hash, 0);
        let against_head = |rows: Vec<AuditRow>| {
            let mut v = Verifier::new(chain.clone()).with_head(head.clone());
            for row in rows {
                v.push(row)?;
            }
            v.finish()
        };
        assert_eq!(against_head(full.clone()), Ok(5));
        let cut = Err(ChainBreak::Cut {
            first_missing: 5,
            head: 5,
        });
        assert_eq!(against_head(last_deleted), cut);
        // Cut and written again: the row the head names is another.
        let mut rewritten = full[..3].to_vec();
        rewritten.extend(chain.link(3, &full[2].hash, &[entry(7), entry(8)]));
        assert_eq!(
            against_head(rewritten),
            Err(ChainBreak::Rewritten { seq: 5 })
        );

        let mut inserted = rows(&chain, 5);
        let forged = AuditRow {
            seq: 3,
            entry: entry(99),
            prev_hash: inserted[1].hash.clone(),
            hash: "f".repeat(64),
        };
        for row in inserted.iter_mut().skip(2) {
            row.seq += 1;
        }
        inserted.insert(2, forged);
        assert_eq!(
            verify(&chain, inserted),
            Err(ChainBreak::Inserted { seq: 3 })
        );

        // Without the key, a rewritten chain does not verify.
        let other = Chain::new([4; 32]);
        assert_eq!(
            verify(&chain, rows(&other, 3)),
            Err(ChainBreak::Altered { seq: 1 })
        );
    }
}
