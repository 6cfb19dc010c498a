//! Host files read unchanged: Codex, Zed, Goose, Claude Code, VS Code inputs and Windsurf.

use super::*;
use switchboard_core::{HttpWire, Transport};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hosts")
        .join(name)
}

fn env(name: &str) -> Option<String> {
    match name {
        "GH_TOKEN" => Some("gh-secret".into()),
        "SWITCHBOARD_INPUT_GH_TOKEN" => Some("input-secret".into()),
        _ => None,
    }
}

fn load(name: &str) -> Result<Config, Problems> {
    load_with_env(&[fixture(name)], &env)
}

fn stdio(spec: &ServerSpec) -> &switchboard_core::StdioSpec {
    match &spec.transport {
        Transport::Stdio(s) => s,
        Transport::Http(_) => panic!("{} is not stdio", spec.name),
    }
}

fn http(spec: &ServerSpec) -> &switchboard_core::HttpSpec {
    match &spec.transport {
        Transport::Http(h) => h,
        Transport::Stdio(_) => panic!("{} is not http", spec.name),
    }
}

#[test]
fn codex_config_toml() {
    let cfg = load("codex-config.toml").unwrap();
    let names: Vec<_> = cfg.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["docs", "figma", "off"]);
    let docs = cfg.server("docs").unwrap();
    assert_eq!(stdio(docs).env["GH_TOKEN"], "gh-secret");
    assert_eq!(stdio(docs).env["LOG_LEVEL"], "warn");
    assert_eq!(docs.timeout, Some(std::time::Duration::from_secs(45)));
    assert!(!docs.allows_tool("resolve-library-id") && docs.allows_tool("get-library-docs"));
    let figma = cfg.server("figma").unwrap();
    assert_eq!(http(figma).bearer_token.as_deref(), Some("gh-secret"));
    assert_eq!(http(figma).headers["X-Region"], "eu");
    assert_eq!(http(figma).headers["X-Org"], "gh-secret");
    assert!(figma.allows_tool("get_file") && !figma.allows_tool("other"));
    assert!(!cfg.server("off").unwrap().enabled);
    // Codex's own settings are not Switchboard's business: no warnings about them.
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
}

#[test]
fn zed_settings_both_shapes_and_extension_servers_skipped() {
    let cfg = load("zed-settings.json").unwrap();
    let names: Vec<_> = cfg.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["postgres", "older_shape", "remote"]);
    let older = stdio(cfg.server("older_shape").unwrap());
    assert_eq!(older.command, "uvx");
    assert_eq!(older.args, ["mcp-server-time"]);
    assert_eq!(older.env["TZ"], "UTC");
    assert_eq!(
        http(cfg.server("remote").unwrap()).headers["Authorization"],
        "Bearer gh-secret"
    );
    let skipped = &cfg.warnings[0];
    assert!(skipped.message.contains("Zed extension"), "{skipped}");
    assert_eq!(skipped.line, Some(20));
}

#[test]
fn goose_config_yaml() {
    let cfg = load("goose-config.yaml").unwrap();
    let names: Vec<_> = cfg.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["github", "linear"]);
    let github = cfg.server("github").unwrap();
    assert_eq!(stdio(github).command, "npx");
    assert_eq!(stdio(github).env["GH_TOKEN"], "gh-secret");
    assert_eq!(github.timeout, Some(std::time::Duration::from_secs(300)));
    let linear = cfg.server("linear").unwrap();
    assert!(!linear.enabled);
    assert_eq!(http(linear).wire, HttpWire::Streamable);
    assert_eq!(http(linear).url, "https://mcp.linear.test/mcp");
    assert!(cfg.warnings[0].message.contains("builtin"));
}

#[test]
fn claude_code_user_and_project_servers() {
    let cfg = load("claude.json").unwrap();
    let names: Vec<_> = cfg.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["sentry", "time", "db"]);
    assert_eq!(
        http(cfg.server("sentry").unwrap()).headers["X-Key"],
        "none",
        "${{VAR:-default}} falls back"
    );
    // ${workspaceRoot} of a project's server is the project's folder.
    assert_eq!(
        stdio(cfg.server("db").unwrap()).args,
        ["--root", "/home/u/work/api"]
    );
    // The same `time` in two projects is read once; a different `db` is skipped, said once.
    assert_eq!(cfg.warnings.len(), 1, "{:?}", cfg.warnings);
    let w = &cfg.warnings[0];
    assert_eq!(w.key, "projects./home/u/work/web.mcpServers.db");
    assert_eq!(w.line, Some(14));
}

#[test]
fn vscode_inputs_resolve_and_name_the_missing_ones() {
    let cfg = load("vscode-mcp.json").unwrap();
    let github = cfg.server("github").unwrap();
    assert_eq!(
        stdio(github).env["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "input-secret"
    );
    assert!(github.secrets.contains(&"input-secret".to_string()));
    let missing = load_with_env(&[fixture("vscode-mcp.json")], &|_| None).unwrap_err();
    let text = missing.to_string();
    assert!(text.contains("input \"gh-token\""), "{text}");
    assert!(text.contains("switchboard input set gh-token"), "{text}");
    assert!(text.contains("SWITCHBOARD_INPUT_GH_TOKEN"), "{text}");
}

#[test]
fn windsurf_server_url_and_disabled_tools() {
    let cfg = load("windsurf-mcp_config.json").unwrap();
    let remote = cfg.server("remote").unwrap();
    assert_eq!(http(remote).url, "https://mcp.example.test/mcp");
    assert!(!remote.allows_tool("delete_all") && remote.allows_tool("read"));
    assert!(!cfg.server("local").unwrap().enabled);
}

#[test]
fn a_problem_in_a_host_key_names_the_key_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, "extensions:\n  x:\n    type: stdio\n    cmd: 42\n").unwrap();
    let problems = load_with_env(&[path], &env).unwrap_err();
    let p = &problems.0[0];
    assert_eq!(p.key, "extensions.x.cmd");
    assert_eq!(p.line, Some(4));
}
