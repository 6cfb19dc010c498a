//! Names the commit the binary is built from (`switchboard --version`, `/version`): the
//! `SWITCHBOARD_COMMIT` environment variable when set (a build from a tarball or an image
//! without `.git`), else `git rev-parse`, else `unknown`.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=SWITCHBOARD_COMMIT");
    let git = |args: &[&str]| {
        let out = Command::new("git").args(args).output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
    };
    let commit = std::env::var("SWITCHBOARD_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SWITCHBOARD_COMMIT={commit}");
    // Built again when HEAD moves (a commit, a checkout), not on every edit.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        for file in ["HEAD", "refs/heads", "packed-refs"] {
            println!("cargo:rerun-if-changed={dir}/{file}");
        }
    }
}
