//! The routes the console reads beside the core API, against a real gateway with real
//! upstreams (mcp-server-time and server-everything over stdio): figures computed on the
//! server from the audit log, the agents list and bulk toggles (all or nothing), and the
//! resources and prompts browser, each with its roles.

use serde_json::{Value, json};
use std::path::Path;
use switchboard_testkit as kit;

const BINARY: &str = env!("CARGO_BIN_EXE_switchboard");

/// A gateway's REST API at `base`: `kit::rest` on a path.
struct Api {
    base: String,
}

impl Api {
    async fn send(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        kit::rest(method, &format!("{}{path}", self.base), token, body).await
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn console_routes_compute_figures_toggle_in_bulk_and_browse_resources() {
    let (dir, config) = kit::write_mcp_json(json!({
        "time": kit::time_entry(),
        "everything": kit::everything_stdio_entry(),
    }));
    let data = dir.path().join("data");
    kit::admin(
        Path::new(BINARY),
        &data,
        &["org", "create", "acme", "--feature", "mcp_external_servers"],
    );
    let manager = kit::api_token(Path::new(BINARY), &data, "acme", &["integrations:manage"]);
    let viewer = kit::api_token(Path::new(BINARY), &data, "acme", &["integrations:view"]);
    let gateway = kit::Gateway::start(Path::new(BINARY), &[], dir.path(), &config, 2).await;
    let api = Api {
        base: gateway.base().to_string(),
    };

    // A window that is not a whole number of steps, or has too many of them, is refused
    // with the fix.
    let (status, body) = api
        .send("GET", "/api/stats?window_s=300&step_s=7", &viewer, None)
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("multiple of step_s"),
        "{body}"
    );
    let (status, body) = api
        .send("GET", "/api/stats?window_s=86400&step_s=10", &viewer, None)
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("raise step_s to at least 240"),
        "{body}"
    );

    // Bulk: an unknown action refuses the whole request and nothing changes; a viewer may not.
    let time_actions = json!(["mcp.time.get_current_time", "mcp.time.convert_time"]);
    let (status, body) = api
        .send("PUT", "/api/agents/billing/actions", &manager,
            Some(json!({"enabled": true, "action_ids": ["mcp.time.get_current_time", "mcp.nowhere.nothing"]})))
        .await;
    assert_eq!(status, 404, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("mcp.nowhere.nothing") && message.contains("nothing was changed"),
        "{body}"
    );
    let (_, agents) = api.send("GET", "/api/agents", &viewer, None).await;
    assert_eq!(agents["agents"], json!([]), "{agents}");
    let (status, _) = api
        .send(
            "PUT",
            "/api/agents/billing/actions",
            &viewer,
            Some(json!({"enabled": true, "action_ids": time_actions})),
        )
        .await;
    assert_eq!(status, 403);
    let (status, body) = api
        .send(
            "PUT",
            "/api/agents/billing/actions",
            &manager,
            Some(json!({"enabled": true, "action_ids": time_actions})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, agents) = api.send("GET", "/api/agents", &viewer, None).await;
    assert_eq!(agents["agents"][0]["agent_id"], "billing", "{agents}");
    assert_eq!(agents["agents"][0]["enabled"], 2, "{agents}");
    // An id given twice is one change and one audit row; turning off accepts ids no server
    // offers any more (to clear them).
    let twice = json!({"enabled": false, "action_ids": ["mcp.gone.tool", "mcp.gone.tool"]});
    let (status, body) = api
        .send("PUT", "/api/agents/support/actions", &manager, Some(twice))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["action_ids"], json!(["mcp.gone.tool"]), "{body}");
    let (_, actions) = api
        .send("GET", "/api/agents/billing/actions", &viewer, None)
        .await;
    let on: Vec<&str> = actions["integrations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["actions"].as_array().unwrap())
        .filter(|a| a["enabled"] == true)
        .map(|a| a["action_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        on,
        ["mcp.time.get_current_time", "mcp.time.convert_time"],
        "{actions}"
    );

    // Three calls that run and one the policy refuses (another agent): the figures say so.
    let body = json!({"arguments": {"timezone": "UTC"}});
    let billing = "/api/agents/billing/actions/mcp.time.get_current_time/invoke";
    let stranger = "/api/agents/stranger/actions/mcp.time.get_current_time/invoke";
    let invoke = |path: &'static str| api.send("POST", path, &manager, Some(body.clone()));
    for _ in 0..3 {
        let (status, body) = invoke(billing).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, _) = invoke(stranger).await;
    assert_eq!(status, 403);
    // Audit rows are committed off the call path: read until all four are counted.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let stats = loop {
        let (status, stats) = api.send("GET", "/api/stats", &viewer, None).await;
        assert_eq!(status, 200, "{stats}");
        if stats["all"]["calls"] == 4 || std::time::Instant::now() > deadline {
            break stats;
        }
        // A poll interval, not a wait for the write: the condition above ends the loop.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(
        (stats["window_s"].as_i64(), stats["step_s"].as_i64()),
        (Some(300), Some(10))
    );
    let time = &stats["servers"][0];
    assert_eq!(time["server"], "time", "{stats}");
    assert_eq!(
        (time["calls"].as_i64(), time["errors"].as_i64()),
        (Some(4), Some(1)),
        "{stats}"
    );
    assert!(time["p50_ms"].as_f64().unwrap() > 0.0, "{stats}");
    assert_eq!(time["series"].as_array().unwrap().len(), 30, "{stats}");
    let in_series: i64 = time["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["calls"].as_i64().unwrap())
        .sum();
    assert_eq!(in_series, 4, "{stats}");
    // Another org sees none of them.
    kit::admin(
        Path::new(BINARY),
        &data,
        &[
            "org",
            "create",
            "other",
            "--feature",
            "mcp_external_servers",
        ],
    );
    let outsider = kit::api_token(Path::new(BINARY), &data, "other", &["integrations:view"]);
    let (_, theirs) = api.send("GET", "/api/stats", &outsider, None).await;
    assert_eq!(theirs["servers"], json!([]), "{theirs}");
    let (_, theirs) = api.send("GET", "/api/agents", &outsider, None).await;
    assert_eq!(theirs["agents"], json!([]), "{theirs}");

    // Resources and prompts: listed for a viewer, read and got with manage only.
    let (status, catalog) = api.send("GET", "/api/catalog", &viewer, None).await;
    assert_eq!(status, 200, "{catalog}");
    let resource = &catalog["resources"][0];
    assert_eq!(resource["server"], "everything", "{catalog}");
    assert_eq!(resource["source"], "config", "{catalog}");
    assert_eq!(resource["visible"], true, "{catalog}");
    let uri = resource["uri"].as_str().unwrap();
    let read = json!({"uri": uri});
    let (status, _) = api
        .send(
            "POST",
            "/api/catalog/resources/read",
            &viewer,
            Some(read.clone()),
        )
        .await;
    assert_eq!(status, 403);
    let (status, body) = api
        .send("POST", "/api/catalog/resources/read", &manager, Some(read))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["contents"][0]["uri"], uri, "{body}");
    let (status, body) = api
        .send(
            "POST",
            "/api/catalog/resources/read",
            &manager,
            Some(json!({"uri": "test://nowhere"})),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no server offers resource"),
        "{body}"
    );
    let prompt = catalog["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["arguments"]
                .as_array()
                .is_none_or(|a| a.iter().all(|x| x["required"] != true))
        })
        .expect("a prompt without required arguments");
    let (status, body) = api
        .send(
            "POST",
            "/api/catalog/prompts/get",
            &manager,
            Some(json!({"name": prompt["name"]})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        !body["result"]["messages"].as_array().unwrap().is_empty(),
        "{body}"
    );

    // The request log reads newest first, a page at a time.
    let (_, newest) = api
        .send("GET", "/api/audit?newest_first=true&limit=2", &viewer, None)
        .await;
    let rows = newest["rows"].as_array().unwrap();
    assert!(
        rows[0]["seq"].as_i64() > rows[1]["seq"].as_i64(),
        "{newest}"
    );
    let before = newest["next_before_seq"].as_i64().unwrap();
    let (_, older) = api
        .send(
            "GET",
            &format!("/api/audit?newest_first=true&limit=2&before_seq={before}"),
            &viewer,
            None,
        )
        .await;
    assert!(
        older["rows"][0]["seq"].as_i64().unwrap() < before,
        "{older}"
    );
}
