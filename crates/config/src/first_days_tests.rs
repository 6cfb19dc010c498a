//! What a new operator's files trip on: layered defaults, empty servers tables, wrong types,
//! misspelt keys, JSON no host reads.

use super::*;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn load(paths: &[PathBuf]) -> Result<Config, Problems> {
    load_with_env(paths, &|_| None)
}

#[test]
fn a_settings_only_toml_layers_with_an_mcp_json() {
    let dir = tempfile::tempdir().unwrap();
    let toml = write(&dir, "switchboard.toml", "[gateway]\nnaming = \"{tool}\"\n");
    let json = write(
        &dir,
        "mcp.json",
        r#"{"mcpServers": {"time": {"command": "t"}}}"#,
    );
    let config = load(&[toml, json]).unwrap();
    assert_eq!(config.servers.len(), 1);
    assert_eq!(config.gateway.naming.as_deref(), Some("{tool}"));
}

#[test]
fn an_empty_servers_table_is_an_error_naming_its_file_unless_another_file_has_servers() {
    let dir = tempfile::tempdir().unwrap();
    let toml = write(&dir, "switchboard.toml", "[gateway]\nnaming = \"{tool}\"\n");
    let empty = write(&dir, "mcp.json", r#"{"mcpServers": {}}"#);
    let problems = load(&[toml.clone(), empty.clone()]).unwrap_err().0;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].file, empty.display().to_string());
    assert_eq!(problems[0].message, NO_SERVERS);
    // Settings alone are fine; so is an empty file beside one with servers.
    load(std::slice::from_ref(&toml)).unwrap();
    let full = write(&dir, "more.json", r#"{"servers": {"a": {"command": "a"}}}"#);
    assert_eq!(load(&[empty, full]).unwrap().servers.len(), 1);
}

#[test]
fn a_servers_key_of_the_wrong_type_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "mcp.json",
        "{\n  \"mcpServers\": [\n    {\"command\": \"t\"}\n  ]\n}\n",
    );
    let problems = load(&[path]).unwrap_err().0;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].line, Some(2));
    assert!(
        problems[0].message.contains("mcpServers is a list"),
        "{}",
        problems[0]
    );
}

#[test]
fn a_misspelt_key_is_warned_with_the_key_it_resembles() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "mcp.json",
        "{\"mcpServers\": {\"time\": {\n  \"command\": \"uvx\",\n  \"arg\": [\"mcp-server-time\"]\n}}}\n",
    );
    let config = load(&[path]).unwrap();
    let warning = &config.warnings[0];
    assert_eq!(warning.line, Some(3));
    assert!(
        warning.message.contains("did you mean \"args\""),
        "{warning}"
    );
}

#[test]
fn a_missing_comma_stops_the_load_with_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "mcp.json",
        "{\"mcpServers\": {\n  \"a\": {\"command\": \"a\"}\n  \"b\": {\"command\": \"b\"}\n}}\n",
    );
    let problems = load(std::slice::from_ref(&path)).unwrap_err().0;
    assert_eq!(problems[0].file, path.display().to_string());
    assert_eq!(problems[0].line, Some(2));
    assert!(problems[0].message.contains("column"), "{}", problems[0]);
}
