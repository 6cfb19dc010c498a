//! The `sandbox` key of a server entry and `[sandbox] mode`, in each shape they are written.

use super::*;
use switchboard_core::{SandboxChoice, SandboxGrants};

fn load_text(name: &str, text: &str) -> (tempfile::TempDir, Result<Config, Problems>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let loaded = load_with_env(&[path], &|_: &str| None);
    (dir, loaded)
}

#[test]
fn sandbox_is_read_in_json_and_toml_shapes() {
    let json = r#"{"mcpServers": {
        "off": {"command": "x", "sandbox": false},
        "plain": {"command": "y"},
        "granted": {"command": "z", "sandbox": {"read": ["data"], "write": ["/srv/out"], "net": ["api.example.com:443"]}}
    }}"#;
    let (dir, cfg) = load_text("mcp.json", json);
    let cfg = cfg.unwrap();
    assert_eq!(cfg.server("off").unwrap().sandbox, SandboxChoice::Off);
    assert_eq!(
        cfg.server("plain").unwrap().sandbox,
        SandboxChoice::default()
    );
    let granted = SandboxGrants {
        read: vec![dir.path().join("data")],
        write: vec!["/srv/out".into()],
        net: vec!["api.example.com:443".into()],
    };
    assert_eq!(
        cfg.server("granted").unwrap().sandbox,
        SandboxChoice::On(granted)
    );
    let toml = "[sandbox]\nmode = \"strict\"\n\n[servers.off]\ncommand = \"x\"\nsandbox = false\n";
    let (_dir, cfg) = load_text("switchboard.toml", toml);
    let cfg = cfg.unwrap();
    assert_eq!(cfg.server("off").unwrap().sandbox, SandboxChoice::Off);
    assert_eq!(cfg.gateway.sandbox_mode.as_deref(), Some("strict"));
}

#[test]
fn sandbox_mistakes_are_problems_that_name_the_fix() {
    for (text, expected) in [
        (
            r#"{"mcpServers": {"a": {"command": "x", "sandbox": "no"}}}"#,
            "must be true, false or a table",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "sandbox": {"reads": ["/a"]}}}}"#,
            "unknown sandbox key",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "sandbox": {"read": "/a"}}}}"#,
            "must be a list of strings",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "sandbox": {"net": ["https://api.example.com"]}}}}"#,
            "write the host alone",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "sandbox": {"net": ["api.example.com:99999"]}}}}"#,
            "is not a port",
        ),
        (
            r#"{"mcpServers": {"a": {"type": "http", "url": "https://x.example/mcp", "sandbox": false}}}"#,
            "stdio servers only",
        ),
    ] {
        let (_dir, loaded) = load_text("mcp.json", text);
        let problems = loaded.unwrap_err().to_string();
        assert!(problems.contains(expected), "{text}: {problems}");
    }
    let (_dir, loaded) = load_text("switchboard.toml", "[sandbox]\nmode = \"loose\"\n");
    let problems = loaded.unwrap_err().to_string();
    assert!(problems.contains("\"auto\" or \"strict\""), "{problems}");
}

#[test]
fn the_sandboxs_own_variables_are_refused_in_an_entry_whatever_allow_env_says() {
    let text = "[stdio]\nallow_env = [\"SWITCHBOARD_SANDBOX_PLAN\"]\n\n[servers.a]\ncommand = \"x\"\nenv = { SWITCHBOARD_SANDBOX_PLAN = \"{}\" }\n";
    let (_dir, loaded) = load_text("switchboard.toml", text);
    let problems = loaded.unwrap_err().to_string();
    assert!(problems.contains("is the gateway's own"), "{problems}");
}
