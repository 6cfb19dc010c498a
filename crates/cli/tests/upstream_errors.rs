//! An upstream's own JSON-RPC error reaches the caller whole (issue 32): the relay fixture's
//! `needs_url` fails with -32042 (URL elicitation required, the URL in its data), and a caller
//! sees that code and data over MCP (rmcp's client), REST (`error.code`, `error.data`) and
//! `switchboard call --json`, as it would calling the upstream directly.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const URL_REQUIRED: i32 = -32042;

/// What the fixture put in the error's data.
fn assert_names_the_url(data: &Value, what: &str) {
    let elicitation = &data["elicitations"][0];
    assert_eq!(
        elicitation["url"], "https://example.com/connect",
        "{what}: {data}"
    );
    assert_eq!(elicitation["elicitationId"], "el-2", "{what}: {data}");
    assert_eq!(elicitation["mode"], "url", "{what}: {data}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstreams_url_required_error_keeps_its_code_and_data_everywhere() {
    let (dir, path) = kit::write_mcp_json(json!({"relay": kit::relay_entry()}));
    let gateway = kit::Gateway::start(Path::new(BIN), &["--dev"], dir.path(), &path, 1).await;

    // MCP: a JSON-RPC error with the upstream's code and data, not a tool result.
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(gateway.url.clone()))
            .await
            .expect("an MCP session");
    let refused = client
        .call_tool(CallToolRequestParams::new("relay__needs_url"))
        .await
        .expect_err("the upstream refused the call");
    let rmcp::ServiceError::McpError(error) = refused else {
        panic!("a JSON-RPC error, got {refused:?}");
    };
    assert_eq!(error.code.0, URL_REQUIRED, "{error:?}");
    assert_names_the_url(error.data.as_ref().expect("data"), "MCP");
    client.cancel().await.ok();

    // REST: the kind as always, and the upstream's code and data beside it.
    let data = dir.path().join("data");
    let token = kit::acme_integrator(Path::new(BIN), &data);
    let http = reqwest::Client::new();
    let action = format!(
        "{}/api/agents/bot/actions/mcp.relay.needs_url",
        gateway.base()
    );
    let enabled = http
        .put(&action)
        .bearer_auth(&token)
        .json(&json!({"enabled": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(enabled.status(), 200, "{}", enabled.text().await.unwrap());
    let invoked = http
        .post(format!("{action}/invoke"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let status = invoked.status();
    let body: Value = invoked.json().await.unwrap();
    assert_eq!(body["error"]["kind"], "server_error", "{status} {body}");
    assert_eq!(body["error"]["code"], URL_REQUIRED, "{body}");
    assert_names_the_url(&body["error"]["data"], "REST");

    // The CLI: exit 1, the same error object with --json.
    let out = Command::new(BIN)
        .args(["call", "relay__needs_url", "--json", "-c"])
        .arg(&path)
        .env("SWITCHBOARD_DATA", dir.path().join("cli-data"))
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("a JSON error line: {stderr}"));
    let printed: Value = serde_json::from_str(line).unwrap();
    assert_eq!(printed["error"]["kind"], "server_error", "{printed}");
    assert_eq!(printed["error"]["code"], URL_REQUIRED, "{printed}");
    assert_names_the_url(&printed["error"]["data"], "CLI");
}
