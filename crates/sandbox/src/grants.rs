//! What a stdio server may touch, decided from its command line and config, each grant with
//! the reason it was made; grants that would expose the gateway's secrets are refused.

use crate::plan::{Layers, Plan};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// How a path is granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    ReadExec,
    Read,
    Write,
}

/// One grant and why it was made.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Grant {
    pub path: PathBuf,
    pub access: Access,
    pub why: String,
}

/// A server's launch as its config declares it.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    /// The server's own environment (its values that name existing absolute paths are granted).
    pub env: &'a std::collections::BTreeMap<String, String>,
    /// Where the command is looked up (the gateway's `PATH`).
    pub path_var: Option<&'a OsStr>,
}

/// What the operator granted beyond the defaults (`sandbox = {read = […], write = […]}`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extra {
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
}

/// The gateway's own places.
#[derive(Debug, Clone)]
pub struct Places {
    /// The data folder (store, master key).
    pub data: PathBuf,
    /// The gateway user's home folder.
    pub home: Option<PathBuf>,
    /// This server's own folder (under the data folder): its `work`, `home` and `tmp`.
    pub server_dir: PathBuf,
}

/// A plan, its grants with reasons, and the environment the server gets on top of its own.
#[derive(Debug, Clone)]
pub struct Decided {
    pub plan: Plan,
    pub grants: Vec<Grant>,
    /// Variables the server gets on top of its own (its folders, its proxy).
    pub env: Vec<(String, std::ffi::OsString)>,
}

/// Why no plan could be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GrantError {
    #[error("cannot find the command {0:?} on PATH")]
    NoCommand(String),
    #[error(
        "sandbox: granting {grant} ({why}) would expose {exposed} ({what}); grant a sub-folder instead (the server entry's sandbox = {{read = [...], write = [...]}}), or name a sub-folder in its arguments"
    )]
    Exposes {
        grant: PathBuf,
        why: String,
        exposed: PathBuf,
        what: &'static str,
    },
    #[error(
        "sandbox: {grant} ({why}) is hidden from sandboxed servers (each gets an empty private one there, so no socket of the host's is reachable); grant a sub-folder or a file in it instead"
    )]
    Hidden { grant: PathBuf, why: String },
}

/// What every runtime reads: the loader and its cache, libraries, certificates, users and
/// hosts, time zones, the harmless devices.
const SYSTEM: &[(&str, Access)] = &[
    ("/usr/lib", Access::ReadExec),
    ("/usr/lib64", Access::ReadExec),
    ("/usr/lib32", Access::ReadExec),
    ("/usr/libexec", Access::ReadExec),
    // The host's tools a server runs (git, sh, python3) and their shared data.
    ("/usr/bin", Access::ReadExec),
    ("/usr/share", Access::Read),
    ("/etc/ld.so.cache", Access::Read),
    ("/etc/ld.so.conf", Access::Read),
    ("/etc/ld.so.conf.d", Access::Read),
    ("/etc/ssl", Access::Read),
    ("/etc/ca-certificates", Access::Read),
    ("/usr/share/ca-certificates", Access::Read),
    ("/usr/share/zoneinfo", Access::Read),
    ("/etc/localtime", Access::Read),
    ("/etc/passwd", Access::Read),
    ("/etc/group", Access::Read),
    ("/etc/hosts", Access::Read),
    ("/etc/nsswitch.conf", Access::Read),
    ("/etc/alternatives", Access::Read),
    ("/etc/services", Access::Read),
    ("/etc/protocols", Access::Read),
    ("/etc/mime.types", Access::Read),
    ("/etc/os-release", Access::Read),
    ("/etc/gitconfig", Access::Read),
    ("/dev/null", Access::Write),
    ("/dev/zero", Access::Read),
    ("/dev/urandom", Access::Read),
    ("/dev/random", Access::Read),
    ("/dev/full", Access::Read),
];

/// Package caches a server may read but never write (one server must not plant code that
/// runs in the others), under the home folder.
const CACHES: &[&str] = &[
    ".npm/_cacache",
    ".cache/uv",
    ".cache/pip",
    ".local/share/uv",
];

/// Files and folders under the home folder that hold credentials: never granted, nor anything
/// that holds them or lies inside them.
const CREDENTIALS: &[&str] = &[
    ".ssh",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".local/share/keyrings",
    ".npmrc",
    ".pypirc",
    ".config/gh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".password-store",
];

/// Folders hidden behind a private tmpfs: where pathname UNIX sockets live.
const HIDDEN: &[&str] = &["/tmp", "/run", "/var/run", "/dev/shm", "/var/tmp"];

/// The plan for `launch`, or why not.
pub fn decide(
    launch: Launch<'_>,
    extra: &Extra,
    places: &Places,
    layers: Layers,
) -> Result<Decided, GrantError> {
    let mut grants = Vec::new();
    let mut grant = |path: PathBuf, access, why: String| grants.push(Grant { path, access, why });
    for (path, access) in SYSTEM {
        if Path::new(path).exists() {
            grant(path.into(), *access, "every runtime reads it".into());
        }
    }
    let program = find(launch.command, launch.path_var)
        .ok_or_else(|| GrantError::NoCommand(launch.command.to_string()))?;
    for (prefix, why) in install_prefixes(&program, places.home.as_deref()) {
        grant(prefix, Access::ReadExec, why);
    }
    if let Some(home) = &places.home {
        for cache in CACHES {
            let path = home.join(cache);
            if path.exists() {
                grant(path, Access::Read, "a package cache, read-only".into());
            }
        }
    }
    let server_dir = &places.server_dir;
    let workdir = match launch.cwd {
        Some(cwd) => {
            grant(cwd.into(), Access::Write, "the config's cwd".into());
            cwd.to_path_buf()
        }
        None => server_dir.join("work"),
    };
    let (home, tmp) = (server_dir.join("home"), server_dir.join("tmp"));
    for (dir, why) in [
        (&workdir, "the server's working folder"),
        (&home, "the server's own HOME"),
        (&tmp, "the server's own TMPDIR"),
    ] {
        grant(dir.clone(), Access::Write, why.into());
    }
    let mut args = Vec::with_capacity(launch.args.len());
    let base = launch
        .cwd
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok());
    for arg in launch.args {
        let (rewritten, named) = named_path(arg, base.as_deref(), launch.cwd.is_none());
        if let Some((path, access, why)) = named {
            grant(path, access, why);
        }
        args.push(rewritten);
    }
    for (name, value) in launch.env {
        // A file named in the environment is data or configuration: that file alone.
        let Ok(path) = Path::new(value).canonicalize() else {
            continue;
        };
        if Path::new(value).is_absolute() {
            let access = if path.is_dir() {
                Access::Write
            } else {
                Access::Read
            };
            grant(path, access, format!("named in its environment ({name})"));
        }
    }
    for path in &extra.read {
        grant(
            path.clone(),
            Access::Read,
            "granted in the config (read)".into(),
        );
    }
    for path in &extra.write {
        grant(
            path.clone(),
            Access::Write,
            "granted in the config (write)".into(),
        );
    }
    let mut layers = layers;
    if let Some(runner) = package_runner(launch.command, launch.args) {
        // It fetches its package at start; package installs do not go through the egress proxy
        // yet, so it keeps the host's network and its resolver (which may live under a hidden /run).
        layers.network = false;
        if let Ok(resolv) = Path::new("/etc/resolv.conf").canonicalize() {
            let why = format!("{runner} resolves its registry's name");
            grants.push(Grant {
                path: resolv,
                access: Access::Read,
                why,
            });
        }
    }
    for g in &grants {
        // A hidden folder first: granting it is pointless whatever it holds.
        if HIDDEN.iter().any(|h| g.path == Path::new(h)) {
            return Err(GrantError::Hidden {
                grant: g.path.clone(),
                why: g.why.clone(),
            });
        }
        refuse_exposure(g, places)?;
    }
    let paths = |access| {
        (grants.iter())
            .filter(|g| g.access == access)
            .map(|g| g.path.clone())
            .collect()
    };
    let plan = Plan {
        program,
        args,
        workdir,
        read_exec: paths(Access::ReadExec),
        read: paths(Access::Read),
        write: paths(Access::Write),
        hide: HIDDEN.iter().map(PathBuf::from).collect(),
        max_processes: Some(DEFAULT_MAX_PROCESSES),
        layers,
        proxy_port: None,
    };
    // Tools that keep caches and settings by XDG read these rather than HOME.
    let env = vec![
        ("XDG_CACHE_HOME".to_string(), home.join(".cache")),
        ("XDG_CONFIG_HOME".to_string(), home.join(".config")),
        ("XDG_DATA_HOME".to_string(), home.join(".local/share")),
        ("XDG_STATE_HOME".to_string(), home.join(".local/state")),
        ("HOME".to_string(), home),
        ("TMPDIR".to_string(), tmp),
    ];
    let env = (env.into_iter())
        .map(|(k, v)| (k, v.into_os_string()))
        .collect();

    Ok(Decided { plan, grants, env })
}

/// Processes and threads a server may have at once (Node and Python servers use tens).
pub const DEFAULT_MAX_PROCESSES: u64 = 256;

/// Refuses `grant` when it holds or lies inside the data folder (but for the server's own
/// folder there) or a credential, or holds the home folder itself. Paths are compared with
/// their links resolved.
fn refuse_exposure(grant: &Grant, places: &Places) -> Result<(), GrantError> {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let granted = canonical(&grant.path);
    let data = canonical(&places.data);
    // The server's own folder (made after this check) lives under the data folder.
    let own = match places.server_dir.strip_prefix(&places.data) {
        Ok(rest) => data.join(rest),
        Err(_) => canonical(&places.server_dir),
    };
    if granted.starts_with(&own) {
        return Ok(());
    }
    // (path, what it is, whether a grant inside it is refused too)
    let mut sensitive = vec![(data, "the gateway's data folder and master key", true)];
    if let Some(home) = &places.home {
        sensitive.push((canonical(home), "the home folder", false));
        for c in CREDENTIALS {
            sensitive.push((canonical(&home.join(c)), "a credential", true));
        }
    }
    let exposes = |(path, _, inside): &(PathBuf, &str, bool)| {
        path.starts_with(&granted) || (*inside && granted.starts_with(path))
    };
    match sensitive.into_iter().find(exposes) {
        Some((exposed, what, _)) => Err(GrantError::Exposes {
            grant: grant.path.clone(),
            why: grant.why.clone(),
            exposed,
            what,
        }),
        None => Ok(()),
    }
}

mod inference;
#[cfg(test)]
mod tests;

pub use inference::package_runner;
use inference::{find, install_prefixes, named_path};
