//! A per-server process limit where `RLIMIT_NPROC` cannot give one: a gateway run as root is
//! exempt from that limit, so the child is put in a `pids` cgroup of its own when the
//! gateway may make one (root, or a delegated subtree).

use std::path::{Path, PathBuf};

/// Where `pids` cgroups are made: cgroup v1's `pids` hierarchy, or v2's root.
const BASES: [&str; 2] = ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"];

const PREFIX: &str = "switchboard-sandbox-";

/// Moves `pid` into a new cgroup that allows `max` tasks; the cgroup's folder, to remove once
/// the child has exited, or `None` when no cgroup could be made.
pub(crate) fn confine(pid: libc::pid_t, max: u64) -> Option<PathBuf> {
    for base in BASES.map(Path::new) {
        if !base.join("cgroup.procs").exists() {
            continue;
        }
        remove_stale(base);
        let dir = base.join(format!("{PREFIX}{pid}"));
        if std::fs::create_dir(&dir).is_err() {
            continue;
        }
        let limited = std::fs::write(dir.join("pids.max"), max.to_string()).is_ok()
            && std::fs::write(dir.join("cgroup.procs"), pid.to_string()).is_ok();
        if limited {
            return Some(dir);
        }
        let _ = std::fs::remove_dir(&dir);
    }
    None
}

/// Removes the folders of helpers that were killed before they could (an empty cgroup is
/// removable; one still in use is not, and stays).
fn remove_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(PREFIX) {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}
