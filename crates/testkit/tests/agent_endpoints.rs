//! The REST API's agent endpoint and API-key servers over real HTTP: an agent sees and calls
//! only its enabled actions; an API key travels in the header the server names.

use reqwest::StatusCode;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use switchboard_registry::{Registry, RegistryOptions};
use switchboard_server::ControlPlane;
use switchboard_store::{AuditWriter, Chain, Sealer, SqlStore, Store};
use switchboard_testkit as kit;

mod common;
use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_endpoint_shows_and_calls_only_enabled_actions() {
    use rmcp::model::CallToolRequestParams;
    use switchboard_core::{HttpSpec, ServerSlug, ServerSpec, Transport};

    let upstream = kit::Served::start(Path::new(ECHO), &["--http", "127.0.0.1:0"]).await;
    let data = tempfile::tempdir().unwrap();
    let store = Arc::new(SqlStore::open_sqlite(data.path()).await.unwrap());
    let sealer = Arc::new(Sealer::from_keys(vec![[5u8; 32]]));
    let (audit, audit_task) = AuditWriter::start(store.clone(), Chain::new(sealer.audit_key()), 64);
    let registry = Registry::new(
        RegistryOptions::default()
            .with_dev(true)
            .with_observer(Arc::new(audit.clone())),
    );
    // A server the operator declared in a config file: agents may be given its actions too.
    let shared = kit::Served::start(Path::new(ECHO), &["--http", "127.0.0.1:0"]).await;
    let spec = ServerSpec::new(
        ServerSlug::parse("shared").unwrap(),
        Transport::Http(HttpSpec {
            url: shared.url.clone(),
            ..Default::default()
        }),
    );
    assert_eq!(registry.add_server(spec).await.tool_count, 3);
    let org = store
        .create_org("acme", &["mcp_external_servers".into()])
        .await
        .unwrap();
    let manage = token(&store, &org.id, &["integrations:manage"]).await;
    let viewer = token(&store, &org.id, &["integrations:view"]).await;
    let state = ControlPlane::new(registry.clone(), store.clone(), sealer, audit);
    let (api, shutdown, _server) = serve_api(registry.clone(), state).await;
    let base = api.base.clone();
    let (status, body) = api
        .call(
            "POST",
            "/api/integrations/mcp/servers",
            Some(&manage),
            Some(json!({"name": "Clash", "slug": "shared", "url": upstream.url})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("config files")
    );
    let (status, _) = api
        .call(
            "POST",
            "/api/integrations/mcp/servers",
            Some(&manage),
            Some(json!({"name": "Echo", "slug": "echo", "url": upstream.url})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = api
        .call(
            "PUT",
            "/api/agents/bot/actions/mcp.echo.echo",
            Some(&manage),
            Some(json!({"enabled": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = api
        .call(
            "PUT",
            "/api/agents/bot/actions/mcp.shared.echo",
            Some(&manage),
            Some(json!({"enabled": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, listed) = api
        .call("GET", "/api/agents/bot/actions", Some(&manage), None)
        .await;
    let sources: Vec<(&str, &str)> = listed["integrations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["integration"].as_str().unwrap(),
                i["source"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(sources, [("mcp_echo", "api"), ("mcp_shared", "config")]);

    let endpoint = format!("{base}/mcp/agents/bot");
    let (status, _) = api
        .call("POST", "/mcp/agents/bot", None, Some(json!({})))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Another token reaches the endpoint first; the calls below must still be the viewer's.
    let (status, _) = api
        .call("POST", "/mcp/agents/bot", Some(&manage), Some(json!({})))
        .await;
    assert!(status.is_client_error(), "{status}");
    let client = mcp_client(&endpoint, &viewer).await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["echo__echo", "shared__echo"]);
    let from_config = client
        .call_tool(
            CallToolRequestParams::new("shared__echo")
                .with_arguments(json!({"text": "operator's"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(kit::text(&from_config), "operator's");
    // Agents get actions, not the servers' resources or prompts.
    assert!(client.list_all_resources().await.unwrap().is_empty());
    assert!(client.list_all_prompts().await.unwrap().is_empty());
    let ok = client
        .call_tool(
            CallToolRequestParams::new("echo__echo")
                .with_arguments(json!({"text": "only this"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(kit::text(&ok), "only this");
    let refused = client
        .call_tool(CallToolRequestParams::new("echo__huge"))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    let kind = &refused.meta.as_ref().unwrap().0["switchboard/error"]["kind"];
    assert_eq!(kind, "policy_denied");
    client.cancel().await.unwrap();

    // The org gives the agent search mode: the meta-tools instead of its actions, and only
    // its enabled actions found and called through them.
    let (status, body) = api
        .call(
            "PUT",
            "/api/policy",
            Some(&manage),
            Some(json!({"agents": {"bot": {"tools_mode": "search"}}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let client = mcp_client(&format!("{base}/mcp/agents/bot"), &viewer).await;
    let listed: Vec<String> = (client.list_all_tools().await.unwrap().into_iter())
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(listed, switchboard_core::META_TOOLS);
    let meta = |name: &str, args: Value| {
        CallToolRequestParams::new(name.to_string())
            .with_arguments(args.as_object().unwrap().clone())
    };
    let found = client
        .call_tool(meta(
            "search_tools",
            json!({"query": "echoes text back", "limit": 50}),
        ))
        .await
        .unwrap();
    let mut found: Vec<&str> = found.structured_content.as_ref().unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    found.sort_unstable();
    assert_eq!(
        found,
        ["echo__echo", "shared__echo"],
        "only enabled actions are found"
    );
    let called = client
        .call_tool(meta(
            "call_tool",
            json!({"name": "mcp.echo.echo", "arguments": {"text": "via search"}}),
        ))
        .await
        .unwrap();
    assert_eq!(kit::text(&called), "via search");
    let refused = client
        .call_tool(meta("call_tool", json!({"name": "echo__huge"})))
        .await
        .unwrap();
    let kind = &refused.meta.as_ref().unwrap().0["switchboard/error"]["kind"];
    assert_eq!(
        kind, "policy_denied",
        "a disabled action stays refused through call_tool"
    );
    client.cancel().await.unwrap();
    shutdown.cancel();
    // Each call is audited under the token that made it, not the endpoint's first caller.
    audit_task.finish().await;
    let viewer_id = store
        .token_by_hash(&switchboard_store::hash_api_token(&viewer))
        .await
        .unwrap()
        .unwrap()
        .id;
    let rows = store.audit(&Default::default()).await.unwrap();
    let call = rows
        .iter()
        .find(|r| r.entry.action_id == "mcp.shared.echo")
        .expect("the config server's call is audited");
    assert_eq!(call.entry.token_id.as_deref(), Some(viewer_id.as_str()));
    assert_eq!(call.entry.agent_id.as_deref(), Some("bot"));
    assert_eq!(call.entry.org_id.as_deref(), Some(org.id.as_str()));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_api_key_server_sends_its_key_in_the_named_header() {
    let upstream = kit::Served::start(Path::new(ECHO), &["--http", "127.0.0.1:0"]).await;
    let data = tempfile::tempdir().unwrap();
    let store = Arc::new(SqlStore::open_sqlite(data.path()).await.unwrap());
    let sealer = Arc::new(Sealer::from_keys(vec![[5u8; 32]]));
    let (audit, _task) = AuditWriter::start(store.clone(), Chain::new(sealer.audit_key()), 64);
    let registry = Registry::new(RegistryOptions::default().with_dev(true));
    let org = store
        .create_org("acme", &["mcp_external_servers".into()])
        .await
        .unwrap();
    let manage = token(
        &store,
        &org.id,
        &["integrations:manage", "integrations:view"],
    )
    .await;
    let state = ControlPlane::new(registry.clone(), store.clone(), sealer, audit);
    let (api, shutdown, _server) = serve_api(registry, state).await;
    let servers = "/api/integrations/mcp/servers";
    let create = |credentials: Value| json!({"name": "Keyed", "slug": "keyed", "url": upstream.url, "auth_method": "apiKey", "credentials": credentials});
    for (credentials, complaint) in [
        (json!({}), "needs credentials.key"),
        (
            json!({"key": SECRET, "header_name": "X Test"}),
            "not an HTTP header name",
        ),
    ] {
        let (status, body) = api
            .call("POST", servers, Some(&manage), Some(create(credentials)))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains(complaint),
            "{body}"
        );
    }
    let (status, created) = api
        .call(
            "POST",
            servers,
            Some(&manage),
            Some(create(
                json!({"key": SECRET, "header_name": "X-Test", "value_prefix": "Key "}),
            )),
        )
        .await;
    assert_eq!(
        (status, created["status"].as_str()),
        (StatusCode::CREATED, Some("ready")),
        "{created}"
    );
    let (_, listed) = api.call("GET", servers, Some(&manage), None).await;
    assert_eq!(listed["servers"][0]["auth_method"], "apiKey");
    assert!(
        !listed.to_string().contains(SECRET),
        "never shown: {listed}"
    );
    let actions = "/api/agents/bot/actions/mcp.keyed.headers";
    let (status, _) = api
        .call(
            "PUT",
            actions,
            Some(&manage),
            Some(json!({"enabled": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, invoked) = api
        .call(
            "POST",
            &format!("{actions}/invoke"),
            Some(&manage),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{invoked}");
    let seen: Value =
        serde_json::from_str(invoked["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(seen["x_test"], format!("Key {SECRET}"));
    assert_eq!(seen["authorization"], Value::Null);
    shutdown.cancel();
}
