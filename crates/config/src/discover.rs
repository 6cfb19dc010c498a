//! Where each MCP host keeps its server list for this user (Linux and macOS), for `config discover`.

use std::path::{Path, PathBuf};

/// Whether a file applies to every project of the user or to the folder it sits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    User,
    Project,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// One place a host reads MCP servers from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFile {
    pub host: &'static str,
    pub scope: Scope,
    pub path: PathBuf,
}

/// The folders the host paths hang off.
pub struct Places {
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    pub config: PathBuf,
    /// `$CODEX_HOME`, else `~/.codex`.
    pub codex_home: PathBuf,
    /// The folder `config discover` runs in (project files).
    pub cwd: PathBuf,
}

impl Places {
    /// From the process environment.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>, cwd: PathBuf) -> Option<Self> {
        let home = PathBuf::from(env("HOME")?);
        let config = env("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".config"));
        let codex_home = env("CODEX_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".codex"));
        Some(Self {
            home,
            config,
            codex_home,
            cwd,
        })
    }
}

/// Every documented place, user files first; the caller keeps the ones that exist.
pub fn candidates(p: &Places) -> Vec<HostFile> {
    let mac = p.home.join("Library/Application Support");
    let user = |host, path: PathBuf| HostFile {
        host,
        scope: Scope::User,
        path,
    };
    let project = |host, rel: &str| HostFile {
        host,
        scope: Scope::Project,
        path: p.cwd.join(rel),
    };
    let mut out = vec![
        user(
            "Claude Desktop",
            mac.join("Claude/claude_desktop_config.json"),
        ),
        user(
            "Claude Desktop",
            p.config.join("Claude/claude_desktop_config.json"),
        ),
        user("Claude Code", p.home.join(".claude.json")),
        user("Cursor", p.home.join(".cursor/mcp.json")),
    ];
    for app in ["Code", "Code - Insiders"] {
        for base in [&mac, &p.config] {
            out.push(user("VS Code", base.join(app).join("User/mcp.json")));
            out.push(user("VS Code", base.join(app).join("User/settings.json")));
        }
    }
    out.extend([
        user("Windsurf", p.home.join(".codeium/windsurf/mcp_config.json")),
        user("Codex", p.codex_home.join("config.toml")),
        user("Zed", p.config.join("zed/settings.json")),
        user("Zed", p.home.join(".config/zed/settings.json")),
        user("Goose", p.config.join("goose/config.yaml")),
        user("Goose", p.home.join(".config/goose/config.yaml")),
        project("Claude Code", ".mcp.json"),
        project("Cursor", ".cursor/mcp.json"),
        project("VS Code", ".vscode/mcp.json"),
        project("Codex", ".codex/config.toml"),
        project("Zed", ".zed/settings.json"),
    ]);
    let mut seen: Vec<PathBuf> = Vec::new();
    out.retain(|f| {
        let new = !seen.contains(&f.path);
        seen.push(f.path.clone());
        new
    });
    out
}

/// Whether a host's settings file is only a settings file here (VS Code's and Zed's
/// settings.json hold MCP servers only when the user added some).
pub fn is_general_settings(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "settings.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_has_a_place_and_no_path_repeats() {
        let places = Places {
            home: "/h".into(),
            config: "/h/.config".into(),
            codex_home: "/h/.codex".into(),
            cwd: "/w".into(),
        };
        let all = candidates(&places);
        for host in [
            "Claude Desktop",
            "Claude Code",
            "Cursor",
            "VS Code",
            "Windsurf",
            "Codex",
            "Zed",
            "Goose",
        ] {
            assert!(all.iter().any(|f| f.host == host), "{host}");
        }
        let zed: Vec<_> = all.iter().filter(|f| f.host == "Zed").collect();
        assert_eq!(zed.len(), 2, "the XDG and ~/.config paths are one here");
        assert!(all.contains(&HostFile {
            host: "Codex",
            scope: Scope::User,
            path: "/h/.codex/config.toml".into()
        }));
    }
}
