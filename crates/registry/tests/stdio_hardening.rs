//! stdio servers start with a minimal environment, their OS limits, no runtime-hijacking
//! variables, and their secrets never show in errors; limits turn floods into clear errors.

use serde_json::{Value, json};
use std::time::Duration;
use switchboard_config::load_with_env;
use switchboard_core::{ErrorKind, Limits, ServerStatus, env::BASE_ENV};
use switchboard_registry::{CallOptions, Registry, RegistryOptions};
use switchboard_testkit as kit;

fn env(name: &str) -> Option<String> {
    match name {
        "FX_TOKEN" => Some("tok-4f9a2c7e".into()),
        _ => std::env::var(name).ok(),
    }
}

async fn start(entry: Value, options: RegistryOptions) -> (tempfile::TempDir, Registry) {
    let (dir, path) = kit::write_mcp_json(json!({ "fx": entry }));
    let registry = Registry::new(options);
    registry
        .apply_config(&load_with_env(&[path], &env).unwrap())
        .await;
    (dir, registry)
}

async fn call(registry: &Registry, tool: &str) -> Value {
    let result = registry
        .call_tool(tool, None, CallOptions::default())
        .await
        .unwrap();
    serde_json::from_str(&kit::text(&result)).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_child_sees_only_the_base_environment_and_what_it_declares() {
    let mut entry = kit::misbehaving_entry(20_000);
    entry["env"] = json!({"FX_DECLARED": "yes", "FX_SECRET": "${FX_TOKEN}"});
    let (_dir, registry) = start(entry, RegistryOptions::default()).await;
    let names: Vec<String> =
        serde_json::from_value(call(&registry, "fx__env_names").await).unwrap();
    assert!(names.contains(&"FX_DECLARED".to_string()) && names.contains(&"FX_SECRET".to_string()));
    assert!(names.contains(&"PATH".to_string()));
    // Python itself may add a few of its own (e.g. LC_CTYPE); nothing of the gateway's leaks.
    let leaked: Vec<&String> = names
        .iter()
        .filter(|n| !n.starts_with("FX_") && !BASE_ENV.contains(&n.as_str()) && *n != "LC_CTYPE")
        .collect();
    assert!(leaked.is_empty(), "leaked from the gateway: {leaked:?}");
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn process_limits_are_applied_to_the_child() {
    let mut entry = kit::misbehaving_entry(20_000);
    entry["process_limits"] =
        json!({"open_files": 64, "cpu_seconds": 600, "address_space_mb": 4096});
    let (_dir, registry) = start(entry, RegistryOptions::default()).await;
    let limits = call(&registry, "fx__rlimits").await;
    assert_eq!(limits["open_files"], 64);
    assert_eq!(limits["cpu_seconds"], 600);
    assert_eq!(limits["address_space"], 4096u64 * 1024 * 1024);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn hijacking_variables_are_refused_unless_allowed_by_name() {
    let mut entry = kit::misbehaving_entry(20_000);
    entry["env"] = json!({"PYTHONSTARTUP": "/tmp/evil.py"});
    let (dir, path) = kit::write_mcp_json(json!({ "fx": entry }));
    let problems = load_with_env(std::slice::from_ref(&path), &env).unwrap_err();
    assert!(problems.to_string().contains("PYTHONSTARTUP"), "{problems}");

    // Allowed by the operator, it is passed through.
    let toml = dir.path().join("switchboard.toml");
    std::fs::write(
        &toml,
        "[stdio]\nallow_env = [\"PYTHONSTARTUP\"]\n[servers]\n",
    )
    .unwrap();
    let config = load_with_env(&[toml, path], &env).unwrap();
    let registry =
        Registry::new(RegistryOptions::default().with_allow_env(vec!["PYTHONSTARTUP".into()]));
    registry.apply_config(&config).await;
    let names: Vec<String> =
        serde_json::from_value(call(&registry, "fx__env_names").await).unwrap();
    assert!(names.contains(&"PYTHONSTARTUP".to_string()));
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_prints_its_secret_and_dies_shows_its_stderr_redacted() {
    let entry = json!({
        "command": kit::python(),
        "args": ["-c", "import os, sys; sys.stderr.write('auth failed for token ' + os.environ['API_TOKEN'] + '\\n'); sys.exit(3)"],
        "env": {"API_TOKEN": "${FX_TOKEN}"},
    });
    let (_dir, registry) = start(entry, RegistryOptions::default()).await;
    let server = &registry.servers()[0];
    assert_eq!(server.status, ServerStatus::Error);
    let error = server.last_error.as_deref().unwrap();
    assert!(
        error.contains("auth failed for token <redacted>"),
        "{error}"
    );
    assert!(!error.contains("tok-4f9a2c7e"), "{error}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_result_over_the_limit_is_a_server_error_naming_the_setting() {
    let limits = Limits {
        max_result_bytes: 10_000,
        ..Limits::default()
    };
    let (_dir, registry) = start(
        kit::misbehaving_entry(20_000),
        RegistryOptions::default().with_limits(limits),
    )
    .await;
    let err = registry
        .call_tool(
            "fx__huge",
            Some(json!({"size": 50_000})),
            CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::ServerError);
    assert!(err.message.contains("max_result_bytes"), "{err}");
    let small = registry
        .call_tool(
            "fx__huge",
            Some(json!({"size": 5_000})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(kit::text(&small).len(), 5_000);
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_beyond_the_concurrency_limit_wait_then_fail_as_rate_limited() {
    let mut entry = kit::misbehaving_entry(20_000);
    entry["max_concurrent_calls"] = json!(1);
    let (_dir, registry) = start(entry, RegistryOptions::default()).await;
    let token = tokio_util::sync::CancellationToken::new();
    let hang = {
        let registry = registry.clone();
        let opts = CallOptions::default().with_cancel(token.clone());
        tokio::spawn(async move { registry.call_tool("fx__hang", None, opts).await })
    };
    while registry.servers()[0].calls_in_flight == 0 {
        tokio::task::yield_now().await;
    }
    let refused = registry
        .call_tool(
            "fx__echo",
            Some(json!({"text": "x"})),
            CallOptions::default().with_timeout(Duration::from_millis(200)),
        )
        .await
        .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::RateLimited, "{refused}");
    assert!(
        refused.message.contains("max_concurrent_calls"),
        "{refused}"
    );
    token.cancel();
    let _ = hang.await;
    let echo = registry
        .call_tool(
            "fx__echo",
            Some(json!({"text": "free"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(kit::text(&echo), "free");
    registry.shutdown().await;
}
