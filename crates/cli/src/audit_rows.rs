//! `switchboard audit list|tail|export`: the audit rows as people read them (a table) and as
//! log shippers take them (JSON lines with their seq and hashes, so a SIEM can check the chain).

use crate::args::{AuditFilterArgs, Global};
use crate::control::Control;
use crate::{setup, table};
use anyhow::Context;
use std::collections::VecDeque;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;
use switchboard_store::{AuditFilter, AuditRow, Store};

/// Rows read per query.
const PAGE: i64 = 1000;
/// How often `tail` asks for new rows.
const TAIL_EVERY: Duration = Duration::from_millis(500);

fn filter_of(args: &AuditFilterArgs) -> anyhow::Result<AuditFilter> {
    let since_ms = match &args.since {
        Some(since) => {
            let ago = humantime::parse_duration(since).with_context(|| {
                format!("--since {since:?}: give a duration such as 15m, 2h or 7d")
            })?;
            Some(switchboard_store::now_ms() - ago.as_millis() as i64)
        }
        None => None,
    };
    Ok(AuditFilter {
        org_id: args.org.clone(),
        agent_id: args.agent.clone(),
        action_id: args.action.clone(),
        server: args.server.clone(),
        outcome: args.outcome.clone(),
        since_ms,
        ..AuditFilter::default()
    })
}

/// The matching rows after `after`, page by page, each page to `each`; the last seq read.
async fn pages(
    store: &dyn Store,
    filter: &AuditFilter,
    mut after: i64,
    mut each: impl FnMut(Vec<AuditRow>) -> anyhow::Result<()>,
) -> anyhow::Result<i64> {
    loop {
        let page = AuditFilter {
            after_seq: Some(after),
            limit: Some(PAGE),
            ..filter.clone()
        };
        let rows = store.audit(&page).await?;
        let full = rows.len() as i64 == PAGE;
        if let Some(last) = rows.last() {
            after = last.seq;
        }
        each(rows)?;
        if !full {
            return Ok(after);
        }
    }
}

/// The newest `n` matching rows, oldest first, and the seq to follow from.
async fn newest(
    store: &dyn Store,
    filter: &AuditFilter,
    n: usize,
) -> anyhow::Result<(Vec<AuditRow>, i64)> {
    let head = store.audit_last().await?.map_or(0, |(seq, _)| seq);
    // Unfiltered, the newest rows are the last seqs; filtered, every row is looked at.
    let unfiltered = *filter == AuditFilter::default();
    let start = if unfiltered {
        (head - n as i64).max(0)
    } else {
        0
    };
    let mut kept = VecDeque::with_capacity(n);
    let last = pages(store, filter, start, |rows| {
        for row in rows {
            if kept.len() == n {
                kept.pop_front();
            }
            kept.push_back(row);
        }
        Ok(())
    })
    .await?;
    Ok((kept.into(), last.max(head)))
}

fn json_line(row: &AuditRow) -> String {
    serde_json::to_string(row).unwrap_or_default()
}

fn when(at_ms: i64) -> String {
    let t = std::time::UNIX_EPOCH + Duration::from_millis(at_ms.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}

fn cells(row: &AuditRow) -> Vec<String> {
    let e = &row.entry;
    let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    vec![
        row.seq.to_string(),
        when(e.at),
        or_dash(&e.org_id),
        or_dash(&e.agent_id),
        e.action_id.clone(),
        e.outcome.clone(),
        format!("{:.1}", e.duration_us as f64 / 1000.0),
    ]
}

const HEADER: [&str; 7] = ["SEQ", "AT", "ORG", "AGENT", "ACTION", "OUTCOME", "MS"];

fn print_rows(rows: &[AuditRow], json: bool) {
    if json {
        for row in rows {
            println!("{}", json_line(row));
        }
    } else {
        let rows: Vec<Vec<String>> = rows.iter().map(cells).collect();
        print!("{}", table::render(&HEADER, &rows));
    }
}

pub(crate) async fn list(
    global: &Global,
    args: &AuditFilterArgs,
    limit: usize,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let (rows, _) = newest(control.store.as_ref(), &filter_of(args)?, limit).await?;
    print_rows(&rows, json);
    Ok(ExitCode::SUCCESS)
}

pub(crate) async fn tail(
    global: &Global,
    args: &AuditFilterArgs,
    lines: usize,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let filter = filter_of(args)?;
    let store = control.store.as_ref();
    let (rows, mut after) = newest(store, &filter, lines).await?;
    print_rows(&rows, json);
    let stop = crate::commands::shutdown_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => return Ok(ExitCode::SUCCESS),
            () = tokio::time::sleep(TAIL_EVERY) => {}
        }
        after = pages(store, &filter, after, |rows| {
            for row in &rows {
                match json {
                    true => println!("{}", json_line(row)),
                    false => println!("{}", cells(row).join("  ")),
                }
            }
            std::io::stdout().flush()?;
            Ok(())
        })
        .await?;
    }
}

pub(crate) async fn export(
    global: &Global,
    args: &AuditFilterArgs,
    after: Option<i64>,
    output: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let filter = filter_of(args)?;
    let mut out: Box<dyn Write> = match output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let bar = setup::spinner("exporting the audit log…");
    let mut written = 0u64;
    let last = pages(
        control.store.as_ref(),
        &filter,
        after.unwrap_or(0),
        |rows| {
            for row in &rows {
                writeln!(out, "{}", json_line(row))?;
            }
            written += rows.len() as u64;
            if let Some(bar) = &bar {
                bar.set_message(format!("exporting the audit log… {written} rows"));
            }
            Ok(())
        },
    )
    .await?;
    out.flush()?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // Where to resume: `--after` this seq exports only what came later.
    eprintln!("exported {written} row(s); the last is seq {last} (resume with --after {last})");
    Ok(ExitCode::SUCCESS)
}
