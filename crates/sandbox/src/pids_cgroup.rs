//! A per-server process limit where `RLIMIT_NPROC` cannot give one: a gateway run as root is
//! exempt from that limit, so the child is put in a `pids` cgroup of its own when the
//! gateway may make one (root, or a delegated subtree).

use std::path::{Path, PathBuf};

/// Where `pids` cgroups are made: under this process's own cgroup (so the server stays inside
/// the gateway's service limits), in cgroup v1's `pids` hierarchy, else in v2's.
fn bases() -> Vec<PathBuf> {
    let Ok(own) = std::fs::read_to_string("/proc/self/cgroup") else {
        return Vec::new();
    };
    let mut bases = Vec::new();
    for line in own.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            bases.insert(0, Path::new("/sys/fs/cgroup/pids").join(path));
        } else if controllers.is_empty() {
            bases.push(Path::new("/sys/fs/cgroup").join(path));
        }
    }
    bases
}

const PREFIX: &str = "switchboard-sandbox-";

/// Moves `pid` into a new cgroup that allows `max` tasks; the cgroup's folder, to remove once
/// the child has exited, or `None` when no cgroup could be made.
pub(crate) fn confine(pid: libc::pid_t, max: u64) -> Option<PathBuf> {
    for base in bases() {
        let base = base.as_path();
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
