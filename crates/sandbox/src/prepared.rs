//! Everything the confined child needs, made before the clone so that the child itself only
//! makes system calls (no allocation between clone and exec).

use crate::SandboxError;
use crate::plan::Plan;
use crate::seccomp;
use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
    Scope, path_beneath_rules,
};
use std::ffi::{CString, OsStr};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The Landlock ABI whose rights the sandbox asks for (6: file rights of 5, plus scopes).
pub(crate) const LANDLOCK_ABI: ABI = ABI::V6;

/// A granted path under a hidden folder, mounted back at its own place after the tmpfs.
pub(crate) struct Rebind {
    /// The path, cloned as a detached mount (`open_tree`) before the tmpfs hides it, and moved
    /// to the same path on the tmpfs afterwards.
    pub path: CString,
    /// The folders to make (outermost first) so the path exists on the tmpfs.
    pub parents: Vec<CString>,
    pub is_dir: bool,
    /// A read or read+exec grant: the mount is made read-only (the tmpfs above it is
    /// writable, and Landlock rights add up along the path).
    pub read_only: bool,
    /// A read grant: nothing on the mount may be executed.
    pub no_exec: bool,
}

pub(crate) struct Prepared {
    pub program: CString,
    pub argv: Vec<CString>,
    pub envp: Vec<CString>,
    pub workdir: CString,
    pub namespaces: bool,
    /// Its own network namespace, whose loopback the child brings up.
    pub network: bool,
    pub hide: Vec<CString>,
    pub rebinds: Vec<Rebind>,
    /// The Landlock ruleset (rules for paths that exist now), if Landlock is asked for.
    pub ruleset: Option<OwnedFd>,
    /// The file-system rights the ruleset handles on this kernel (for the rules added after
    /// the mounts: a right the kernel does not know makes `landlock_add_rule` fail).
    pub handled: u64,
    pub seccomp: Vec<seccompiler::BpfProgram>,
    pub max_processes: Option<u64>,
    /// The egress proxy's port inside the network namespace (its socket handed to the gateway).
    pub proxy_port: Option<u16>,
}

fn c_path(path: &Path) -> Result<CString, SandboxError> {
    c_string(path.as_os_str())
}

fn c_string(s: &OsStr) -> Result<CString, SandboxError> {
    CString::new(s.as_bytes()).map_err(|_| SandboxError::Plan(format!("{s:?} holds a NUL byte")))
}

impl Prepared {
    /// Everything `plan` needs; `env` is the environment the program gets.
    pub(crate) fn new(
        plan: &Plan,
        env: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    ) -> Result<Self, SandboxError> {
        let mut argv = vec![c_path(&plan.program)?];
        for arg in &plan.args {
            argv.push(c_string(OsStr::new(arg))?);
        }
        let mut envp = Vec::new();
        for (name, value) in env {
            let mut pair = name.as_bytes().to_vec();
            pair.push(b'=');
            pair.extend_from_slice(value.as_bytes());
            envp.push(CString::new(pair).map_err(|_| SandboxError::Plan("NUL in env".into()))?);
        }
        let namespaces = plan.layers.namespaces;
        let hide: Vec<&PathBuf> = match namespaces {
            true => plan.hide.iter().filter(|p| is_real_dir(p)).collect(),
            false => Vec::new(),
        };
        let granted = (plan.read_exec.iter().map(|p| (p, true, false)))
            .chain(plan.read.iter().map(|p| (p, true, true)))
            .chain(plan.write.iter().map(|p| (p, false, false)))
            .chain(std::iter::once((&plan.workdir, false, false)));
        let mut rebinds: Vec<Rebind> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (path, read_only, no_exec) in granted {
            let Some(under) = hide.iter().find(|h| path.starts_with(h) && path != **h) else {
                continue;
            };
            if seen.insert(path) {
                rebinds.push(rebind(under, path, read_only, no_exec)?);
            }
        }
        let (ruleset, handled) = match plan.layers.landlock {
            true => landlock_ruleset(plan)?,
            false => (None, 0),
        };
        Ok(Self {
            program: c_path(&plan.program)?,
            argv,
            envp,
            workdir: c_path(&plan.workdir)?,
            namespaces,
            network: namespaces && plan.layers.network,
            hide: hide.iter().map(|h| c_path(h)).collect::<Result<_, _>>()?,
            rebinds,
            ruleset,
            handled,
            seccomp: match plan.layers.seccomp {
                true => seccomp::programs()?,
                false => Vec::new(),
            },
            max_processes: plan.max_processes,
            proxy_port: plan
                .proxy_port
                .filter(|_| namespaces && plan.layers.network),
        })
    }
}

fn is_real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// `path` (under the hidden folder `under`), mounted back after the tmpfs.
fn rebind(
    under: &Path,
    path: &Path,
    read_only: bool,
    no_exec: bool,
) -> Result<Rebind, SandboxError> {
    let meta = std::fs::metadata(path).map_err(|e| SandboxError::Grant(path.to_path_buf(), e))?;
    let mut parents = Vec::new();
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == under || !d.starts_with(under) {
            break;
        }
        parents.push(c_path(d)?);
        dir = d.parent();
    }
    parents.reverse();
    Ok(Rebind {
        path: c_path(path)?,
        parents,
        is_dir: meta.is_dir(),
        read_only,
        no_exec,
    })
}

/// The ruleset with a rule for each granted path that exists now; scopes keep the server from
/// signalling or reaching (by abstract UNIX socket) anything outside its own sandbox.
fn landlock_ruleset(plan: &Plan) -> Result<(Option<OwnedFd>, u64), SandboxError> {
    let abi = LANDLOCK_ABI;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let read_exec = read | AccessFs::Execute;
    let existing = |paths: &[PathBuf]| -> Vec<PathBuf> {
        paths.iter().filter(|p| p.exists()).cloned().collect()
    };
    let mut writable = existing(&plan.write);
    writable.push(plan.workdir.clone());
    let ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)?
        .scope(Scope::from_all(abi))?
        .create()?
        .add_rules(path_beneath_rules(existing(&plan.read_exec), read_exec))?
        .add_rules(path_beneath_rules(existing(&plan.read), read))?
        .add_rules(path_beneath_rules(writable, all))?;
    let fd: Option<OwnedFd> = ruleset.into();
    // Best effort handled only the rights this kernel knows.
    let known =
        crate::probe::landlock_abi().map_or(0, |abi| AccessFs::from_all(ABI::from(abi)).bits());
    Ok((fd, all.bits() & known))
}
