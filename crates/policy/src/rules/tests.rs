use super::*;
use crate::doc::PolicyDoc;
use serde_json::json;
use switchboard_core::{ActionId, Caller, Owner, ServerSlug, ToolRef};

fn set(doc: serde_json::Value) -> RuleSet {
    RuleSet::compile(&PolicyDoc::from_value(&doc).unwrap()).unwrap()
}

async fn run(
    rules: &RuleSet,
    action: &str,
    args: serde_json::Value,
    caller: &Caller,
) -> (RulesOutcome, Vec<Verdict>) {
    let (server, tool) = ActionId::parse(action).unwrap();
    let action = ActionId::new(&server, &tool);
    let owner = Owner::Operator;
    let call = CallContext {
        tool: ToolRef {
            owner: &owner,
            server: &server,
            tool: &tool,
            action: &action,
        },
        caller,
        end_user: Some("u-1"),
        arguments: args.as_object(),
        quarantined: None,
    };
    let http = UpstreamHttp::new(Default::default());
    let mut verdicts = Vec::new();
    let outcome = rules.evaluate(&call, &http, &mut verdicts).await;
    (outcome, verdicts)
}

#[tokio::test]
async fn argument_rules_apply_at_call_time_only() {
    let rules = set(json!({"rules": [
        {"name": "big-refunds", "actions": ["mcp.billing.refund"], "when": [{"path": "/amount", "gt": 100}], "effect": "deny", "reason": "refunds over 100 need a person"},
    ]}));
    let caller = Caller::default();
    let (small, _) = run(&rules, "mcp.billing.refund", json!({"amount": 5}), &caller).await;
    assert!(small.refused.is_none());
    let (big, verdicts) = run(
        &rules,
        "mcp.billing.refund",
        json!({"amount": 500}),
        &caller,
    )
    .await;
    let refused = big.refused.unwrap();
    assert_eq!(refused.kind, ErrorKind::PolicyDenied);
    assert!(refused.message.contains("big-refunds") && refused.message.contains("need a person"));
    assert_eq!(verdicts[0].rule.as_deref(), Some("big-refunds"));
    assert_eq!(
        rules.denies_always(None, None, "mcp.billing.refund"),
        None,
        "a rule on arguments never hides the tool from lists"
    );
}

#[tokio::test]
async fn observe_mode_records_and_lets_through() {
    let rules = set(json!({"mode": "observe", "rules": [
        {"name": "no-deletes", "actions": ["mcp.*.delete_*"], "effect": "deny"},
    ]}));
    let (outcome, verdicts) = run(
        &rules,
        "mcp.files.delete_file",
        json!({}),
        &Caller::default(),
    )
    .await;
    assert!(outcome.refused.is_none());
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0].mode, switchboard_core::Mode::Observe);
    assert_eq!(verdicts[0].effect, Effect::Deny);
}

#[tokio::test]
async fn unconditional_denials_hide_tools_and_name_the_rule() {
    let rules = set(json!({"rules": [
        {"name": "no-github-for-bots", "actions": ["mcp.github.*"], "agents": ["bot"], "effect": "deny"},
    ]}));
    assert!(
        rules
            .denies_always(Some("o"), Some("bot"), "mcp.github.x")
            .is_some()
    );
    assert!(
        rules
            .denies_always(Some("o"), Some("human"), "mcp.github.x")
            .is_none()
    );
    let bot = Caller {
        agent_id: Some("bot".into()),
        ..Caller::default()
    };
    let (outcome, _) = run(&rules, "mcp.github.create_issue", json!({}), &bot).await;
    assert!(
        outcome
            .refused
            .unwrap()
            .message
            .contains("no-github-for-bots")
    );
}

#[tokio::test]
async fn default_deny_needs_an_allow_rule() {
    let rules = set(json!({"default": "deny", "rules": [
        {"name": "time-ok", "actions": ["mcp.time.*"], "effect": "allow"},
    ]}));
    let (ok, _) = run(&rules, "mcp.time.now", json!({}), &Caller::default()).await;
    assert!(ok.refused.is_none() && ok.allowed);
    let (no, _) = run(&rules, "mcp.fs.read", json!({}), &Caller::default()).await;
    assert!(no.refused.unwrap().message.contains("default is deny"));
}

#[test]
fn bad_rules_are_named_by_field() {
    let doc = PolicyDoc::from_value(&json!({"rules": [
        {"name": "a", "actions": ["github.*"], "effect": "deny"},
        {"name": "b", "actions": ["mcp.x.y"], "effect": "verify"},
        {"name": "c", "actions": ["mcp.x.y"], "when": [{"path": "/a", "matches": "("}], "effect": "deny"},
    ]}))
    .unwrap();
    let problems = RuleSet::compile(&doc).unwrap_err();
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "rules[0].actions[0]",
            "rules[1].verify",
            "rules[2].when[0].matches"
        ]
    );
    let shape = PolicyDoc::from_value(
        &json!({"rules": [{"name": "x", "actions": ["mcp.a.b"], "effect": "maybe"}]}),
    )
    .unwrap_err();
    assert_eq!(shape.path, "rules[0].effect");
    let typed = PolicyDoc::from_value(&json!({"rules": [{"name": "x", "actions": ["mcp.a.b"], "effect": "deny", "when": [{"path": "/a", "gt": "big"}]}]})).unwrap_err();
    assert_eq!(typed.path, "rules[0].when[0].gt");
}

#[test]
fn rules_naming_unknown_servers_or_fields_warn() {
    let rules = set(json!({"rules": [
        {"name": "r", "actions": ["mcp.billing.refund"], "when": [{"path": "/amount", "gt": 1}], "effect": "deny"},
    ]}));
    let none = |_: &str| None;
    assert_eq!(rules.lint(&[], &none).len(), 1);
    let fields = |a: &str| (a == "mcp.billing.refund").then(|| vec!["total".to_string()]);
    let warnings = rules.lint(&["billing"], &fields);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("\"amount\""), "{warnings:?}");
    let _ = ServerSlug::parse("billing");
}
