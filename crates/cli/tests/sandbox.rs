//! The sandbox of stdio servers (issue 36): a hostile server's every escape fails while its
//! harmless tools keep serving, and real servers keep working inside.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// One MCP session on the gateway, for calling tools by name.
struct Session {
    url: String,
    id: String,
    next: u64,
}

impl Session {
    async fn open(url: &str) -> Self {
        let (id, _) = kit::post_mcp(url, None, None, &kit::initialize_request()).await;
        let id = id.expect("a session");
        let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        kit::post_mcp(url, None, Some(&id), &done).await;
        Self {
            url: url.into(),
            id,
            next: 1,
        }
    }

    /// The text of `tool`'s answer.
    async fn text(&mut self, tool: &str, arguments: Value) -> String {
        self.next += 1;
        let call = json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let (_, body) = kit::post_mcp(&self.url, None, Some(&self.id), &call).await;
        kit::tool_outcome(&body).unwrap_or_else(|kind| panic!("{tool}: {kind}: {body}"))
    }

    /// An escape attempt's report: `ok` is whether it got out.
    async fn attempt(&mut self, tool: &str, arguments: Value) -> Value {
        let text = self.text(tool, arguments.clone()).await;
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("{tool} {arguments}: {text}"))
    }

    /// Asserts the attempt failed.
    async fn fails(&mut self, tool: &str, arguments: Value) -> Value {
        let report = self.attempt(tool, arguments.clone()).await;
        assert_eq!(report["ok"], false, "{tool} {arguments} got out: {report}");
        report
    }
}

fn escape_entry(tag: &str) -> Value {
    let script = kit::repo_root().join("tests/fixtures/escape_server.py");
    json!({"command": kit::python(), "args": [script], "env": {"ESCAPE_TAG": tag}})
}

/// The processes whose environment holds `tag`.
fn tagged(tag: &str) -> Vec<u32> {
    let needle = format!("ESCAPE_TAG={tag}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == needle.as_bytes()))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hostile_server_gets_nowhere_and_its_harmless_tools_keep_serving() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // A home folder with secrets, a project folder the server is given, a UNIX socket, a web
    // server on loopback: none of it reachable from inside but the project folder.
    let home = root.join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY").unwrap();
    std::fs::write(home.join("secret.txt"), "the secret").unwrap();
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let socket_path = root.join("agent.sock");
    let _socket = std::os::unix::net::UnixListener::bind(&socket_path).unwrap();
    let web = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let web_port = web.local_addr().unwrap().port();
    let tag = format!("escape-{}", std::process::id());
    let mut entry = escape_entry(&tag);
    entry["args"].as_array_mut().unwrap().push(json!(project));
    // A folder granted read-only, under /tmp (hidden, then mounted back).
    let shelf = root.join("shelf");
    std::fs::create_dir_all(&shelf).unwrap();
    std::fs::write(shelf.join("book.txt"), "original").unwrap();
    entry["sandbox"] = json!({"read": [shelf]});
    let (config_dir, config) =
        kit::write_mcp_json(json!({"escape": entry, "time": kit::time_entry()}));
    let home_str = home.display().to_string();
    let gateway = kit::Gateway::start_with_env(
        Path::new(BIN),
        &["--dev"],
        dir.path(),
        &config,
        &[("HOME", home_str.as_str())],
    )
    .await;
    let data = dir.path().join("data");
    let mut s = Session::open(&gateway.url).await;

    let me: Value = serde_json::from_str(&s.text("escape__whoami", json!({})).await).unwrap();
    let inside: Value = serde_json::from_str(me["detail"].as_str().unwrap()).unwrap();
    // PID 2 of its own PID namespace, under the sandbox's small init.
    assert_eq!(inside["pid"], 2, "{inside}");
    let own = PathBuf::from(inside["cwd"].as_str().unwrap());
    assert!(
        own.starts_with(data.canonicalize().unwrap().join("sandbox")),
        "{inside}"
    );

    for path in [
        home.join("secret.txt"),
        home.join(".ssh/id_ed25519"),
        data.join("master.key"),
        data.join("switchboard.db"),
        config_dir.path().join("mcp.json"),
    ] {
        s.fails("escape__read_file", json!({"path": path})).await;
    }
    s.fails("escape__list_dir", json!({"path": home.join(".ssh")}))
        .await;
    // Another server's folder: out of sight (only its own folder was mounted back).
    let time_dir = std::fs::read_dir(data.join("sandbox"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("time-")
        })
        .expect("the time server's own folder");
    s.fails("escape__list_dir", json!({"path": time_dir.join("work")}))
        .await;
    let siblings = s
        .attempt("escape__list_dir", json!({"path": data.join("sandbox")}))
        .await;
    assert!(
        !siblings["detail"].as_str().unwrap().contains("time-"),
        "{siblings}"
    );
    s.fails("escape__write_file", json!({"path": "/etc/planted"}))
        .await;
    s.fails("escape__write_file", json!({"path": "/usr/lib/planted"}))
        .await;
    let read = s
        .attempt("escape__read_file", json!({"path": shelf.join("book.txt")}))
        .await;
    assert_eq!(read["ok"], true, "a read grant reads: {read}");
    s.fails(
        "escape__write_file",
        json!({"path": shelf.join("book.txt")}),
    )
    .await;
    s.fails("escape__write_file", json!({"path": shelf.join("new.txt")}))
        .await;
    assert_eq!(
        std::fs::read_to_string(shelf.join("book.txt")).unwrap(),
        "original"
    );
    // Under /tmp it writes to its own private tmpfs: nothing lands on the host.
    s.attempt("escape__write_file", json!({"path": root.join("planted")}))
        .await;
    assert!(!root.join("planted").exists());
    s.fails(
        "escape__connect_tcp",
        json!({"host": "127.0.0.1", "port": web_port}),
    )
    .await;
    s.fails("escape__connect_unix", json!({"path": socket_path}))
        .await;
    s.fails("escape__resolve", json!({"name": "not-on-any-list.test"}))
        .await;
    s.fails("escape__raw_socket", json!({})).await;
    s.fails(
        "escape__signal_pid",
        json!({"pid": gateway.child.id().unwrap()}),
    )
    .await;
    let listed = s.attempt("escape__list_pids", json!({})).await;
    assert_eq!(listed["ok"], false, "other processes are visible: {listed}");
    let forks = s.fails("escape__fork_many", json!({"count": 400})).await;
    assert!(
        forks["detail"].as_str().unwrap().starts_with("started "),
        "{forks}"
    );
    // What it was given: its own folder and the project named in its arguments.
    let planted = project.join("written-by-the-server");
    let wrote = s
        .attempt("escape__write_file", json!({"path": planted}))
        .await;
    assert_eq!(wrote["ok"], true, "{wrote}");
    assert!(planted.exists());
    assert_eq!(
        s.text("escape__echo", json!({"message": "still here"}))
            .await,
        "still here"
    );
    // A real server beside it keeps working.
    let now = s
        .text("time__get_current_time", json!({"timezone": "UTC"}))
        .await;
    assert!(now.contains("UTC"), "{now}");

    // A process that left the server's process group (setsid) dies with the server.
    let marker = own.join("escaped.pid");
    s.attempt("escape__escape_group", json!({"marker": marker}))
        .await;
    drop(s);
    let log = gateway.stop().await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !tagged(&tag).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "outlived the gateway: {:?}\n{log:#?}",
            tagged(&tag)
        );
        tokio::task::yield_now().await;
    }
    let _ = web;
}

/// `switchboard ARGS…` with its data in `data`: (exit code, stdout, stderr).
fn run(data: &Path, args: &[&str]) -> (i32, String, String) {
    kit::run_cli(Path::new(BIN), data, args)
}

#[tokio::test(flavor = "multi_thread")]
async fn explain_names_each_grant_and_the_opt_out_is_warned_and_audited() {
    let loose =
        json!({"command": kit::python(), "args": ["-m", "mcp_server_time"], "sandbox": false});
    let (dir, config) = kit::write_mcp_json(json!({"time": kit::time_entry(), "loose": loose}));
    let data = dir.path().join("data");
    let config = config.to_str().unwrap();

    let (code, out, err) = run(
        &data,
        &["sandbox", "explain", "time", "--json", "-c", config],
    );
    assert_eq!(code, 0, "{err}");
    let explained: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(explained["sandbox"], "full", "{explained}");
    let grants = explained["grants"].as_array().unwrap();
    let venv = kit::python()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    assert!(
        grants
            .iter()
            .any(|g| g["path"] == json!(venv) && g["access"] == "read_exec"),
        "the virtual environment's root: {explained}"
    );
    assert!(
        explained["hidden"]
            .as_array()
            .unwrap()
            .contains(&json!("/tmp"))
    );
    let (_, out, _) = run(&data, &["sandbox", "explain", "loose", "-c", config]);
    assert!(out.contains("sandbox off (sandbox = false)"), "{out}");

    // A grant that would hold the gateway's data folder is refused, naming both paths.
    let root = json!({"command": kit::python(), "args": ["-m", "mcp_server_time", "/"]});
    let (other, refused) = kit::write_mcp_json(json!({"root": root}));
    let refused = refused.to_str().unwrap();
    let (code, _, err) = run(&data, &["sandbox", "explain", "root", "-c", refused]);
    assert_ne!(code, 0);
    assert!(
        err.contains("granting /") && err.contains("grant a sub-folder"),
        "{err}"
    );
    let (code, out, _) = run(&data, &["test", "--json", "-c", refused]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("grant a sub-folder"), "{out}");
    drop(other);

    let (code, out, err) = run(&data, &["test", "--json", "-c", config]);
    assert_eq!(code, 0, "{out}{err}");
    let reports: Value = serde_json::from_str(&out).unwrap();
    let sandbox = |name: &str| {
        let report = reports
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name);
        report.unwrap()["sandbox"].clone()
    };
    assert_eq!(sandbox("time"), "full", "{reports}");
    assert_eq!(sandbox("loose"), "off (sandbox = false)", "{reports}");
    // Warned at each start, naming the server.
    assert!(
        err.contains("sandbox = false") && err.contains("server=loose"),
        "{err}"
    );

    // And audited at each start of `serve`.
    let gateway =
        kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), Path::new(config), 2).await;
    gateway.stop().await;
    let db = data.join("switchboard.db");
    let query = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT server, detail FROM audit WHERE action_id = 'sandbox.off'\").fetchall())";
    let rows = std::process::Command::new("python3")
        .args(["-c", query])
        .arg(&db)
        .output()
        .unwrap();
    let rows = String::from_utf8_lossy(&rows.stdout);
    assert!(
        rows.contains("'loose'") && !rows.contains("'time'"),
        "{rows}"
    );
}

/// A real server that runs a host tool: mcp-server-git (PyPI) on a repository named in its
/// arguments reads it through `git`, inside the sandbox.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_server_git_works_on_the_repository_its_arguments_name() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("notes.txt"), "first").unwrap();
    for args in [
        vec!["init", "-q"],
        vec!["add", "notes.txt"],
        vec![
            "-c",
            "user.email=t@example.test",
            "-c",
            "user.name=T",
            "commit",
            "-qm",
            "the first commit",
        ],
    ] {
        let ok = std::process::Command::new("git")
            .args(&args)
            .current_dir(&repo)
            .status();
        assert!(ok.unwrap().success(), "git {args:?}");
    }
    let entry =
        json!({"command": kit::python2(), "args": ["-m", "mcp_server_git", "--repository", repo]});
    let (_config_dir, config) = kit::write_mcp_json(json!({"git": entry}));
    let data = dir.path().join("data");
    let (_, explained, _) = run(
        &data,
        &["sandbox", "explain", "git", "-c", config.to_str().unwrap()],
    );
    assert!(explained.contains("sandbox full"), "{explained}");
    let gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &config, 1).await;
    let mut s = Session::open(&gateway.url).await;
    let log = s.text("git__git_log", json!({"repo_path": repo})).await;
    assert!(log.contains("the first commit"), "{log}");
    std::fs::write(repo.join("notes.txt"), "second").unwrap();
    let status = s.text("git__git_status", json!({"repo_path": repo})).await;
    assert!(status.contains("notes.txt"), "{status}");
}
