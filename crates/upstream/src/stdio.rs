//! Starts a stdio server as a child in its own process group and drains its stderr into the log.

use crate::UpstreamError;
use process_wrap::tokio::{CommandWrap, ProcessGroup};
use rmcp::transport::TokioChildProcess;
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use switchboard_core::{ServerSlug, StdioSpec};
use tokio::io::{AsyncBufReadExt, BufReader};

const STDERR_TAIL_LINES: usize = 20;

/// The last lines a child wrote to stderr, for error messages.
#[derive(Clone, Default)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    pub fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned()
            .collect()
    }
}

pub fn spawn(
    server: &ServerSlug,
    spec: &StdioSpec,
) -> Result<(TokioChildProcess, StderrTail), UpstreamError> {
    let mut cmd = CommandWrap::with_new(&spec.command, |c| {
        c.args(&spec.args).envs(&spec.env).kill_on_drop(true);
        if let Some(cwd) = &spec.cwd {
            c.current_dir(cwd);
        }
    });
    cmd.wrap(ProcessGroup::leader());
    let (child, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| UpstreamError::Spawn {
            command: spec.command.clone(),
            source,
        })?;
    tracing::info!(server = %server, command = %spec.command, args = ?spec.args, pid = ?child.id(), "started stdio server");
    let tail = StderrTail::default();
    if let Some(stderr) = stderr {
        let (server, tail) = (server.clone(), tail.clone());
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::info!(target: "switchboard::upstream_stderr", server = %server, "{line}");
                tail.push(line);
            }
        });
    }
    Ok((child, tail))
}

/// Kills what is left of a stdio server's process group (it was started as the group leader, so
/// the group id is its pid). Grandchildren that outlived a graceful exit die here too.
pub fn kill_group(pid: u32) {
    let Ok(pgid) = i32::try_from(pid) else { return };
    // SAFETY: killpg has no memory-safety preconditions; ESRCH (group gone) is expected.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}
