//! The sandbox helper: the gateway's own binary started as `switchboard __sandbox` with a plan,
//! which clones the confined child, maps its ids, forwards signals and exits as it exits.
#![allow(unsafe_code)] // clone(2), pipes, signal forwarding and waitpid; each block says why.

use crate::SandboxError;
use crate::plan::{PID_VAR, PLAN_VAR, Plan};
use crate::prepared::Prepared;
use std::sync::atomic::{AtomicI32, Ordering};

/// The child, for the signal handler.
static CHILD: AtomicI32 = AtomicI32::new(0);

/// Runs the helper if this process was started as one (`argv[1] == "__sandbox"`): never
/// returns then. Call it first in `main`, before any thread or runtime starts.
pub fn run_if_helper() {
    let mut args = std::env::args_os();
    if args.nth(1).as_deref() != Some(std::ffi::OsStr::new(crate::plan::HELPER_ARG)) {
        return;
    }
    let code = match helper() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("switchboard sandbox: {e}");
            126
        }
    };
    std::process::exit(code)
}

fn helper() -> Result<i32, SandboxError> {
    let plan = std::env::var(PLAN_VAR)
        .map_err(|_| SandboxError::Plan(format!("{PLAN_VAR} is not set")))?;
    let plan: Plan = serde_json::from_str(&plan).map_err(|e| SandboxError::Plan(e.to_string()))?;
    // The server learns the id the gateway knows it by (this helper's; it is PID 2 inside).
    let known_as = [(PID_VAR.into(), std::process::id().to_string().into())];
    let env = (std::env::vars_os())
        .filter(|(name, _)| name != PLAN_VAR && name != PID_VAR)
        .chain(known_as);
    let prepared = Prepared::new(&plan, env)?;
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(SandboxError::System(
            "pipe2",
            std::io::Error::last_os_error(),
        ));
    }
    let (ready_read, ready_write) = (fds[0], fds[1]);
    let mut flags = libc::SIGCHLD as libc::c_long;
    if plan.layers.namespaces {
        flags |= (libc::CLONE_NEWUSER
            | libc::CLONE_NEWNS
            | libc::CLONE_NEWPID
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWUTS) as libc::c_long;
        if plan.layers.network {
            flags |= libc::CLONE_NEWNET as libc::c_long;
        }
    }
    // A stop during the server's setup waits for the handlers instead of being lost.
    crate::signals::set_blocked(true);
    // SAFETY: clone without a new stack behaves like fork; the child only runs `child::run`,
    // which makes system calls on `prepared` and ends in execve or _exit.
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0, 0, 0, 0) };
    if pid < 0 {
        return Err(SandboxError::System(
            "clone",
            std::io::Error::last_os_error(),
        ));
    }
    if pid == 0 {
        // SAFETY: the child's copy of the write end; closing it is all that is needed.
        unsafe { libc::close(ready_write) };
        crate::child::run(&prepared, ready_read);
    }
    let pid = pid as libc::pid_t;
    // SAFETY: our copy of the read end, and of the gateway's proxy channel (the child sends
    // on its own copy; ours would only keep the gateway waiting if the child failed).
    unsafe {
        libc::close(ready_read);
        if prepared.proxy_port.is_some() {
            libc::close(crate::PROXY_FD);
        }
    }
    if plan.layers.namespaces
        && let Err(e) = map_ids(pid)
    {
        // SAFETY: killing and reaping our own child, which waits on the pipe.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
        return Err(e);
    }
    // Root is exempt from RLIMIT_NPROC: a pids cgroup limits the server's processes then.
    let cgroup = match (plan.max_processes, is_root()) {
        (Some(max), true) => crate::pids_cgroup::confine(pid, max),
        _ => None,
    };
    CHILD.store(pid, Ordering::SeqCst);
    crate::signals::pass_on_with(pass_on);
    crate::signals::set_blocked(false);
    // SAFETY: one byte from the stack to our own pipe, then close it.
    unsafe {
        libc::write(ready_write, [1u8].as_ptr().cast(), 1);
        libc::close(ready_write);
    }
    let code = wait(pid);
    if let Some(cgroup) = cgroup {
        let _ = std::fs::remove_dir(cgroup);
    }
    Ok(code)
}

fn is_root() -> bool {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() == 0 }
}

/// The child's uid and gid inside are ours outside (files keep their owners).
fn map_ids(pid: libc::pid_t) -> Result<(), SandboxError> {
    // SAFETY: getuid and getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let write = |file: &str, line: String| {
        std::fs::write(format!("/proc/{pid}/{file}"), line)
            .map_err(|e| SandboxError::System("writing the id maps", e))
    };
    write("setgroups", "deny".into())?;
    write("uid_map", format!("{uid} {uid} 1"))?;
    write("gid_map", format!("{gid} {gid} 1"))
}

extern "C" fn pass_on(signal: libc::c_int) {
    let child = CHILD.load(Ordering::SeqCst);
    if child > 0 {
        // SAFETY: kill(2) is async-signal-safe.
        unsafe { libc::kill(child, signal) };
    }
}

/// Waits for the child; its exit code, or 128 + the signal that ended it.
fn wait(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    loop {
        // SAFETY: waitpid on our own child with a pointer to a local.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            break;
        }
        if rc < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 126;
        }
    }
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    }
}
