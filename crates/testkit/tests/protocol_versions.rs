//! Upstreams that speak different protocol revisions: each is reached at the newest revision
//! both sides speak (server/discover, then initialize), or at the one its entry pins; what was
//! agreed is recorded per server, and calls work on each.

use serde_json::json;
use switchboard_config::load;
use switchboard_core::ServerStatus;
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;

const ECHO: &str = env!("CARGO_BIN_EXE_echo-server");

fn entry(versions: &str, offer: Option<&str>) -> serde_json::Value {
    let mut e = json!({"command": ECHO, "args": ["--versions", versions]});
    if let Some(v) = offer {
        e["protocol_version"] = v.into();
    }
    e
}

#[tokio::test(flavor = "multi_thread")]
async fn each_revision_is_negotiated_recorded_and_callable() {
    let (_dir, path) = kit::write_mcp_json(json!({
        "v0326": entry("2025-03-26", None),
        "v0618": entry("2025-03-26,2025-06-18", None),
        "v1125": entry("2025-03-26,2025-06-18,2025-11-25", None),
        "latest": entry("2025-03-26,2025-06-18,2025-11-25,2026-07-28", None),
        "pinned": entry("2025-03-26,2025-06-18,2025-11-25,2026-07-28", Some("2025-11-25")),
        "stateless": entry("2026-07-28", None),
        "named": entry("2026-07-28", Some("2026-07-28")),
    }));
    let registry = Registry::new(RegistryOptions::default());
    let servers = registry.apply_config(&load(&[path]).unwrap()).await;
    let agreed = |name: &str| {
        let s = servers.iter().find(|s| s.name == name).unwrap();
        assert_eq!(s.status, ServerStatus::Ready, "{s:?}");
        s.protocol_version.clone().unwrap()
    };
    assert_eq!(agreed("v0326"), "2025-03-26");
    assert_eq!(agreed("v0618"), "2025-06-18");
    assert_eq!(agreed("v1125"), "2025-11-25");
    // A server that speaks both is reached on the newest; an entry may pin an older one.
    assert_eq!(agreed("latest"), "2026-07-28");
    assert_eq!(agreed("pinned"), "2025-11-25");
    // A server that speaks only 2026-07-28 is reached with a plain entry too.
    assert_eq!(agreed("stateless"), "2026-07-28");
    assert_eq!(agreed("named"), "2026-07-28");

    for server in [
        "v0326",
        "v0618",
        "v1125",
        "latest",
        "pinned",
        "stateless",
        "named",
    ] {
        let result = registry
            .call_tool(
                &format!("{server}__echo"),
                Some(json!({"text": server})),
                CallOptions::default(),
            )
            .await
            .unwrap_or_else(|e| panic!("{server}: {e}"));
        assert_eq!(result.content[0].as_text().unwrap().text, server);
    }
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_requested_revision_is_a_clear_error() {
    let (_dir, path) = kit::write_mcp_json(json!({"odd": entry("2025-03-26", Some("2099-01-01"))}));
    let registry = Registry::new(RegistryOptions::default());
    let servers = registry.apply_config(&load(&[path]).unwrap()).await;
    assert_eq!(servers[0].status, ServerStatus::Error);
    assert!(
        servers[0]
            .last_error
            .as_deref()
            .unwrap()
            .contains("2099-01-01"),
        "{servers:?}"
    );
}
