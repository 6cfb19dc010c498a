//! Confinement of the local (stdio) MCP servers the gateway starts, with no container runtime.
//!
//! A sandboxed server is started through the gateway's own binary as a helper
//! (`switchboard __sandbox`, [`run_if_helper`]) that receives a [`Plan`]: the helper clones the
//! server into its own user, mount, PID, IPC, UTS and network namespaces, and the server
//! restricts itself with Landlock and seccomp before it becomes the program.

pub mod grants;
pub mod plan;
pub mod probe;

#[cfg(target_os = "linux")]
mod child;
#[cfg(target_os = "linux")]
mod helper;
#[cfg(target_os = "linux")]
mod pids_cgroup;
#[cfg(target_os = "linux")]
mod prepared;
#[cfg(target_os = "linux")]
mod seccomp;
#[cfg(target_os = "linux")]
mod signals;

#[cfg(target_os = "linux")]
pub use helper::run_if_helper;
pub use plan::{HELPER_ARG, Layers, PID_VAR, PLAN_VAR, Plan};
pub use probe::{Mode, Support};

/// On systems without the sandbox, there is no helper to run.
#[cfg(not(target_os = "linux"))]
pub fn run_if_helper() {}

/// Why a sandbox could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("the sandbox plan is unusable: {0}")]
    Plan(String),
    #[error("cannot grant {0}: {1}")]
    Grant(std::path::PathBuf, std::io::Error),
    #[error("{0} failed: {1}")]
    System(&'static str, std::io::Error),
    #[error("cannot build the seccomp filter: {0}")]
    Seccomp(String),
    #[cfg(target_os = "linux")]
    #[error("cannot build the Landlock ruleset: {0}")]
    Landlock(#[from] landlock::RulesetError),
}

/// Makes this process non-dumpable: no other process of the same user may attach to it, read
/// its memory or its `/proc` files (a server that escaped its sandbox still cannot read the
/// gateway's secrets out of it).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn make_undumpable() -> std::io::Result<()> {
    // SAFETY: prctl(PR_SET_DUMPABLE) takes no pointers.
    match unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Elsewhere, nothing to do.
#[cfg(not(target_os = "linux"))]
pub fn make_undumpable() -> std::io::Result<()> {
    Ok(())
}
