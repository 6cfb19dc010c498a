//! What a launch names: the program on PATH, its install prefixes, its interpreter, the paths
//! its arguments name, and whether it is a package runner.

use super::Access;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Commands that fetch a package and run it (`npx -y pkg`, `uvx pkg`): they reach their
/// registry at start, so they keep the host's network (package installs do not go through the egress proxy yet).
const PACKAGE_RUNNERS: &[&str] = &["npx", "uvx", "bunx", "pipx", "pnpx"];

/// The package runner `command` is (`npx`, or `uv` with `tool run`/`run --with`, `pnpm dlx`…).
pub fn package_runner(command: &str, args: &[String]) -> Option<&'static str> {
    let name = Path::new(command).file_name()?.to_str()?;
    if let Some(runner) = PACKAGE_RUNNERS.iter().find(|r| **r == name) {
        return Some(runner);
    }
    let first = args.first().map(String::as_str);
    match (name, first) {
        ("uv", Some("tool" | "run")) => Some("uv"),
        ("pnpm" | "yarn", Some("dlx")) => Some("dlx"),
        ("npm", Some("exec" | "x")) => Some("npm exec"),
        _ => None,
    }
}

/// `command` as an absolute path, symlinks kept (a virtual environment's `bin/python` must
/// start as itself): as given when it has a slash, else the first match on `path`.
pub(super) fn find(command: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    if command.contains('/') {
        let p = std::path::absolute(command).ok()?;
        return p.is_file().then_some(p);
    }
    std::env::split_paths(path?)
        .map(|dir| dir.join(command))
        .find(|candidate| candidate.is_file())
        .and_then(|p| std::path::absolute(p).ok())
}

/// The folders a program needs to run: its install prefix (`…/bin/x` → `…`) as started and as
/// its symlinks resolve, a virtual environment's base interpreter (`home` in `pyvenv.cfg`),
/// and the interpreter a script's `#!` line names.
///
/// A prefix right under the home folder (`~/.local/bin/x`, `~/.cargo/bin/x`) is not granted
/// whole (it holds keyrings, history, registry tokens): only the `bin` folder, beside what the
/// program's links resolve to.
pub(super) fn install_prefixes(program: &Path, home: Option<&Path>) -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    let mut add = |program: &Path, why: &str| {
        let dir = program.parent().unwrap_or(Path::new("/"));
        let prefix = match dir.file_name() == Some(OsStr::new("bin")) {
            true => dir.parent().unwrap_or(dir),
            false => dir,
        };
        let prefix = match home.is_some_and(|h| prefix.parent() == Some(h)) {
            true => dir,
            false => prefix,
        };
        if !out.iter().any(|(p, _)| p == prefix) {
            out.push((
                prefix.to_path_buf(),
                format!("{why} ({})", program.display()),
            ));
        }
        prefix.to_path_buf()
    };
    let prefix = add(program, "the command's install prefix");
    if let Ok(real) = program.canonicalize() {
        add(&real, "the command's install prefix, its links resolved");
    }
    if let Some(home) = venv_home(&prefix) {
        add(
            &home.join("python"),
            "the base interpreter of the virtual environment",
        );
    }
    if let Some(interpreter) = shebang(program) {
        add(&interpreter, "the interpreter its #! line names");
    }
    out
}

/// The folder `home = …` of a virtual environment's `pyvenv.cfg` names (uv and pyenv keep
/// base interpreters under the home folder).
fn venv_home(prefix: &Path) -> Option<PathBuf> {
    let cfg = std::fs::read_to_string(prefix.join("pyvenv.cfg")).ok()?;
    let home = cfg.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "home").then(|| PathBuf::from(value.trim()))
    })?;
    home.canonicalize().ok()
}

/// The interpreter of a script (`#!/usr/bin/env node` → node on PATH).
fn shebang(program: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = std::str::from_utf8(line.split(|&b| b == b'\n').next()?).ok()?;
    let mut words = line.split_whitespace();
    let first = words.next()?;
    match first.ends_with("/env") {
        true => find(
            words.find(|w| !w.starts_with('-'))?,
            std::env::var_os("PATH").as_deref(),
        ),
        false => PathBuf::from(first).canonicalize().ok(),
    }
}

/// An argument that names an existing path (or `--flag=PATH`): the grant it implies, and the
/// argument made absolute when the server will not run where it was written (no `cwd`).
pub(super) fn named_path(
    arg: &str,
    base: Option<&Path>,
    make_absolute: bool,
) -> (String, Option<(PathBuf, Access, String)>) {
    let (flag, value) = match arg.split_once('=') {
        Some((flag, value)) if flag.starts_with('-') => (Some(flag), value),
        _ => (None, arg),
    };
    if value.is_empty() || value.starts_with('-') {
        return (arg.to_string(), None);
    }
    let candidate = match (Path::new(value).is_absolute(), base) {
        (true, _) => PathBuf::from(value),
        (false, Some(base)) => base.join(value),
        (false, None) => return (arg.to_string(), None),
    };
    let Ok(path) = candidate.canonicalize() else {
        return (arg.to_string(), None);
    };
    let why = format!("named on the command line ({arg})");
    let grant = match path.is_dir() {
        true => (path.clone(), Access::Write, why),
        // A file right in a hidden folder (`/tmp/cfg.json`): that file alone, since the
        // folder itself stays hidden.
        false => match package_root(&path) {
            root if super::HIDDEN.iter().any(|h| root == Path::new(h)) => {
                (path.clone(), Access::Read, why)
            }
            root => (root, Access::Read, why),
        },
    };
    let rewritten = match (make_absolute && !Path::new(value).is_absolute(), flag) {
        (false, _) => arg.to_string(),
        (true, Some(flag)) => format!("{flag}={}", path.display()),
        (true, None) => path.display().to_string(),
    };
    (rewritten, Some(grant))
}

/// A file's folder, or the folder holding the outermost `node_modules` or virtual environment
/// it lives in (a script imports its neighbours and its dependencies).
fn package_root(file: &Path) -> PathBuf {
    let outermost_modules = file
        .ancestors()
        .filter(|a| a.file_name() == Some(OsStr::new("node_modules")))
        .last();
    if let Some(root) = outermost_modules.and_then(Path::parent) {
        return root.to_path_buf();
    }
    if let Some(venv) = file.ancestors().find(|a| a.join("pyvenv.cfg").is_file()) {
        return venv.to_path_buf();
    }
    file.parent().unwrap_or(Path::new("/")).to_path_buf()
}
