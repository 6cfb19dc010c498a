//! The chain's head (its last row and that row's MAC), signed with a key derived from the
//! master key and kept outside the database, so that whoever can delete rows cannot also
//! move the head back: a checkpoint file that every commit moves forward (SQLite), or an
//! anchor the operator keeps (Postgres; `switchboard audit anchor`).

use super::Chain;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The chain's head as it was at `at_ms`: row `seq` had MAC `hash`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditHead {
    pub seq: i64,
    pub hash: String,
    /// Unix time in milliseconds.
    pub at_ms: i64,
    /// The head's own MAC: only the gateway's key makes one that checks.
    pub mac: String,
}

impl Chain {
    /// The MAC key for heads: derived from the chain's key, so a row's MAC never doubles
    /// as a head's.
    fn head_mac(&self, seq: i64, hash: &str, at_ms: i64) -> String {
        let mut key = <Hmac<Sha256> as Mac>::new_from_slice(&self.key).expect("any key length");
        key.update(b"switchboard audit head v1");
        let key = key.finalize().into_bytes();
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key).expect("any key length");
        mac.update(format!("{seq}\n{hash}\n{at_ms}").as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// Signs the head: row `seq` with MAC `hash`, at `at_ms`.
    pub fn sign_head(&self, seq: i64, hash: &str, at_ms: i64) -> AuditHead {
        AuditHead {
            seq,
            hash: hash.to_string(),
            at_ms,
            mac: self.head_mac(seq, hash, at_ms),
        }
    }

    /// Whether `head` was signed with this chain's key.
    pub fn genuine_head(&self, head: &AuditHead) -> bool {
        self.head_mac(head.seq, &head.hash, head.at_ms) == head.mac
    }
}

/// Why a head could not be read.
#[derive(Debug, thiserror::Error)]
pub enum HeadError {
    #[error("cannot read the audit checkpoint {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the audit checkpoint {path} is not a head this gateway wrote ({why}); restore it from a backup, or keep it aside and start a new one"
    )]
    Invalid { path: PathBuf, why: String },
}

/// Reads a head from `text`: the JSON object `audit anchor` prints, alone or inside the log
/// line a replica writes (text, or a JSON log line whose `message` holds it); `None` when
/// there is none.
pub fn parse_head(text: &str) -> Option<Result<AuditHead, serde_json::Error>> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    if end <= start {
        return None;
    }
    let object = &text[start..=end];
    let logged = serde_json::from_str::<serde_json::Value>(object).ok();
    if let Some(message) = logged.as_ref().and_then(|l| l["message"].as_str()) {
        return parse_head(message);
    }
    Some(serde_json::from_str(object))
}

/// Reads and checks the head kept at `path`; `None` when there is no file.
pub fn read_head(chain: &Chain, path: &Path) -> Result<Option<AuditHead>, HeadError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(HeadError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let invalid = |why: String| HeadError::Invalid {
        path: path.to_path_buf(),
        why,
    };
    let head = match parse_head(&text) {
        Some(Ok(head)) => head,
        Some(Err(e)) => return Err(invalid(e.to_string())),
        None => return Err(invalid("no head in it".into())),
    };
    if !chain.genuine_head(&head) {
        return Err(invalid(
            "its MAC does not check with this master key".into(),
        ));
    }
    Ok(Some(head))
}

/// What a commit did to the checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advance {
    /// The checkpoint now names the commit's last row.
    Moved,
    /// The checkpoint is already past the commit (another process committed after it).
    Behind,
    /// The commit reused rows the checkpoint had seen: rows were cut from the end of the
    /// chain and written again. The checkpoint stays where it was.
    Cut { checkpoint: AuditHead },
    /// The checkpoint file is not a head of this chain (edited, or another store's): it is
    /// left as it is, as evidence.
    Invalid { why: String },
    /// Another process held the checkpoint's lock too long: a later commit moves it.
    Busy,
}

/// The longest a commit waits for the checkpoint's lock, and for the store's answer about the
/// row the checkpoint names: one stalled process must not stall every commit.
pub const HEAD_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The checkpoint file of an SQLite store, moved forward by each commit under a file lock
/// (several processes write one store: `serve`, `call`, `org create`…).
#[derive(Debug, Clone)]
pub struct HeadFile {
    path: PathBuf,
}

impl HeadFile {
    /// The checkpoint at `path` (the data folder's `audit.head`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves the checkpoint to the last of `rows`, the rows one commit wrote in `seq` order,
    /// unless it is already past them; refuses when they take the place of rows it had seen.
    /// When the checkpoint names a row other than these and the one before them (other
    /// processes committed in between, or the end was cut), `hash_at` reads that row's MAC
    /// from the store (`None`: no such row).
    pub fn advance(
        &self,
        chain: &Chain,
        rows: &[super::AuditRow],
        hash_at: impl FnOnce(i64) -> Result<Option<String>, String>,
    ) -> std::io::Result<Advance> {
        let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
            return Ok(Advance::Behind);
        };
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.path.with_extension("head.lock"))?;
        let deadline = std::time::Instant::now() + HEAD_WAIT;
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                Err(std::fs::TryLockError::WouldBlock) => return Ok(Advance::Busy),
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
        }
        let current = match read_head(chain, &self.path) {
            Ok(current) => current,
            Err(HeadError::Invalid { why, .. }) => return Ok(Advance::Invalid { why }),
            Err(HeadError::Io { source, .. }) => return Err(source),
        };
        if let Some(current) = current {
            // The row the checkpoint names, as the chain has it now.
            let now = match current.seq - first.seq {
                -1 => Some(first.prev_hash.clone()),
                i if i >= 0 && (i as usize) < rows.len() => Some(rows[i as usize].hash.clone()),
                _ => match hash_at(current.seq) {
                    Ok(found) => found,
                    // Not checked now: a later commit moves it.
                    Err(_) => return Ok(Advance::Behind),
                },
            };
            if now.as_ref() != Some(&current.hash) {
                return Ok(Advance::Cut {
                    checkpoint: current,
                });
            }
            // At or past these rows: another process committed after them.
            if current.seq >= last.seq {
                return Ok(Advance::Behind);
            }
        }
        let head = chain.sign_head(last.seq, &last.hash, crate::now_ms());
        let staged = self.path.with_extension("head.new");
        let mut file = std::fs::File::create(&staged)?;
        file.write_all(serde_json::to_string(&head)?.as_bytes())?;
        file.write_all(b"\n")?;
        drop(file);
        std::fs::rename(&staged, &self.path)?;
        Ok(Advance::Moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{AuditEntry, GENESIS};

    fn entries(n: i64, tag: &str) -> Vec<AuditEntry> {
        (1..=n)
            .map(|i| AuditEntry {
                at: i,
                action_id: format!("mcp.s.{tag}{i}"),
                ..Default::default()
            })
            .collect()
    }

    #[test]
    fn a_head_checks_only_with_its_key_and_unchanged() {
        let chain = Chain::new([1; 32]);
        let head = chain.sign_head(7, "ab", 1_000);
        assert!(chain.genuine_head(&head));
        assert!(!Chain::new([2; 32]).genuine_head(&head));
        let moved_back = AuditHead {
            seq: 5,
            ..head.clone()
        };
        assert!(!chain.genuine_head(&moved_back));
        let line = format!(
            "2026-11-27T10:00:00Z INFO audit head {}",
            serde_json::to_string(&head).unwrap()
        );
        assert_eq!(parse_head(&line).unwrap().unwrap(), head);
        let json_line = serde_json::json!({"level": "INFO", "message": line}).to_string();
        assert_eq!(parse_head(&json_line).unwrap().unwrap(), head);
    }

    fn none(_: i64) -> Result<Option<String>, String> {
        panic!("no lookup expected")
    }

    #[test]
    fn the_checkpoint_moves_forward_only_and_refuses_rows_written_over_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = HeadFile::new(dir.path().join("audit.head"));
        let chain = Chain::new([1; 32]);
        let rows = chain.link(0, GENESIS, &entries(6, "a"));
        assert_eq!(
            file.advance(&chain, &rows[..4], none).unwrap(),
            Advance::Moved
        );
        assert_eq!(read_head(&chain, file.path()).unwrap().unwrap().seq, 4);
        // A commit another process's commit overtook: the checkpoint stays ahead, once the
        // store shows the row it names.
        let row_4 = |seq| {
            assert_eq!(seq, 4);
            Ok(Some(rows[3].hash.clone()))
        };
        assert_eq!(
            file.advance(&chain, &rows[..2], row_4).unwrap(),
            Advance::Behind
        );
        // Cut below it and written again only in part: the row it names is gone.
        let gone = |_| Ok(None);
        assert!(matches!(
            file.advance(&chain, &rows[..2], gone).unwrap(),
            Advance::Cut { .. }
        ));
        assert_eq!(
            file.advance(&chain, &rows[4..], none).unwrap(),
            Advance::Moved
        );
        assert_eq!(read_head(&chain, file.path()).unwrap().unwrap().seq, 6);

        // Rows 5 and 6 deleted, then rows 5..8 written again: refused, the checkpoint stays.
        let again = chain.link(4, &rows[3].hash, &entries(4, "b"));
        match file.advance(&chain, &again, none).unwrap() {
            Advance::Cut { checkpoint } => assert_eq!(checkpoint.seq, 6),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            read_head(&chain, file.path()).unwrap().unwrap().hash,
            rows[5].hash
        );
        // Nor does a later commit past them move it: the row it names is looked up.
        let later = chain.link(8, &again[3].hash, &entries(2, "c"));
        let rewritten = again[1].hash.clone();
        let looked_up = |seq| {
            assert_eq!(seq, 6);
            Ok(Some(rewritten))
        };
        assert!(matches!(
            file.advance(&chain, &later, looked_up).unwrap(),
            Advance::Cut { .. }
        ));
        let deleted = |_| Ok(None);
        assert!(matches!(
            file.advance(&chain, &later, deleted).unwrap(),
            Advance::Cut { .. }
        ));
        let intact = |_| Ok(Some(rows[5].hash.clone()));
        let after_others = chain.link(8, "h8", &entries(1, "d"));
        assert_eq!(
            file.advance(&chain, &after_others, intact).unwrap(),
            Advance::Moved
        );

        // A forged or foreign checkpoint is not a head of this chain, and is left as it is.
        let forged = "{\"seq\": 2, \"hash\": \"x\", \"at_ms\": 0, \"mac\": \"00\"}";
        std::fs::write(file.path(), forged).unwrap();
        assert!(matches!(
            read_head(&chain, file.path()),
            Err(HeadError::Invalid { .. })
        ));
        let next = chain.link(10, "h10", &entries(1, "e"));
        let refused = file.advance(&chain, &next, none).unwrap();
        assert!(matches!(refused, Advance::Invalid { .. }), "{refused:?}");
        assert_eq!(std::fs::read_to_string(file.path()).unwrap(), forged);
    }
}
