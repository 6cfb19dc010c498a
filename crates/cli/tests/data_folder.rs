//! The data folder (issue 35): without `--data` the store and master key go to the platform's
//! per-user folder (XDG on Linux), whatever the current directory; an existing `./.switchboard`
//! is still used, with a warning; `--data` and `SWITCHBOARD_DATA` win.

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// `switchboard ARGS…` in `cwd` with `home` as HOME and `xdg` (if any) as XDG_DATA_HOME, no
/// data folder from the environment.
fn run_in(cwd: &Path, home: &Path, xdg: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("SWITCHBOARD_DATA")
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .env_remove("SWITCHBOARD_MASTER_KEY")
        .env_remove("XDG_DATA_HOME");
    if let Some(xdg) = xdg {
        command.env("XDG_DATA_HOME", xdg);
    }
    let out = command.output().expect("run switchboard");
    assert!(
        out.status.success(),
        "switchboard {args:?} in {}: {}",
        cwd.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn the_store_and_key_go_to_the_xdg_data_folder_not_the_current_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (project, home, xdg) = (
        tmp.path().join("project"),
        tmp.path().join("home"),
        tmp.path().join("xdg"),
    );
    for dir in [&project, &home, &xdg] {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    let out = run_in(&project, &home, Some(&xdg), &["org", "create", "acme"]);
    assert!(
        xdg.join("switchboard/master.key").is_file(),
        "no key in the XDG folder"
    );
    assert_eq!(
        std::fs::read_dir(&project).unwrap().count(),
        0,
        "the project folder was written"
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("WARN"),
        "{out:?}"
    );
    // Started in `/`, as an MCP host may start it: the same folder, the same store.
    let again = Command::new(BIN)
        .args(["org", "create", "acme"])
        .current_dir("/")
        .env("HOME", &home)
        .env("XDG_DATA_HOME", &xdg)
        .env_remove("SWITCHBOARD_DATA")
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .output()
        .expect("run switchboard");
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(
        said.contains("acme") && said.contains("already exists"),
        "{said}"
    );
    // Without XDG_DATA_HOME: ~/.local/share/switchboard.
    run_in(&project, &home, None, &["org", "create", "beta"]);
    assert!(home.join(".local/share/switchboard/master.key").is_file());
}

#[test]
fn an_existing_dot_switchboard_is_still_used_with_a_warning() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (project, home) = (tmp.path().join("project"), tmp.path().join("home"));
    std::fs::create_dir_all(project.join(".switchboard")).expect("mkdir");
    std::fs::create_dir_all(&home).expect("mkdir");
    let out = run_in(&project, &home, None, &["org", "create", "acme"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("using ./.switchboard") && said.contains(".local/share/switchboard"),
        "{said}"
    );
    assert!(project.join(".switchboard/master.key").is_file());
    assert!(!home.join(".local/share/switchboard").exists());
    // --data wins over both, without a warning.
    let chosen = tmp.path().join("chosen");
    let out = run_in(
        &project,
        &home,
        None,
        &["org", "create", "acme", "--data", chosen.to_str().unwrap()],
    );
    assert!(chosen.join("master.key").is_file());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("using ./.switchboard"));
}
