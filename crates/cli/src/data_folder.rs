//! Where the embedded store and the master key live: `--data`, else the platform's data folder.

use std::path::{Path, PathBuf};

/// The folder earlier versions used by default, relative to the current directory.
const LEGACY: &str = ".switchboard";

/// The data folder in force: `given` (`--data` or `SWITCHBOARD_DATA`); else an existing
/// `./.switchboard` (an earlier default, kept so nothing is lost, with a warning); else the
/// platform's per-user data folder (`$XDG_DATA_HOME/switchboard`, `~/.local/share/switchboard`,
/// `~/Library/Application Support/switchboard`, `%APPDATA%\switchboard`).
pub(crate) fn resolve(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(given) = given {
        return Ok(given.to_path_buf());
    }
    let platform = platform_default();
    if Path::new(LEGACY).is_dir() {
        let instead = match &platform {
            Some(p) => format!("move it to {} or pass --data .switchboard", p.display()),
            None => "pass --data .switchboard".to_string(),
        };
        tracing::warn!(
            "using ./.switchboard in the current directory as the data folder (an earlier default); {instead} to keep it deliberately, and keep it out of version control: it holds the master key"
        );
        return Ok(PathBuf::from(LEGACY));
    }
    platform.ok_or_else(|| {
        anyhow::anyhow!(
            "no per-user data folder is known here (HOME and XDG_DATA_HOME are unset); pass --data DIR or set SWITCHBOARD_DATA"
        )
    })
}

/// `{platform data folder}/switchboard`, when the platform names one.
fn platform_default() -> Option<PathBuf> {
    dirs::data_dir().map(|dir| dir.join("switchboard"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_folder_given_wins_over_every_default() {
        let given = std::path::Path::new("/srv/switchboard");
        assert_eq!(super::resolve(Some(given)).unwrap(), given);
    }
}
