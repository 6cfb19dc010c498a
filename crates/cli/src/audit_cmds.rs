//! `switchboard audit verify|anchor`: the chain walked against the newest head kept outside
//! the database (the SQLite store's checkpoint file, or an anchor the operator kept).

use crate::args::Global;
use crate::control::Control;
use crate::setup;
use anyhow::{Context, bail};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use switchboard_store::{AuditHead, Chain, HeadError, Store, parse_head, read_head};

/// Where a head came from, as `audit verify` names it.
struct Known {
    head: AuditHead,
    source: &'static str,
    path: PathBuf,
}

impl Known {
    fn json(&self) -> serde_json::Value {
        json!({"source": self.source, "path": self.path, "seq": self.head.seq, "at_ms": self.head.at_ms})
    }

    fn said(&self) -> String {
        format!(
            "the {} {} (row {})",
            self.source,
            self.path.display(),
            self.head.seq
        )
    }
}

/// An anchor file `audit anchor` wrote, or a log line holding one; checked as signed.
fn read_anchor(chain: &Chain, path: &Path) -> anyhow::Result<AuditHead> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the anchor {}", path.display()))?;
    let Some(parsed) = parse_head(&text) else {
        bail!(
            "{} holds no audit head: give the JSON `switchboard audit anchor` printed, or a log line `audit head {{…}}`",
            path.display()
        );
    };
    let head =
        parsed.with_context(|| format!("the anchor in {} is not readable", path.display()))?;
    if !chain.genuine_head(&head) {
        bail!(
            "the anchor in {} was not signed with this store's master key (edited, or from another gateway)",
            path.display()
        );
    }
    Ok(head)
}

pub(crate) async fn verify(
    global: &Global,
    anchor: Option<&Path>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let chain = control.chain();
    // Heads are read before the walk: rows committed meanwhile only lengthen the chain.
    let mut heads = Vec::new();
    if let Some(path) = control.head_file.as_ref().map(|f| f.path().to_path_buf()) {
        match read_head(&chain, &path) {
            Ok(Some(head)) => heads.push(Known {
                head,
                source: "checkpoint",
                path,
            }),
            Ok(None) => {}
            Err(e @ HeadError::Invalid { .. }) => return broken(json, &e.to_string(), None, None),
            Err(e) => return Err(e.into()),
        }
    }
    if let Some(path) = anchor {
        heads.push(Known {
            head: read_anchor(&chain, path)?,
            source: "anchor",
            path: path.to_path_buf(),
        });
    }
    // The chain's MACs link every row to the one before: reaching the newest head through
    // the row it names vouches for every row up to it.
    let newest = heads.into_iter().max_by_key(|k| k.head.seq);
    let bar = setup::spinner("verifying the audit chain…");
    let outcome = switchboard_store::verify_audit_to(
        control.store.as_ref(),
        &chain,
        newest.as_ref().map(|k| k.head.clone()),
        |n| {
            if let Some(bar) = &bar {
                bar.set_message(format!("verifying the audit chain… {n} rows"));
            }
        },
    )
    .await?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match outcome {
        Ok(verified) => {
            let rows = verified.rows;
            let kept = verified
                .kept_from
                .map(|(from, by)| json!({"kept_from_seq": from, "recorded_in_seq": by}));
            if json {
                let head = newest.as_ref().map(Known::json);
                println!(
                    "{}",
                    json!({"ok": true, "rows": rows, "head": head, "retention": kept})
                );
            } else {
                println!("ok: {rows} audit rows verified");
                if let Some((from, by)) = verified.kept_from {
                    println!(
                        "rows before {from} were deleted by the audit retention ([audit] retention_days), as row {by} records"
                    );
                }
                match &newest {
                    Some(known) => println!("the newest rows checked against {}", known.said()),
                    None => println!("{}", unchecked_tail(&control)),
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(found) => broken(
            json,
            &found.to_string(),
            Some(found.first_bad_row()),
            newest.as_ref(),
        ),
    }
}

/// What `verify` says when no head could be checked.
fn unchecked_tail(control: &Control) -> String {
    match &control.head_file {
        Some(file) => format!(
            "no checkpoint at {} yet (every commit writes it): a removal of the newest rows is not detectable before it exists",
            file.path().display()
        ),
        None => "a removal of the newest rows is found only against an anchor: keep `switchboard audit anchor`'s output (or the replicas' `audit head` log lines) and pass it with --anchor".to_string(),
    }
}

fn broken(
    json: bool,
    problem: &str,
    first_bad: Option<i64>,
    head: Option<&Known>,
) -> anyhow::Result<ExitCode> {
    if json {
        let head = head.map(Known::json);
        println!(
            "{}",
            json!({"ok": false, "problem": problem, "first_bad_row": first_bad, "head": head})
        );
    } else {
        println!("broken: {problem}");
        if let Some(head) = head {
            println!("checked against {}", head.said());
        }
    }
    Ok(ExitCode::FAILURE)
}

/// Prints the chain's head now, signed: one JSON line to keep where the database's writers
/// cannot reach (`audit verify --anchor FILE` checks against it).
pub(crate) async fn anchor(global: &Global) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let Some((seq, hash)) = control.store.audit_last().await? else {
        bail!("the audit chain is empty: there is no head to anchor yet");
    };
    let head = control
        .chain()
        .sign_head(seq, &hash, switchboard_store::now_ms());
    println!("{}", serde_json::to_string(&head)?);
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        eprintln!(
            "the audit chain's head (row {seq}): keep this line where the database's writers cannot reach it, and check with `switchboard audit verify --anchor FILE`"
        );
    }
    Ok(ExitCode::SUCCESS)
}
