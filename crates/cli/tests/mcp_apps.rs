//! MCP Apps through the gateway (issue 37): two servers built with the official
//! `@modelcontextprotocol/ext-apps` helpers offer the same `ui://` resource; a TypeScript SDK
//! client sees each server's app under its own `ui://` URI, the tools name those URIs, the
//! reads return each server's HTML with its MIME type and CSP, and `visibility` passes through.

use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

fn apps_entry(label: &str) -> Value {
    let script = kit::repo_root().join("tests/fixtures/apps_server.mjs");
    json!({"command": "node", "args": [script], "env": {
        "APPS_LABEL": label,
        "APPS_NODE_MODULES": kit::node_modules(),
    }})
}

#[tokio::test(flavor = "multi_thread")]
async fn two_apps_with_one_ui_uri_stay_apart_and_keep_their_csp_and_visibility() {
    let (_config_dir, config) =
        kit::write_mcp_json(json!({"a": apps_entry("a"), "b": apps_entry("b")}));
    let dir = tempfile::tempdir().unwrap();
    let gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &config, 2).await;
    let seen = kit::run_node_client("apps_probe.mjs", &[&gateway.url]).await;

    let tool = |name: &str| {
        (seen["tools"].as_array().unwrap().iter())
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {seen}"))
            .clone()
    };
    for server in ["a", "b"] {
        let app = format!("ui://switchboard/{server}/clock/app.html");
        for (name, visibility) in [("clock", json!(["model", "app"])), ("tick", json!(["app"]))] {
            let meta = &tool(&format!("{server}__{name}"))["meta"];
            assert_eq!(meta["ui"]["resourceUri"], app, "{meta}");
            assert_eq!(meta["ui/resourceUri"], app, "the older key too: {meta}");
            assert_eq!(meta["ui"]["visibility"], visibility, "{meta}");
        }
        let listed = (seen["resources"].as_array().unwrap().iter())
            .find(|r| r["uri"] == app)
            .unwrap_or_else(|| panic!("{app} listed in {seen}"));
        assert_eq!(listed["mimeType"], "text/html;profile=mcp-app");
        assert_eq!(
            listed["meta"]["ui"]["csp"]["connectDomains"],
            json!(["https://api.example.com"])
        );
        assert_eq!(listed["meta"]["ui"]["prefersBorder"], true);
        let read = &seen["reads"][&app][0];
        assert_eq!(read["uri"], app, "the contents name the URI read: {read}");
        assert_eq!(read["mimeType"], "text/html;profile=mcp-app");
        assert!(
            read["text"]
                .as_str()
                .unwrap()
                .contains(&format!("clock of {server}")),
            "{read}"
        );
        assert_eq!(
            read["meta"]["ui"]["csp"]["connectDomains"],
            json!(["https://api.example.com"])
        );
        // An app's own call and the model's look alike on the wire: both reach the server.
        assert_eq!(
            seen["calls"][format!("{server}__clock")],
            format!("time from {server}")
        );
        assert_eq!(
            seen["calls"][format!("{server}__tick")],
            format!("tick from {server}")
        );
    }
    gateway.stop().await;
}
