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
pub mod proxy_listener;
#[cfg(target_os = "linux")]
mod seccomp;
#[cfg(target_os = "linux")]
mod signals;

#[cfg(target_os = "linux")]
pub use helper::run_if_helper;
pub use plan::{HELPER_ARG, Layers, PID_VAR, PLAN_VAR, PROXY_PORT, Plan};
pub use probe::{Mode, Support};
#[cfg(target_os = "linux")]
pub use proxy_listener::PROXY_FD;

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

/// The gateway user's home folder: `HOME`, else the user database (a service manager or cron
/// may start the gateway without `HOME`; the sandbox's refusals need it either way).
pub fn home_folder() -> Option<std::path::PathBuf> {
    let from_env = std::env::var_os("HOME").map(std::path::PathBuf::from);
    from_env
        .filter(|h| h.is_absolute())
        .or_else(home_from_passwd)
}

#[cfg(unix)]
#[allow(unsafe_code)]
fn home_from_passwd() -> Option<std::path::PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: a zeroed passwd and our buffer for getpwuid_r to fill; `found` points at
    // `entry` or is null; pw_dir points into `buffer`, read before it is dropped.
    unsafe {
        let mut entry: libc::passwd = std::mem::zeroed();
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let rc = libc::getpwuid_r(
            libc::getuid(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        );
        if rc != 0 || found.is_null() || entry.pw_dir.is_null() {
            return None;
        }
        let dir = std::ffi::CStr::from_ptr(entry.pw_dir);
        Some(std::ffi::OsStr::from_bytes(dir.to_bytes()).into())
    }
}

#[cfg(not(unix))]
fn home_from_passwd() -> Option<std::path::PathBuf> {
    None
}
