//! Test helpers: where the real fixture servers live, and starting them on loopback.

pub mod balancer;
mod extensions;
pub mod oauth_fixture;
pub mod oidc;
pub mod otlp;
mod postgres;
pub mod proxy;
mod raw_http;

pub use extensions::{
    Request2026, extensions_args, extensions_entry, extensions_http, node22, rpc_2026,
};
pub use postgres::{TestSchema, count, postgres_addr, postgres_url, tamper};
pub use raw_http::{
    call_tool_answer, call_tool_as, eventually, initialize_request, initialize_with, metric,
    open_session, post_in_session, post_mcp, post_mcp_from, response_in, rest, rpc_answer,
    tool_names, tool_outcome,
};

use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

fn fixture(path: &str) -> PathBuf {
    let p = repo_root().join(".fixtures").join(path);
    assert!(
        p.exists(),
        "missing test fixture {}: run scripts/fixtures.sh first (the README's test command does)",
        p.display()
    );
    p
}

/// The Python with the official `mcp` SDK and `mcp-server-time` installed.
pub fn python() -> PathBuf {
    fixture("venv/bin/python")
}

/// The Python with the official `mcp` SDK 2.x (its `Client` class).
pub fn python2() -> PathBuf {
    fixture("venv2/bin/python")
}

/// Our fixture whose tools ask their caller for things (sampling, elicitation, roots, logs).
pub fn relay_server() -> PathBuf {
    repo_root().join("tests/fixtures/relay_server.py")
}

/// `@modelcontextprotocol/server-everything`'s entry point.
pub fn everything_js() -> PathBuf {
    fixture("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// Our Streamable HTTP fixture on the Python SDK that counts its tools' runs in a file.
pub fn counting_http_server() -> PathBuf {
    repo_root().join("tests/fixtures/counting_http_server.py")
}

/// The hostile Streamable HTTP fixture (stdlib Python: invalid UTF-8, a JSON bomb, an SSE
/// stream that never ends, a dripping body, 5xx answers, FIXTURE_TOOLS=N more tools).
pub fn hostile_http_server() -> PathBuf {
    repo_root().join("tests/fixtures/hostile_http_server.py")
}

/// Our misbehaving fixture server.
pub fn misbehaving_server() -> PathBuf {
    repo_root().join("tests/fixtures/misbehaving_server.py")
}

/// A Python client script under tests/clients.
pub fn client_script(name: &str) -> PathBuf {
    repo_root().join("tests/clients").join(name)
}

/// Runs a Python client script under tests/clients with `args` and reads the one JSON value
/// it prints; panics with its output when it fails or prints something else.
pub async fn run_client(script: &str, args: &[&str]) -> serde_json::Value {
    run_client_on(&python(), script, args).await
}

/// [`run_client`] under another interpreter (`python2()`: the SDK 2.x).
pub async fn run_client_on(python: &Path, script: &str, args: &[&str]) -> serde_json::Value {
    let output = tokio::process::Command::new(python)
        .arg(client_script(script))
        .args(args)
        .output()
        .await
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{script} {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|_| panic!("not JSON: {stdout}"))
}

/// Runs a Node client script under tests/clients (the TypeScript SDK) with `args` and reads
/// the JSON it prints last; panics with its output when it prints none.
pub async fn run_node_client(script: &str, args: &[&str]) -> serde_json::Value {
    let output = tokio::process::Command::new("node")
        .arg(client_script(script))
        .args(args)
        .env("SWITCHBOARD_NODE_MODULES", node_modules())
        .output()
        .await
        .expect("run the Node client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|_| {
        panic!(
            "{script} {args:?} failed ({}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Server entries (mcp.json `mcpServers` values) for the real servers.
pub fn everything_stdio_entry() -> serde_json::Value {
    serde_json::json!({"command": "node", "args": [everything_js(), "stdio"]})
}

pub fn time_entry() -> serde_json::Value {
    serde_json::json!({"command": python(), "args": ["-m", "mcp_server_time"]})
}

pub fn misbehaving_entry(timeout_ms: u64) -> serde_json::Value {
    serde_json::json!({"command": python(), "args": [misbehaving_server()], "timeout_ms": timeout_ms})
}

/// tests/fixtures/modern_server.py (the Python SDK 2.x, reached on 2026-07-28) as a stdio
/// server entry.
pub fn modern_entry() -> serde_json::Value {
    serde_json::json!({
        "command": python2(),
        "args": [repo_root().join("tests/fixtures/modern_server.py")],
    })
}

/// The relay fixture (tests/fixtures/relay_server.py) as a stdio server entry.
pub fn relay_entry() -> serde_json::Value {
    serde_json::json!({"command": python(), "args": [relay_server(), "stdio"]})
}

/// A switchboard.toml in `dir` with `settings` (TOML tables such as `[limits]`) and the relay
/// fixture as server `relay`; its path.
pub fn relay_toml(dir: &Path, settings: &str) -> PathBuf {
    server_toml(dir, settings, "relay", &relay_entry())
}

/// A switchboard.toml in `dir` with `settings` and the stdio server `entry` (a `command` and
/// its `args`) as server `name`; its path.
pub fn server_toml(dir: &Path, settings: &str, name: &str, entry: &serde_json::Value) -> PathBuf {
    let text = format!(
        "{settings}\n[servers.{name}]\ncommand = {}\nargs = {}\n",
        entry["command"], entry["args"]
    );
    let path = dir.join("switchboard.toml");
    std::fs::write(&path, text).expect("write switchboard.toml");
    path
}

/// [`relay_entry`] run once per downstream session (`per_session`).
pub fn relay_per_session_entry() -> serde_json::Value {
    let mut entry = relay_entry();
    entry["per_session"] = true.into();
    entry
}

/// The relay fixture twice, as a stdio child (`relay`) and over Streamable HTTP (`relayh`),
/// plus the servers in `more`, written to an mcp.json: (dir guard, path, the HTTP fixture).
pub async fn relay_config(more: serde_json::Value) -> (tempfile::TempDir, PathBuf, Served) {
    let http = Served::start(&python(), &[relay_server().to_str().expect("path"), "http"]).await;
    let mut servers = serde_json::json!({
        "relay": relay_entry(),
        "relayh": {"type": "http", "url": http.url},
    });
    for (name, entry) in more.as_object().expect("an object of servers") {
        servers[name] = entry.clone();
    }
    let (dir, path) = write_mcp_json(servers);
    (dir, path, http)
}

/// Writes `{"mcpServers": servers}` to a temp dir and returns (dir guard, path).
pub fn write_mcp_json(servers: serde_json::Value) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mcp.json");
    let body = serde_json::json!({ "mcpServers": servers });
    std::fs::write(&path, serde_json::to_vec_pretty(&body).expect("json")).expect("write config");
    (dir, path)
}

/// `binary config check` of an mcp.json holding `servers` (the `mcpServers` object) that it
/// must refuse: its stdout and stderr together, which must name each of `expected`.
pub fn config_check_refuses(binary: &Path, servers: serde_json::Value, expected: &[&str]) {
    let (_dir, path) = write_mcp_json(servers);
    let out = std::process::Command::new(binary)
        .args(["config", "check", "-c"])
        .arg(&path)
        .output()
        .expect("run config check");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "config check passed: {text}");
    for expected in expected {
        assert!(text.contains(expected), "{expected}: {text}");
    }
}

/// A port that was free a moment ago on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// server-everything over Streamable HTTP on loopback; killed on drop.
pub struct EverythingHttp {
    pub url: String,
    _child: Child,
}

impl EverythingHttp {
    /// Starts it and waits for the line that says it is listening.
    pub async fn start() -> Self {
        Self::start_on(free_port()).await
    }

    /// As `start`, on `port` (to start it again where it was).
    pub async fn start_on(port: u16) -> Self {
        let mut child = Command::new("node")
            .arg(everything_js())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start server-everything");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let ready = tokio::time::timeout(std::time::Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await.expect("read stderr") {
                if line.contains("listening on port") {
                    return true;
                }
            }
            false
        })
        .await;
        assert_eq!(ready, Ok(true), "server-everything did not start listening");
        // Keep draining so the child never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Self {
            url: format!("http://127.0.0.1:{port}/mcp"),
            _child: child,
        }
    }

    /// Kills it and waits until it is gone (its port is free again).
    pub async fn stop(mut self) {
        let _ = self._child.kill().await;
    }
}

/// A child process that printed the URL it serves on; killed on drop.
pub struct Served {
    pub url: String,
    _child: Child,
}

impl Served {
    /// Starts `program args…` and waits for a stdout line `listening on URL`.
    pub async fn start(program: &Path, args: &[&str]) -> Self {
        Self::start_with_env(program, args, &[]).await
    }

    /// As `start`, with these environment variables set for the child.
    pub async fn start_with_env(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let url = tokio::time::timeout(std::time::Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await.expect("read stdout") {
                if let Some(url) = line.strip_prefix("listening on ") {
                    return Some(url.trim().to_string());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("{} never said where it listens", program.display()));
        Self { url, _child: child }
    }
}

impl Served {
    /// Kills the child and waits until it is gone (its port is free again).
    pub async fn stop(mut self) {
        let _ = self._child.kill().await;
    }

    /// The port the child listens on.
    pub fn port(&self) -> u16 {
        self.url
            .rsplit(':')
            .next()
            .and_then(|p| p.trim_end_matches("/mcp").parse().ok())
            .expect("a port in the URL")
    }
}

/// The text blocks of a tool result, joined.
pub fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// Waits (at most `timeout_ms`) for process `pid` to exit, via a pidfd (no polling); `true`
/// once it has exited (a zombie counts).
pub fn wait_for_exit(pid: i32, timeout_ms: i32) -> bool {
    // SAFETY: plain syscalls on an fd we own and close.
    #[allow(unsafe_code)]
    unsafe {
        let fd = libc::syscall(libc::SYS_pidfd_open, pid, 0) as i32;
        if fd < 0 {
            return true; // already gone
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ready = libc::poll(&mut pfd, 1, timeout_ms);
        libc::close(fd);
        ready == 1
    }
}

/// A running `switchboard serve`: its process, the `/mcp` URL and the log lines after ready.
pub struct Gateway {
    pub child: Child,
    pub url: String,
    pub log: tokio::sync::mpsc::Receiver<String>,
}

impl Gateway {
    /// Drains the log lines no test reads, so the gateway never waits on a full pipe.
    pub fn ignore_log(&mut self) {
        let mut log = std::mem::replace(&mut self.log, tokio::sync::mpsc::channel(1).1);
        tokio::spawn(async move { while log.recv().await.is_some() {} });
    }

    /// Starts `BINARY serve --listen 127.0.0.1:0 -c CONFIG ARGS…` with its data under `dir`
    /// and waits until it says `servers` of `servers` servers are ready.
    pub async fn start(
        binary: &Path,
        args: &[&str],
        dir: &Path,
        config: &Path,
        servers: usize,
    ) -> Self {
        let mut command = Command::new(binary);
        command
            .args(["serve", "--listen", "127.0.0.1:0", "-c"])
            .arg(config)
            .args(args);
        Self::spawn(command, dir, Some(servers)).await
    }

    /// As `start`, with more environment variables (a replica's database and master key).
    pub async fn start_with_env(
        binary: &Path,
        args: &[&str],
        dir: &Path,
        config: &Path,
        env: &[(&str, &str)],
    ) -> Self {
        let mut command = Command::new(binary);
        command
            .args(["serve", "--listen", "127.0.0.1:0", "-c"])
            .arg(config)
            .args(args)
            .envs(env.iter().copied());
        Self::spawn(command, dir, None).await
    }

    /// As `start_any`, listening on `listen` (a test that must know the address beforehand).
    pub async fn start_listening_on(
        binary: &Path,
        listen: &str,
        args: &[&str],
        dir: &Path,
        config: &Path,
    ) -> Self {
        let mut command = Command::new(binary);
        command
            .args(["serve", "--listen", listen, "-c"])
            .arg(config)
            .args(args);
        Self::spawn(command, dir, None).await
    }

    /// As `start`, whatever state the servers end in (it waits for the ready line only).
    pub async fn start_any(binary: &Path, args: &[&str], dir: &Path, config: &Path) -> Self {
        Self::start_with_env(binary, args, dir, config, &[]).await
    }

    /// Starts `BINARY serve --listen 127.0.0.1:0 ARGS…` in `dir` with no config file (servers
    /// come from the REST API), its data under `dir`; waits until it says it is ready.
    pub async fn start_without_config(binary: &Path, args: &[&str], dir: &Path) -> Self {
        let mut command = Command::new(binary);
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .current_dir(dir);
        Self::spawn(command, dir, None).await
    }

    async fn spawn(mut command: Command, dir: &Path, servers: Option<usize>) -> Self {
        let mut child = command
            .env("SWITCHBOARD_DATA", dir.join("data"))
            .env_remove("SWITCHBOARD_DATABASE_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start switchboard serve");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let mut url = None;
        while let Some(line) = lines.next_line().await.expect("read the log") {
            if let Some(rest) = line.strip_prefix("switchboard listening on ") {
                url = Some(rest.trim().to_string());
            }
            if line.starts_with("switchboard ready: ") {
                if let Some(servers) = servers {
                    assert!(line.contains(&format!("{servers}/{servers}")), "{line}");
                }
                break;
            }
        }
        let (log_tx, log) = tokio::sync::mpsc::channel::<String>(1024);
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let _ = log_tx.send(line).await;
            }
        });
        Self {
            child,
            url: url.expect("a listening line"),
            log,
        }
    }

    /// Stops it as an operator would (SIGTERM), asserts a clean exit within 20 s, and returns
    /// every log line it wrote after it was ready.
    pub async fn stop(mut self) -> Vec<String> {
        let pid = self.child.id().expect("a running gateway") as i32;
        // SAFETY: sending a signal to our own child process.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(pid, libc::SIGTERM)
        };
        let wait = self.child.wait();
        let status = tokio::time::timeout(std::time::Duration::from_secs(20), wait)
            .await
            .expect("switchboard stops after SIGTERM")
            .expect("wait for switchboard");
        assert!(status.success(), "{status}");
        let mut lines = Vec::new();
        while let Some(line) = self.log.recv().await {
            lines.push(line);
        }
        lines
    }

    /// The gateway's base URL (`http://127.0.0.1:PORT`).
    pub fn base(&self) -> &str {
        self.url.trim_end_matches("/mcp")
    }
}

/// The npm packages the Node test clients import (playwright-core, the TypeScript SDK).
pub fn node_modules() -> PathBuf {
    fixture("node/node_modules/playwright-core")
        .parent()
        .expect("node_modules")
        .to_path_buf()
}

/// Runs a one-off `switchboard ARGS…` (`binary`) with its data under `data` (never a database
/// from the environment); its stdout, or a panic with its stderr.
pub fn admin(binary: &Path, data: &Path, args: &[&str]) -> String {
    admin_on(binary, data, None, args)
}

/// `BINARY ARGS…` on the SQLite store under `data`, whatever its outcome: (exit code, stdout,
/// stderr).
pub fn run_cli(binary: &Path, data: &Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(binary)
        .args(args)
        .env("SWITCHBOARD_DATA", data)
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .output()
        .expect("run switchboard");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let code = out.status.code().unwrap_or(-1);
    (code, text(&out.stdout), text(&out.stderr))
}

/// `admin` against `database` (a `postgres://` URL) when given, else the SQLite under `data`.
pub fn admin_on(binary: &Path, data: &Path, database: Option<&str>, args: &[&str]) -> String {
    let mut command = std::process::Command::new(binary);
    command
        .args(args)
        .env("SWITCHBOARD_DATA", data)
        .env_remove("SWITCHBOARD_DATABASE_URL");
    if let Some(database) = database {
        command.args(["--database-url", database]);
    }
    let out = command.output().expect("run switchboard");
    assert!(
        out.status.success(),
        "switchboard {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A new API token of `org` with `roles`, printed once by `token create`.
pub fn api_token(binary: &Path, data: &Path, org: &str, roles: &[&str]) -> String {
    api_token_on(binary, data, None, org, roles)
}

/// `api_token` against `database` when given.
pub fn api_token_on(
    binary: &Path,
    data: &Path,
    database: Option<&str>,
    org: &str,
    roles: &[&str],
) -> String {
    let mut args = vec!["token", "create", "--org", org, "--json"];
    for role in roles {
        args.extend(["--role", role]);
    }
    let created: serde_json::Value =
        serde_json::from_str(&admin_on(binary, data, database, &args)).expect("token JSON");
    created["token"].as_str().expect("a token").to_string()
}

/// A new org `acme` that may add external servers, and an API token of it that may manage them.
pub fn acme_integrator(binary: &Path, data: &Path) -> String {
    let org = ["org", "create", "acme", "--feature", "mcp_external_servers"];
    admin(binary, data, &org);
    api_token(binary, data, "acme", &["integrations:manage"])
}
