//! `switchboard audit …`: verify, anchor, list, tail, export.

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub(crate) enum AuditCommand {
    /// Walk the hash chain; report the first altered, removed or inserted row (exit 1). The
    /// newest rows are checked against the SQLite store's checkpoint file and the anchor.
    Verify {
        /// A head `audit anchor` printed (or a replica's `audit head` log line) to check the
        /// chain reaches.
        #[arg(long, value_name = "FILE")]
        anchor: Option<std::path::PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Print the chain's head now, signed, as one JSON line to keep outside the database.
    Anchor,
    /// The newest rows (50 by default), oldest first, filtered; `--json`: one JSON object a line.
    List {
        #[command(flatten)]
        filter: AuditFilterArgs,
        /// How many of the newest matching rows.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// The newest rows, then every new row as it is written (until interrupted).
    Tail {
        #[command(flatten)]
        filter: AuditFilterArgs,
        /// How many of the newest matching rows first.
        #[arg(long, default_value_t = 10)]
        lines: usize,
        #[arg(long)]
        json: bool,
    },
    /// Every row (or those after `--after`) as JSON lines with their seq and hashes, for a SIEM
    /// or an archive; progress on a terminal.
    Export {
        #[command(flatten)]
        filter: AuditFilterArgs,
        /// Only rows with a greater seq (resume an export).
        #[arg(long, value_name = "SEQ")]
        after: Option<i64>,
        /// Write to FILE instead of stdout.
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<std::path::PathBuf>,
    },
}

/// Which audit rows: every filter given must match.
#[derive(Debug, Clone, Args)]
pub(crate) struct AuditFilterArgs {
    #[arg(long)]
    pub org: Option<String>,
    #[arg(long)]
    pub agent: Option<String>,
    /// The server the call went to.
    #[arg(long)]
    pub server: Option<String>,
    /// An action id, e.g. mcp.github.create_issue or config.connect.
    #[arg(long)]
    pub action: Option<String>,
    /// `ok`, an error kind, `task`, `task_completed`…
    #[arg(long)]
    pub outcome: Option<String>,
    /// Rows written in the last DURATION (e.g. 15m, 2h, 7d).
    #[arg(long, value_name = "DURATION")]
    pub since: Option<String>,
}
