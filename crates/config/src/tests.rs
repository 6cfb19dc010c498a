use super::*;
use std::io::Write;
use switchboard_core::{HttpWire, Transport};

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    path
}

fn env(name: &str) -> Option<String> {
    match name {
        "GH_TOKEN" => Some("gh-secret".into()),
        "HOME" => Some("/home/u".into()),
        _ => None,
    }
}

fn load(paths: &[PathBuf]) -> Result<Config, Problems> {
    load_with_env(paths, &env)
}

#[test]
fn claude_desktop_shape_with_comments_and_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "mcp.json",
        r#"{
  // Claude Desktop / Cursor shape
  "mcpServers": {
    "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"HOME": "${HOME}"}, "timeoutMs": 5000},
    "GitHub": {"type": "http", "url": "https://api.example.test/mcp",
               "headers": {"Authorization": "Bearer {env:GH_TOKEN}"}},
    "local": {"command": "./server", "cwd": "${workspaceRoot}/sub", "disabled": true},
  }
}"#,
    );
    let cfg = load(&[p]).unwrap();
    assert_eq!(cfg.servers.len(), 3);
    let time = cfg.server("time").unwrap();
    assert_eq!(time.timeout, Some(std::time::Duration::from_millis(5000)));
    let Transport::Stdio(stdio) = &time.transport else {
        panic!()
    };
    assert_eq!(stdio.env["HOME"], "/home/u");
    let Transport::Http(http) = &cfg.server("github").unwrap().transport else {
        panic!()
    };
    assert_eq!(http.headers["Authorization"], "Bearer gh-secret");
    let local = cfg.server("local").unwrap();
    assert!(!local.enabled);
    let Transport::Stdio(stdio) = &local.transport else {
        panic!()
    };
    let root = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(stdio.cwd.as_deref(), Some(root.join("sub").as_path()));
}

#[test]
fn vscode_shape_and_auth() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "settings.json",
        r#"{"servers": {"remote": {"type": "streamable-http", "url": "https://x.test/mcp",
             "auth": {"type": "bearer", "token": "${GH_TOKEN}"}, "tools": ["a", "b"]}}}"#,
    );
    let cfg = load(&[p]).unwrap();
    let s = cfg.server("remote").unwrap();
    let Transport::Http(http) = &s.transport else {
        panic!()
    };
    assert_eq!(http.bearer_token.as_deref(), Some("gh-secret"));
    assert!(s.allows_tool("a") && !s.allows_tool("c"));
}

#[test]
fn api_key_auth_becomes_a_header_and_its_mistakes_are_problems() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "mcp.json",
        r#"{"mcpServers": {
  "keyed": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "apiKey", "headerName": "X-API-Key", "key": "${GH_TOKEN}"}},
  "nokey": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "apiKey"}},
  "badname": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "apiKey", "headerName": "X API Key", "key": "k"}}
}}"#,
    );
    let text = load(std::slice::from_ref(&p)).unwrap_err().to_string();
    assert!(text.contains("apiKey auth needs a key"), "{text}");
    assert!(text.contains("is not an HTTP header name"), "{text}");
    std::fs::write(
        &p,
        r#"{"mcpServers": {"keyed": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "apiKey", "headerName": "X-API-Key", "valuePrefix": "Key ", "key": "${GH_TOKEN}"}}}}"#,
    )
    .unwrap();
    let cfg = load(&[p]).unwrap();
    let keyed = cfg.server("keyed").unwrap();
    let Transport::Http(http) = &keyed.transport else {
        panic!()
    };
    assert_eq!(http.headers["X-API-Key"], "Key gh-secret");
    assert_eq!(http.bearer_token, None);
    assert!(!format!("{keyed:?}").contains("gh-secret"), "redacted");
}

#[test]
fn oauth_auth_types_are_read_with_their_mistakes_as_problems() {
    use switchboard_core::OAuthSpec;
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "mcp.json",
        r#"{"mcpServers": {
  "given": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "oauth2", "accessToken": "${GH_TOKEN}", "refreshToken": "r-12345", "clientId": "app", "tokenUrl": "https://as.test/token"}},
  "machine": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "clientCredentials", "tokenUrl": "https://as.test/token", "clientId": "svc", "clientSecret": "s-1", "scopes": "read write"}},
  "person": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "authorizationCode", "scopes": ["read"], "client": {"id": "pre", "secret": "s-2"}}}
}}"#,
    );
    let cfg = load(std::slice::from_ref(&p)).unwrap();
    let oauth = |name: &str| match &cfg.server(name).unwrap().transport {
        Transport::Http(http) => http.oauth.clone().unwrap(),
        Transport::Stdio(_) => panic!(),
    };
    let OAuthSpec::Tokens {
        access_token,
        refresh_token,
        client,
        token_url,
    } = oauth("given")
    else {
        panic!()
    };
    assert_eq!(access_token, "gh-secret");
    assert_eq!(refresh_token.as_deref(), Some("r-12345"));
    assert_eq!(client.unwrap().id, "app");
    assert_eq!(token_url.as_deref(), Some("https://as.test/token"));
    let OAuthSpec::ClientCredentials { scopes, client, .. } = oauth("machine") else {
        panic!()
    };
    assert_eq!(scopes, ["read", "write"]);
    assert_eq!(client.secret.as_deref(), Some("s-1"));
    let OAuthSpec::AuthorizationCode { client, scopes, .. } = oauth("person") else {
        panic!()
    };
    assert_eq!(client.unwrap().id, "pre");
    assert_eq!(scopes, ["read"]);
    // Secrets never show in debug output, and count as secrets for redaction.
    let given = cfg.server("given").unwrap();
    assert!(!format!("{given:?}").contains("r-12345"), "{given:?}");
    assert_eq!(
        given.redact("token r-12345 was refused"),
        "token <redacted> was refused"
    );

    std::fs::write(
        &p,
        r#"{"mcpServers": {
  "a": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "oauth2"}},
  "b": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "clientCredentials", "clientId": "svc"}},
  "c": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "authorizationCode", "clientMetadataUrl": "http://plain.test/meta.json"}},
  "d": {"type": "http", "url": "https://x.test/mcp", "auth": {"type": "magic"}}
}}"#,
    )
    .unwrap();
    let text = load(&[p]).unwrap_err().to_string();
    assert!(text.contains("this auth type needs accessToken"), "{text}");
    assert!(text.contains("this auth type needs tokenUrl"), "{text}");
    assert!(text.contains("this auth type needs clientSecret"), "{text}");
    assert!(text.contains("must be served over https"), "{text}");
    assert!(text.contains("auth type \"magic\" is not known"), "{text}");
}

#[test]
fn workspace_yaml_shape_applies_the_tool_allowlist() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "workspace.yaml",
        "mcp_registry:\n  servers:\n    billing:\n      type: remote\n      url: https://billing.test/mcp\n      timeout_ms: 2000\n      enabled: true\n    clock:\n      type: stdio\n      command: clock-server\n  allowlist:\n    tool_ids: [billing.charge, clock.now]\n",
    );
    let cfg = load(&[p]).unwrap();
    let billing = cfg.server("billing").unwrap();
    assert!(billing.allows_tool("charge") && !billing.allows_tool("refund"));
    assert!(cfg.server("clock").unwrap().allows_tool("now"));
}

#[test]
fn config_yaml_list_shape() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "config.yaml",
        "mcp:\n  servers:\n    - name: fs\n      command: fs-server\n      args: [--root, /tmp]\n      idle_timeout: 60\n",
    );
    let cfg = load(&[p]).unwrap();
    let fs = cfg.server("fs").unwrap();
    assert_eq!(fs.idle_timeout, Some(std::time::Duration::from_secs(60)));
}

#[test]
fn native_toml_with_gateway_settings() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "switchboard.toml",
        "[gateway]\nlisten = \"127.0.0.1:9000\"\nnaming = \"mcp__{server}__{tool}\"\n\n[servers.time]\ncommand = \"uvx\"\nargs = [\"mcp-server-time\"]\nlazy = true\n",
    );
    let cfg = load(&[p]).unwrap();
    assert_eq!(cfg.gateway.listen.as_deref(), Some("127.0.0.1:9000"));
    assert_eq!(cfg.gateway.naming.as_deref(), Some("mcp__{server}__{tool}"));
    assert_eq!(cfg.server("time").unwrap().lazy, Some(true));
}

#[test]
fn legacy_sse_refuses_oauth_and_roots_are_file_uris() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "mcp.json",
        r#"{"mcpServers": {"old": {"type": "sse", "url": "https://x.test/sse", "auth": {"type": "authorizationCode"}}}}"#,
    );
    let text = load(&[p]).unwrap_err().to_string();
    assert!(
        text.contains("legacy HTTP+SSE") && text.contains("Streamable HTTP URL"),
        "{text}"
    );
    let t = write(
        &dir,
        "switchboard.toml",
        "[gateway]\nroots = [\"https://x.test/\"]\n",
    );
    let text = load(&[t]).unwrap_err().to_string();
    assert!(text.contains("not a file:// URI"), "{text}");
}

#[test]
fn per_session_is_for_stdio_servers() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "mcp.json",
        r#"{"mcpServers": {"a": {"command": "x", "perSession": true}, "b": {"command": "y"}}}"#,
    );
    let cfg = load(&[p]).unwrap();
    assert!(cfg.server("a").unwrap().per_session);
    assert!(!cfg.server("b").unwrap().per_session);
    let p = write(
        &dir,
        "remote.json",
        r#"{"mcpServers": {"r": {"type": "http", "url": "https://x.example/mcp", "per_session": true}}}"#,
    );
    let text = load(&[p]).unwrap_err().to_string();
    assert!(
        text.contains("per_session") && text.contains("stdio servers only"),
        "{text}"
    );
}

#[test]
fn later_files_win_on_a_name_collision() {
    let dir = tempfile::tempdir().unwrap();
    let global = write(
        &dir,
        "global.json",
        r#"{"mcpServers": {"a": {"command": "one"}, "b": {"command": "b"}}}"#,
    );
    let ws = write(
        &dir,
        "ws.json",
        r#"{"mcpServers": {"a": {"command": "two"}}}"#,
    );
    let cfg = load(&[global, ws]).unwrap();
    let names: Vec<_> = cfg.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let Transport::Stdio(a) = &cfg.server("a").unwrap().transport else {
        panic!()
    };
    assert_eq!(a.command, "two");
}

#[test]
fn a_secret_in_placeholder_shape_is_an_error_naming_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "mcp.json",
        "{\n  \"mcpServers\": {\n    \"ctx\": {\n      \"url\": \"https://c.test/mcp\",\n      \"headers\": {\"X-Key\": \"{env:ctx7sk-abc}\"}\n    }\n  }\n}\n",
    );
    let err = load(std::slice::from_ref(&p)).unwrap_err();
    let problem = &err.0[0];
    assert_eq!(problem.file, p.display().to_string());
    assert_eq!(problem.line, Some(5));
    assert_eq!(problem.key, "mcpServers.ctx.headers.X-Key");
    assert!(problem.message.contains("{env:ctx7sk-abc}"));
    assert!(!err.to_string().is_empty());
}

#[test]
fn every_problem_is_reported_with_a_fix() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "mcp.json",
        r#"{"mcpServers": {
  "a": {"url": "https://a.test", "headers": {"K": "${UNSET_VAR}"}},
  "b": {"type": "carrier-pigeon", "url": "https://b.test"},
  "c": {},
  "d": {"command": "x", "timeout_ms": "soon", "colour": "red"},
  "D": {"command": "y"}
}}"#,
    );
    let err = load(&[p]).unwrap_err();
    let text = err.to_string();
    for needle in [
        "UNSET_VAR",
        "carrier-pigeon",
        "neither command nor url",
        "timeout_ms",
        "normalise",
        "colour",
    ] {
        assert!(text.contains(needle), "missing {needle} in:\n{text}");
    }
    assert!(err.0.iter().all(|p| !p.fix.is_empty()));
}

#[test]
fn legacy_sse_servers_are_read_and_a_bare_url_may_fall_back_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "mcp.json",
        r#"{"mcpServers": {
  "old": {"type": "sse", "url": "https://old.test/sse"},
  "new": {"type": "http", "url": "https://new.test/mcp"},
  "bare": {"url": "https://bare.test/mcp"}
}}"#,
    );
    let cfg = load(&[p]).unwrap();
    let wire = |name: &str| match &cfg
        .servers
        .iter()
        .find(|s| s.name.as_str() == name)
        .unwrap()
        .transport
    {
        Transport::Http(h) => h.wire,
        other => panic!("{other:?}"),
    };
    assert_eq!(wire("old"), HttpWire::LegacySse);
    assert_eq!(wire("new"), HttpWire::Streamable);
    assert_eq!(wire("bare"), HttpWire::Auto);
}

#[test]
fn syntax_errors_point_at_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "mcp.json",
        "{\n \"mcpServers\": {\n  \"a\": {\"command\": }\n }\n}",
    );
    let err = load(&[p]).unwrap_err();
    assert_eq!(err.0[0].line, Some(3));
    let t = write(&dir, "s.toml", "[servers.a]\ncommand = \n");
    assert_eq!(load(&[t]).unwrap_err().0[0].line, Some(2));
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let err = load(&[PathBuf::from("/nonexistent/mcp.json")]).unwrap_err();
    assert!(err.to_string().contains("cannot read"));
}

#[test]
fn the_documented_switchboard_toml_loads() {
    let doc = include_str!("../../../docs/configuration.md");
    let start = doc.find("```toml\n").expect("a toml example") + "```toml\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "switchboard.toml", &doc[start..end]);
    let env = |name: &str| {
        ["GITHUB_TOKEN", "BILLING_KEY", "SWITCHBOARD_TOKEN"]
            .contains(&name)
            .then(|| format!("value-of-{name}"))
    };
    let cfg = load_with_env(&[path], &env).unwrap_or_else(|p| panic!("{p}"));
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
    assert_eq!(cfg.servers.len(), 5);
    assert!(cfg.server("notebook").unwrap().per_session);
    let g = &cfg.gateway;
    assert_eq!(
        g.roots.as_deref(),
        Some(&["file:///srv/projects".to_string()][..])
    );
    assert_eq!(g.token.as_deref(), Some("value-of-SWITCHBOARD_TOKEN"));
    assert_eq!(g.egress_allow_cidrs.as_ref().unwrap().len(), 1);
    assert_eq!(g.limits().max_schema_bytes, 65536);
    assert_eq!(g.tools_search_meaning, Some(true));
    assert_eq!(
        g.allow_env.as_deref(),
        Some(&["NODE_OPTIONS".to_string()][..])
    );
    let files = cfg.server("local_files").unwrap();
    assert_eq!(files.max_concurrent_calls, Some(4));
    let Transport::Stdio(stdio) = &files.transport else {
        panic!()
    };
    assert_eq!(stdio.limits.open_files, Some(256));
}

#[test]
fn a_workspace_allowlist_limits_only_the_servers_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "workspace.yaml",
        "mcp_registry:\n  servers:\n    time:\n      type: stdio\n      command: time-server\n    github:\n      type: remote\n      url: https://gh.test/mcp\n  allowlist:\n    tool_ids: [time.get_current_time]\n",
    );
    let cfg = load(&[p]).unwrap();
    let time = cfg.server("time").unwrap();
    assert!(time.allows_tool("get_current_time") && !time.allows_tool("convert_time"));
    let github = cfg.server("github").unwrap();
    assert!(
        github.allows_tool("create_issue"),
        "a server the allowlist does not name keeps every tool"
    );
}

#[test]
fn a_policy_section_is_kept_with_lines_for_its_fields() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "switchboard.toml",
        "[gateway]\nlisten = \"127.0.0.1:0\"\n\n[policy]\nmode = \"observe\"\n\n[[policy.rules]]\nname = \"a\"\nactions = [\"mcp.x.*\"]\neffect = \"deny\"\n\n[[policy.rules]]\nname = \"b\"\nactions = [\"mcp.y.*\"]\neffect = \"nope\"\n",
    );
    let cfg = load(&[p]).unwrap();
    assert!(cfg.servers.is_empty(), "a settings-only file is valid");
    let policy = &cfg.policy[0];
    assert_eq!(policy.value["mode"], "observe");
    assert_eq!(policy.line("rules[1].effect"), Some(15));
    assert_eq!(policy.line("rules[0].name"), Some(8));
    assert_eq!(policy.line("mode"), Some(5));
    assert_eq!(policy.line("rules[1].actions[0]"), Some(14));
}

#[test]
fn a_zero_limit_is_off_where_documented_and_a_problem_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "switchboard.toml",
        "[limits]\nsession_park_secs = 0\n",
    );
    let cfg = load(std::slice::from_ref(&p)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cfg.gateway.limits().session_park_secs, 0);
    let p = write(&dir, "switchboard.toml", "[limits]\nmax_sessions = 0\n");
    let text = load(&[p]).unwrap_err().to_string();
    assert!(text.contains("limits.max_sessions"), "{text}");
    assert!(text.contains("must be a positive whole number"), "{text}");
}

#[test]
fn a_consent_timeout_past_the_links_ten_minutes_is_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "switchboard.toml",
        "[limits]\nconsent_timeout_secs = 60\n",
    );
    let cfg = load(std::slice::from_ref(&p)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cfg.gateway.limits().consent_timeout_secs, 60);
    let p = write(
        &dir,
        "switchboard.toml",
        "[limits]\nconsent_timeout_secs = 601\n",
    );
    let text = load(&[p]).unwrap_err().to_string();
    assert!(text.contains("limits.consent_timeout_secs"), "{text}");
    assert!(text.contains("at most 600"), "{text}");
}
