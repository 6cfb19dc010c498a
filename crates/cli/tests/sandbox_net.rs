//! A sandboxed server's only way out (issue 36): the gateway's egress proxy inside its network
//! namespace. mcp-server-fetch (PyPI) reaches a loopback web server through it when the host
//! is on its `sandbox.net` list, and is refused — audited, counted in `/metrics` — when it is
//! not, and when it names the gateway's own address. Names resolve to loopback only.

use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use switchboard_testkit as kit;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// A loopback web server answering `hello through the proxy` in plain text; counts requests.
async fn web_server() -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let count = count.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                count.fetch_add(1, Ordering::SeqCst);
                let body = "hello through the proxy";
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    (port, seen)
}

fn fetch_entry(net: Vec<String>) -> Value {
    let args = [
        "-m",
        "mcp_server_fetch",
        "--ignore-robots-txt",
        "--allow-private-ips",
    ];
    json!({"command": kit::python2(), "args": args, "sandbox": {"net": net}})
}

/// `fetch` of `url` on `server`: the tool's text, or its error's text.
async fn fetch(url: &str, session: &str, server: &str, target: &str) -> Result<String, String> {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": format!("{server}__fetch"), "arguments": {"url": target, "raw": true}}});
    let (_, body) = kit::post_mcp(url, None, Some(session), &call).await;
    let answer = kit::rpc_answer(&body);
    let text = answer["result"]["content"][0]["text"].as_str();
    let text = text.unwrap_or_default().to_string();
    match answer["result"]["isError"] == true {
        true => Err(text),
        false => Ok(text),
    }
}

fn audit_rows(db: &Path) -> String {
    let query = "import sqlite3, sys\nfor server, detail in sqlite3.connect(sys.argv[1]).execute(\"SELECT server, detail FROM audit WHERE action_id = 'sandbox.egress_refused'\"):\n    print(server + ' ' + detail)";
    let out = std::process::Command::new("python3")
        .args(["-c", query])
        .arg(db)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_server_fetch_reaches_listed_hosts_through_the_proxy_and_nothing_else() {
    let (web, requests) = web_server().await;
    let gateway_port = kit::free_port();
    let (config_dir, config) = kit::write_mcp_json(json!({
        // Its list names the web server, and (a mistake) the gateway itself.
        "fetch": fetch_entry(vec![format!("localhost:{web}"), format!("localhost:{gateway_port}")]),
        "closed": fetch_entry(Vec::new()),
    }));
    let dir = tempfile::tempdir().unwrap();
    let listen = format!("127.0.0.1:{gateway_port}");
    // --dev lets the gateway reach loopback upstreams; it does not reach sandboxed servers.
    let gateway =
        kit::Gateway::start_listening_on(Path::new(BIN), &listen, &["--dev"], dir.path(), &config)
            .await;
    let (session, _) = kit::post_mcp(&gateway.url, None, None, &kit::initialize_request()).await;
    let session = session.expect("a session");
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    kit::post_mcp(&gateway.url, None, Some(&session), &done).await;

    let page = format!("http://localhost:{web}/page");
    let fetched = fetch(&gateway.url, &session, "fetch", &page).await;
    assert!(
        fetched
            .as_ref()
            .is_ok_and(|t| t.contains("hello through the proxy")),
        "{fetched:?}"
    );
    let refused = fetch(&gateway.url, &session, "closed", &page).await;
    assert!(
        refused.as_ref().is_err_and(|t| t.contains("403")),
        "{refused:?}"
    );
    let own = format!("http://localhost:{gateway_port}/health");
    let refused = fetch(&gateway.url, &session, "fetch", &own).await;
    assert!(
        refused.as_ref().is_err_and(|t| t.contains("403")),
        "{refused:?}"
    );
    assert_eq!(
        requests.load(Ordering::SeqCst),
        1,
        "only the listed fetch got through"
    );

    let metrics = reqwest::get(format!("{}/metrics", gateway.base()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for (server, reason) in [("closed", "not_listed"), ("fetch", "gateway")] {
        let series = format!(
            "switchboard_sandbox_egress_refusals_total{{server=\"{server}\",org=\"\",reason=\"{reason}\"}} 1"
        );
        assert!(metrics.contains(&series), "{series} in:\n{metrics}");
    }
    let log = gateway.stop().await.join("\n");
    assert!(
        log.contains("sandbox egress refused")
            && log.contains("not on this server's sandbox.net list"),
        "{log}"
    );
    let rows = audit_rows(&dir.path().join("data/switchboard.db"));
    assert!(
        rows.contains(&format!("closed target=localhost:{web} reason=not_listed")),
        "{rows}"
    );
    assert!(
        rows.contains(&format!(
            "fetch target=localhost:{gateway_port} reason=gateway"
        )),
        "{rows}"
    );
    drop(config_dir);
}
