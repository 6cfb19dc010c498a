//! Pipeline cost per call, in-process: a realistic operator policy (20 rules, several on
//! arguments, a rate limit, information-flow control on) against the empty policy.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::sync::Arc;
use switchboard_core::{ActionId, CallContext, CallGuard, Caller, Owner, ServerSlug, ToolRef};
use switchboard_policy::{Pipeline, PipelineOptions, PolicyDoc};
use switchboard_store::{SqlStore, Store};
use switchboard_upstream::UpstreamHttp;

fn realistic() -> Value {
    let mut rules = Vec::new();
    for i in 0..14 {
        rules.push(json!({"name": format!("deny-{i}"), "actions": [format!("mcp.svc{i}.delete_*")], "effect": "deny"}));
    }
    for i in 0..4 {
        rules.push(json!({"name": format!("args-{i}"), "actions": ["mcp.billing.*"],
            "when": [{"path": "/amount", "gt": 1000 + i}, {"path": "/currency", "in": ["EUR", "USD"]}], "effect": "deny"}));
    }
    rules.push(json!({"name": "regex", "actions": ["mcp.mail.send"], "when": [{"path": "/to", "matches": "@evil\\.example$"}], "effect": "deny"}));
    rules.push(json!({"name": "allow-time", "actions": ["mcp.time.*"], "effect": "allow"}));
    json!({
        "rules": rules,
        "rate_limits": [{"name": "billing", "scope": "org_action", "actions": ["mcp.billing.*"], "rate": "1000000/s"}],
        "labels": {"mcp.vault.*": ["reads_sensitive"], "mcp.mail.send": ["sends_external"]},
        "ifc": {"enabled": true},
    })
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> =
        Arc::new(runtime.block_on(SqlStore::open_sqlite(dir.path())).unwrap());
    let build = |doc: Value| {
        let doc = PolicyDoc::from_value(&doc).unwrap();
        Pipeline::new(
            PipelineOptions::new(doc, UpstreamHttp::new(Default::default()))
                .with_store(store.clone()),
        )
        .unwrap()
    };
    let (empty, full) = (build(json!({})), build(realistic()));
    let owner = Owner::Operator;
    let caller = Caller {
        org_id: Some("org_a".into()),
        session: Some("conv".into()),
        ..Caller::default()
    };
    let args = json!({"amount": 12, "currency": "EUR", "to": "a@b.example"});
    for (name, server, tool) in [
        ("billing.charge", "billing", "charge"),
        ("mail.send (IFC reads taint)", "mail", "send"),
    ] {
        let server = ServerSlug::parse(server).unwrap();
        let action = ActionId::new(&server, tool);
        let call = CallContext {
            tool: ToolRef {
                owner: &owner,
                server: &server,
                tool,
                action: &action,
            },
            caller: &caller,
            end_user: Some("u-1"),
            arguments: args.as_object(),
            quarantined: None,
        };
        let mut group = c.benchmark_group(format!("pipeline/{name}"));
        for (label, pipeline) in [("empty policy", &empty), ("20 rules + limit + IFC", &full)] {
            group.bench_function(label, |b| {
                b.to_async(&runtime).iter(|| async {
                    let admitted = pipeline.admit(call).await;
                    assert!(admitted.refused.is_none());
                    pipeline.finished(call, true, None).await
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
