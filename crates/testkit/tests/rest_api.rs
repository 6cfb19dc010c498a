//! The REST API over real HTTP: every route, role and feature-flag case, validation messages,
//! synchronous discovery against a real MCP server, soft delete, audit, and no plaintext token
//! in the database file.

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
async fn the_integrations_api_end_to_end() {
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

    let acme = store
        .create_org("acme", &["mcp_external_servers".into()])
        .await
        .unwrap();
    let plain = store.create_org("plain", &[]).await.unwrap();
    let manage = token(&store, &acme.id, &["integrations:manage"]).await;
    let view = token(&store, &acme.id, &["integrations:view"]).await;
    let flagless = token(&store, &plain.id, &["integrations:manage"]).await;

    let api_state = ControlPlane::new(
        registry.clone(),
        store.clone() as Arc<dyn Store>,
        sealer.clone(),
        audit.clone(),
    );
    let (api, shutdown, server) = serve_api(registry.clone(), api_state).await;
    let servers = "/api/integrations/mcp/servers";
    let good = json!({"name": "Echo", "slug": "echo", "url": upstream.url, "auth_method": "bearer", "credentials": {"token": SECRET}});

    // A server from the operator's config file: listed, read-only.
    let (_cfg_dir, cfg) = kit::write_mcp_json(json!({"fromfile": {"command": ECHO}}));
    registry
        .apply_config(&switchboard_config::load(&[cfg]).unwrap())
        .await;
    let (_, list) = api.call("GET", servers, Some(&view), None).await;
    let from_file = list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slug"] == "fromfile")
        .unwrap()
        .clone();
    assert_eq!(
        (
            from_file["source"].as_str(),
            from_file["read_only"].as_bool()
        ),
        (Some("config"), Some(true))
    );
    assert_eq!(from_file["status"], "ready");
    let (status, body) = api
        .call(
            "DELETE",
            &format!("{servers}/config:fromfile"),
            Some(&manage),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("read-only"),
        "{body}"
    );
    let (status, _) = api
        .call(
            "PATCH",
            &format!("{servers}/config:fromfile"),
            Some(&manage),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    registry.remove_server("fromfile").await;

    // Authentication, roles and the feature flag.
    let (status, body) = api.call("GET", servers, None, None).await;
    assert_eq!(
        (status, kind(&body)),
        (StatusCode::UNAUTHORIZED, "unauthenticated")
    );
    let (status, _) = api.call("GET", servers, Some("sb_not_a_token"), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = api
        .call("POST", servers, Some(&view), Some(good.clone()))
        .await;
    assert_eq!((status, kind(&body)), (StatusCode::FORBIDDEN, "forbidden"));
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("integrations:manage")
    );
    let (status, body) = api.call("GET", servers, Some(&flagless), None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("mcp_external_servers")
    );
    let (status, _) = api.call("GET", servers, Some(&view), None).await;
    assert_eq!(status, StatusCode::OK);

    // Validation names the field and the fix.
    let invalid = [
        (
            json!({"name": "x", "slug": "Bad-Slug", "url": upstream.url}),
            "invalid server name",
        ),
        (
            json!({"name": "", "slug": "ok", "url": upstream.url}),
            "name must be",
        ),
        (
            json!({"name": "x", "slug": "ok", "url": "http://example.com/mcp"}),
            "https://",
        ),
        (
            json!({"name": "x", "slug": "ok", "url": "https://10.0.0.8/mcp"}),
            "private",
        ),
        (
            json!({"name": "x", "slug": "ok", "url": upstream.url, "auth_method": "bearer"}),
            "credentials.token",
        ),
        (
            json!({"name": "x", "slug": "ok", "url": upstream.url, "auth_method": "bearer", "credentials": {"token": "t".repeat(8001)}}),
            "at most 8000",
        ),
        (
            json!({"name": "x", "slug": "ok", "url": upstream.url, "auth_method": "basic"}),
            "not supported",
        ),
        (
            json!({"name": "x", "slug": "ok", "url": upstream.url, "colour": "red"}),
            "colour",
        ),
    ];
    for (body, needle) in invalid {
        let (status, resp) = api
            .call("POST", servers, Some(&manage), Some(body.clone()))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body} -> {resp}");
        assert_eq!(kind(&resp), "invalid_request");
        assert!(
            resp["error"]["message"].as_str().unwrap().contains(needle),
            "{needle}: {resp}"
        );
    }

    // Connect: synchronous initialize + tools/list.
    let (status, created) = api
        .call("POST", servers, Some(&manage), Some(good.clone()))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["status"], "ready");
    assert_eq!(created["tool_count"], 3);
    assert_eq!(created["error"], Value::Null);
    let (status, body) = api
        .call("POST", servers, Some(&manage), Some(good.clone()))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");

    // A server that cannot be reached is kept with its error, to be fixed and retried.
    let (status, broken) = api
        .call(
            "POST",
            servers,
            Some(&manage),
            Some(json!({"name": "Down", "slug": "down", "url": "http://127.0.0.1:9/mcp"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(broken["status"], "error");
    assert!(
        broken["error"].as_str().unwrap().contains("127.0.0.1:9"),
        "{broken}"
    );
    let (_, list) = api.call("GET", servers, Some(&view), None).await;
    let rows = list["servers"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(
        !list.to_string().contains(SECRET),
        "credentials never come back"
    );
    let down = rows.iter().find(|r| r["slug"] == "down").unwrap();
    assert_eq!(down["status"], "error");
    assert!(down["last_error"].is_string());
    assert_eq!(
        rows.iter().find(|r| r["slug"] == "echo").unwrap()["discovered_tools"],
        json!(["echo", "huge", "headers"])
    );

    // PATCH fixes the URL and re-runs discovery.
    let down_path = format!("{servers}/{}", broken["id"].as_str().unwrap());
    let (status, fixed) = api
        .call(
            "PATCH",
            &down_path,
            Some(&manage),
            Some(json!({"url": upstream.url})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{fixed}");
    assert_eq!(fixed["status"], "ready");
    // PATCH without a body refreshes with the stored (sealed) credentials.
    let echo_path = format!("{servers}/{}", created["id"].as_str().unwrap());
    let (status, refreshed) = api.call("PATCH", &echo_path, Some(&manage), None).await;
    assert_eq!(
        (status, refreshed["status"].as_str()),
        (StatusCode::OK, Some("ready")),
        "{refreshed}"
    );

    // Agents > Actions: list, enable, invoke; disabled actions are refused.
    let actions_path = "/api/agents/support-bot/actions";
    let (status, listed) = api.call("GET", actions_path, Some(&view), None).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let echo_integration = listed["integrations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["integration"] == "mcp_echo")
        .unwrap()
        .clone();
    assert_eq!(echo_integration["actions"].as_array().unwrap().len(), 3);
    assert!(
        echo_integration["actions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["enabled"] == false)
    );
    let invoke = format!("{actions_path}/mcp.echo.echo/invoke");
    let args = json!({"arguments": {"text": "hello agent"}, "end_user_id": "user-1"});
    let (status, body) = api
        .call("POST", &invoke, Some(&manage), Some(args.clone()))
        .await;
    assert_eq!(
        (status, kind(&body)),
        (StatusCode::FORBIDDEN, "policy_denied"),
        "{body}"
    );
    let toggle = format!("{actions_path}/mcp.echo.echo");
    let (status, _) = api
        .call("PUT", &toggle, Some(&view), Some(json!({"enabled": true})))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = api
        .call(
            "PUT",
            &toggle,
            Some(&manage),
            Some(json!({"enabled": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = api
        .call(
            "PUT",
            &format!("{actions_path}/mcp.echo.nope"),
            Some(&manage),
            Some(json!({"enabled": true})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = api
        .call("POST", &invoke, Some(&manage), Some(args.clone()))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "hello agent");
    let (_, listed) = api.call("GET", actions_path, Some(&view), None).await;
    let enabled: Vec<&str> = listed["integrations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["actions"].as_array().unwrap())
        .filter(|a| a["enabled"] == true)
        .map(|a| a["action_id"].as_str().unwrap())
        .collect();
    assert_eq!(enabled, ["mcp.echo.echo"]);
    let (status, _) = api
        .call(
            "PUT",
            &toggle,
            Some(&manage),
            Some(json!({"enabled": false})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = api.call("POST", &invoke, Some(&manage), Some(args)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // Operations, watched live over server-sent events.
    let events = api
        .http
        .get(format!("{}/api/integrations/mcp/events", api.base))
        .bearer_auth(&view)
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), StatusCode::OK);
    let mut events = sse_events(events);
    let first = next_event(&mut events).await;
    assert_eq!(
        (first["server"].as_str(), first["status"].as_str()),
        (Some("echo"), Some("ready"))
    );
    assert_eq!(first["source"], "api");
    assert_eq!(first["id"], created["id"]);
    let (status, _) = api
        .call("POST", &format!("{echo_path}/disable"), Some(&view), None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, disabled) = api
        .call("POST", &format!("{echo_path}/disable"), Some(&manage), None)
        .await;
    assert_eq!(
        (status, disabled["status"].as_str()),
        (StatusCode::OK, Some("disabled"))
    );
    until_status(&mut events, "echo", "disabled").await;
    let (_, actions) = api.call("GET", actions_path, Some(&view), None).await;
    assert!(
        !actions["integrations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["server"] == "echo"),
        "a disabled server offers no actions: {actions}"
    );
    let (_, listed) = api.call("GET", servers, Some(&view), None).await;
    assert_eq!(listed["servers"][0]["status"], "disabled", "{listed}");
    let (status, body) = api
        .call("POST", &format!("{echo_path}/refresh"), Some(&manage), None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, enabled) = api
        .call("POST", &format!("{echo_path}/enable"), Some(&manage), None)
        .await;
    assert_eq!(
        (status, enabled["status"].as_str()),
        (StatusCode::OK, Some("ready"))
    );
    until_status(&mut events, "echo", "ready").await;
    let (status, body) = api
        .call(
            "POST",
            &format!("{echo_path}/reauthorize"),
            Some(&manage),
            None,
        )
        .await;
    assert_eq!(
        (status, kind(&body)),
        (StatusCode::BAD_REQUEST, "invalid_request")
    );
    let (status, body) = api
        .call("POST", &format!("{echo_path}/explode"), Some(&manage), None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("refresh, disable, enable")
    );

    // Soft delete: gone from the list, kept (without credentials) for old audit rows.
    let (status, _) = api.call("DELETE", &echo_path, Some(&view), None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, deleted) = api.call("DELETE", &echo_path, Some(&manage), None).await;
    assert_eq!(
        (status, deleted["status"].as_str()),
        (StatusCode::OK, Some("deleted"))
    );
    let (_, list) = api.call("GET", servers, Some(&view), None).await;
    assert_eq!(list["servers"].as_array().unwrap().len(), 1);
    let (_, all) = api
        .call(
            "GET",
            &format!("{servers}?include_deleted=true"),
            Some(&view),
            None,
        )
        .await;
    assert_eq!(all["servers"].as_array().unwrap().len(), 2);
    let (status, _) = api.call("PATCH", &echo_path, Some(&manage), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let row = store
        .server(&acme.id, created["id"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(row.credentials.is_none() && row.deleted_at.is_some());
    let (status, _) = api
        .call("POST", servers, Some(&manage), Some(good.clone()))
        .await;
    assert_eq!(status, StatusCode::CREATED, "the slug is free again");

    // Config changes and the invocation are audited.
    drop(audit);
    registry.shutdown().await;
    shutdown.cancel();
    server.await.unwrap().unwrap();
    audit_task.finish().await;
    let rows = store.audit(&Default::default()).await.unwrap();
    let actions: Vec<&str> = rows.iter().map(|r| r.entry.action_id.as_str()).collect();
    assert_eq!(
        actions,
        [
            "config.connect",
            "config.connect",
            "config.refresh",
            "config.refresh",
            // Every call leaves a row: the one refused before the action was enabled too,
            // and the one made while the server was disabled.
            "mcp.echo.echo",
            "config.enable",
            "mcp.echo.echo",
            "config.disable",
            "mcp.echo.echo",
            "config.disable",
            "config.enable",
            "config.delete",
            "config.connect"
        ]
    );
    assert!(
        rows.iter()
            .all(|r| r.entry.org_id.as_deref() == Some(acme.id.as_str()))
    );
    let calls: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r.entry.action_id == "mcp.echo.echo")
        .map(|r| (r.entry.verdict.as_str(), r.entry.outcome.as_str()))
        .collect();
    assert_eq!(calls[0], ("denied", "policy_denied"), "{calls:?}");
    let refused = rows
        .iter()
        .find(|r| r.entry.action_id == "mcp.echo.echo")
        .unwrap();
    assert!(
        refused
            .entry
            .policy
            .as_deref()
            .is_some_and(|p| p.contains("not enabled for agent")),
        "{refused:?}"
    );
    let invoked = rows
        .iter()
        .find(|r| r.entry.action_id == "mcp.echo.echo" && r.entry.outcome == "ok")
        .unwrap();
    assert_eq!(invoked.entry.agent_id.as_deref(), Some("support-bot"));
    assert_eq!(invoked.entry.end_user_id.as_deref(), Some("user-1"));
    assert_eq!(invoked.entry.outcome, "ok");

    // The SQLite files never hold the upstream token.
    store.pool().close().await;
    for entry in std::fs::read_dir(data.path()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
            "plaintext token on disk"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn audit_and_openapi_routes() {
    let data = tempfile::tempdir().unwrap();
    let store = Arc::new(SqlStore::open_sqlite(data.path()).await.unwrap());
    let sealer = Arc::new(Sealer::from_keys(vec![[5u8; 32]]));
    let chain = Chain::new(sealer.audit_key());
    let org = store.create_org("acme", &[]).await.unwrap();
    let other = store.create_org("other", &[]).await.unwrap();
    let rows = [
        (&org.id, "ok", "a"),
        (&org.id, "timeout", "c"),
        (&other.id, "ok", "a"),
    ];
    for (org_id, outcome, server) in rows {
        store
            .append_audit(
                &chain,
                &[switchboard_store::AuditEntry {
                    at: 1,
                    org_id: Some(org_id.clone()),
                    action_id: format!("mcp.{server}.b"),
                    server: Some(server.into()),
                    verdict: "allowed".into(),
                    outcome: outcome.into(),
                    ..Default::default()
                }],
            )
            .await
            .unwrap();
    }
    let view = token(&store, &org.id, &["integrations:view"]).await;
    let operate = token(&store, &org.id, &["gateway:operate"]).await;
    let (audit, _task) = AuditWriter::start(store.clone(), chain, 8);
    let registry = Registry::new(RegistryOptions::default());
    let state = ControlPlane::new(registry.clone(), store.clone(), sealer, audit);
    let (api, shutdown, _server) = serve_api(registry, state).await;

    let (status, body) = api.call("GET", "/api/audit", Some(&view), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["rows"].as_array().unwrap().len(),
        2,
        "only the caller's org"
    );
    let (_, timeouts) = api
        .call("GET", "/api/audit?outcome=timeout", Some(&view), None)
        .await;
    assert_eq!(timeouts["rows"].as_array().unwrap().len(), 1);
    let (_, on_c) = api
        .call("GET", "/api/audit?server=c", Some(&view), None)
        .await;
    let on_c = on_c["rows"].as_array().unwrap();
    assert_eq!(on_c.len(), 1);
    assert_eq!(on_c[0]["outcome"], "timeout");

    // The chain spans every org: checking it is the operator's.
    let (status, body) = api
        .call("GET", "/api/audit/verify", Some(&view), None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = api
        .call("GET", "/api/audit/verify", Some(&operate), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"ok": true, "rows": 3}));
    sqlx::query("UPDATE audit SET outcome = 'ok' WHERE seq = 2")
        .execute(store.pool())
        .await
        .unwrap();
    let (_, body) = api
        .call("GET", "/api/audit/verify", Some(&operate), None)
        .await;
    assert_eq!(body["ok"], false);
    assert_eq!(body["problem"], "row 2 was altered after it was written");
    let (status, _) = api
        .call("GET", "/api/audit?limit=0", Some(&view), None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, doc) = api.call("GET", "/api/openapi.json", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(doc["paths"]["/api/integrations/mcp/servers/{id}"]["delete"].is_object());
    assert!(doc["paths"]["/api/agents/{agent}/actions/{action_id}/invoke"]["post"].is_object());
    shutdown.cancel();
}
