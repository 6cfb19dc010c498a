//! Starts a stdio server as a child in its own process group and drains its stderr into the log.

use crate::UpstreamError;
use crate::stdio_child::{StdinLine, StdioChild};
use process_wrap::tokio::{CommandWrap, ProcessGroup};
use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use switchboard_core::{ProcessLimits, ServerSpec, StdioSpec, env};
use switchboard_sync::Mutex;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::sync::CancellationToken;

const STDERR_TAIL_LINES: usize = 20;

/// The last lines a child wrote to stderr, for error messages.
#[derive(Clone, Default)]
pub(crate) struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    /// Cancelled when the child's stderr reached end of file.
    closed: CancellationToken,
}

impl StderrTail {
    /// Waits (at most `limit`) until the child's stderr is fully read, so an error about a
    /// child that exited carries its last words.
    pub(crate) async fn wait_closed(&self, limit: std::time::Duration) {
        let _ = tokio::time::timeout(limit, self.closed.cancelled()).await;
    }

    fn push(&self, line: String) {
        let mut lines = self.lines.lock();
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    pub(crate) fn lines(&self) -> Vec<String> {
        self.lines.lock().iter().cloned().collect()
    }
}

/// Starts the child: no shell, an environment built from [`BASE_ENV`] plus what the server
/// declares (runtime-hijacking variables refused unless allowed), its own process group, the
/// configured OS limits, and through the sandbox helper when `sandbox` confines it.
pub(crate) fn spawn(
    spec: &ServerSpec,
    stdio: &StdioSpec,
    allow_env: &[String],
    sandbox: Option<&crate::SandboxSetup>,
) -> Result<(StdioChild, StdinLine, StderrTail), UpstreamError> {
    if let Some(name) = stdio.env.keys().find(|n| env::is_refused(n, allow_env)) {
        let reason = match env::is_gateways_own(name) {
            true => format!("environment variable {name} is the gateway's own; remove it"),
            false => format!(
                "environment variable {name} is refused (it can inject code into the runtime); allow it with [stdio] allow_env"
            ),
        };
        return Err(UpstreamError::StartRefused {
            command: stdio.command.clone(),
            reason,
        });
    }
    let mut start = crate::sandboxed::start(sandbox, spec, stdio)?;
    let proxy = start.proxy.take();
    let handed_over = proxy.as_ref().map(|p| p.theirs.as_raw_fd());
    let limits = stdio.limits;
    let mut cmd = CommandWrap::with_new(&start.program, |c| {
        c.env_clear();
        for name in env::BASE_ENV {
            if let Some(value) = std::env::var_os(name) {
                c.env(name, value);
            }
        }
        // The sandbox's HOME and TMPDIR, unless the server's own env names others.
        c.envs(start.env.iter().map(|(k, v)| (k, v)));
        c.args(&start.args).envs(&stdio.env).kill_on_drop(true);
        if let Some(cwd) = &start.cwd {
            c.current_dir(cwd);
        }
        if let Some(theirs) = handed_over {
            // SAFETY: the closure runs between fork and exec and only calls dup2 or fcntl,
            // which are async-signal-safe; it allocates nothing.
            #[allow(unsafe_code)]
            unsafe {
                c.pre_exec(move || switchboard_sandbox::proxy_listener::hand_over(theirs));
            }
        }
        if !limits.is_empty() {
            // SAFETY: the closure runs between fork and exec and only calls setrlimit, which
            // is async-signal-safe; it allocates nothing.
            #[allow(unsafe_code)]
            unsafe {
                c.pre_exec(move || apply_limits(&limits));
            }
        }
    });
    cmd.wrap(ProcessGroup::leader());
    let (child, stdin, stderr) = StdioChild::spawn(cmd).map_err(|source| UpstreamError::Spawn {
        command: stdio.command.clone(),
        source,
    })?;
    let server = &spec.name;
    let args = spec.redact(&format!("{:?}", stdio.args));
    tracing::info!(server = %server, command = %stdio.command, args = %args, pid = child.id().unwrap_or(0), "started stdio server");
    let tail = StderrTail::default();
    if let Some(proxy) = proxy {
        serve_proxy(proxy, spec, tail.closed.clone());
    }
    if let Some(stderr) = stderr {
        let (spec, tail) = (spec.clone(), tail.clone());
        tokio::spawn(async move {
            let server = &spec.name;
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let line = spec.redact(&line);
                tracing::info!(target: "switchboard::upstream_stderr", server = %server, "{line}");
                tail.push(line);
            }
            tail.closed.cancel();
        });
    }
    Ok((child, stdin, tail))
}

/// Serves `proxy` once the server hands over its listening socket, until `ended` (its stderr
/// closed: the server and all it started are gone).
fn serve_proxy(
    proxy: crate::sandboxed::ProxyStart,
    spec: &ServerSpec,
    ended: tokio_util::sync::CancellationToken,
) {
    let crate::sandboxed::ProxyStart {
        theirs,
        ours,
        gate,
        refused,
    } = proxy;
    // Only the helper and the server hold the other end now: the wait below ends if they end.
    drop(theirs);
    let server = spec.name.clone();
    tokio::spawn(async move {
        let received = tokio::task::spawn_blocking(move || {
            switchboard_sandbox::proxy_listener::receive(&ours)
        })
        .await;
        let listener = match received {
            Ok(Ok(listener)) => listener,
            Ok(Err(e)) => {
                tracing::debug!(server = %server, error = %e, "no egress proxy: the server did not set one up");
                return;
            }
            Err(e) => {
                tracing::warn!(server = %server, error = %e, "no egress proxy");
                return;
            }
        };
        let gate = std::sync::Arc::new(gate);
        if let Err(e) = switchboard_egress_proxy::serve(listener, gate, refused, ended).await {
            tracing::warn!(server = %server, error = %e, "the egress proxy stopped");
        }
    });
}

/// Kills what is left of a stdio server's process group (it was started as the group leader, so
/// the group id is its pid). Grandchildren that outlived a graceful exit die here too.
pub(crate) fn kill_group(pid: u32) {
    let Ok(pgid) = i32::try_from(pid) else { return };
    // SAFETY: killpg has no memory-safety preconditions; ESRCH (group gone) is expected.
    #[allow(unsafe_code)]
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

#[allow(unsafe_code)] // setrlimit: see the SAFETY line below
fn apply_limits(limits: &ProcessLimits) -> std::io::Result<()> {
    let set = |resource, value: Option<u64>| -> std::io::Result<()> {
        let Some(value) = value else { return Ok(()) };
        let limit = libc::rlimit {
            rlim_cur: value as libc::rlim_t,
            rlim_max: value as libc::rlim_t,
        };
        // SAFETY: setrlimit reads the struct we pass; no other preconditions.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    set(libc::RLIMIT_AS, limits.address_space_bytes)?;
    set(libc::RLIMIT_CPU, limits.cpu_seconds)?;
    set(libc::RLIMIT_NOFILE, limits.open_files)?;
    Ok(())
}
