use super::*;
use rmcp::model::{Resource, ResourceTemplate, Tool};
use std::sync::Arc;
use switchboard_core::{Limits, StdioSpec, Transport};

fn spec(name: &str) -> ServerSpec {
    ServerSpec::new(
        ServerSlug::parse(name).unwrap(),
        Transport::Stdio(StdioSpec {
            command: "x".into(),
            args: vec![],
            env: Default::default(),
            cwd: None,
            limits: Default::default(),
        }),
    )
}

fn tool(name: &str) -> Tool {
    Tool::new(name.to_string(), "d", Arc::new(Default::default()))
}

fn snapshot(tools: &[&str], resources: &[&str], templates: &[&str]) -> Snapshot {
    Snapshot {
        tools: tools.iter().map(|t| tool(t)).collect(),
        resources: resources.iter().map(|u| Resource::new(*u, "r")).collect(),
        resource_templates: templates
            .iter()
            .map(|t| ResourceTemplate::new(*t, "t"))
            .collect(),
        prompts: vec![],
        ..Snapshot::default()
    }
}

#[test]
fn tools_of_two_servers_route_back_and_bad_names_are_dropped() {
    let (a, b) = (spec("a"), spec("b"));
    let (sa, sb) = (
        snapshot(&["echo", "bad name", "echo"], &[], &[]),
        snapshot(&["echo"], &[], &[]),
    );
    let catalog = Catalog::build(
        &NamingTemplate::default(),
        &[(&a, &sa), (&b, &sb)],
        &Limits::default(),
        None,
    );
    let names: Vec<_> = catalog
        .tools
        .iter()
        .map(|t| t.exposed_name.as_str())
        .collect();
    assert_eq!(names, ["a__echo", "b__echo"]);
    assert_eq!(catalog.warnings.len(), 2);
    assert_eq!(catalog.route_tool("b__echo").unwrap().0.as_str(), "b");
    assert_eq!(
        catalog.tool("a__echo").unwrap().action_id.as_str(),
        "mcp.a.echo"
    );
}

#[test]
fn the_tool_allowlist_hides_other_tools() {
    let mut a = spec("a");
    a.tools = Some(vec!["keep".into()]);
    let s = snapshot(&["keep", "hide"], &[], &[]);
    let catalog = Catalog::build(
        &NamingTemplate::default(),
        &[(&a, &s)],
        &Limits::default(),
        None,
    );
    assert_eq!(catalog.tools.len(), 1);
    assert!(catalog.route_tool("a__hide").is_none());
}

#[test]
fn shared_resource_uris_are_prefixed_and_route_back() {
    let (a, b) = (spec("a"), spec("b"));
    let sa = snapshot(&[], &["file:///same", "file:///only-a"], &["db://a/{id}"]);
    let sb = snapshot(&[], &["file:///same"], &[]);
    let catalog = Catalog::build(
        &NamingTemplate::default(),
        &[(&a, &sa), (&b, &sb)],
        &Limits::default(),
        None,
    );
    let uris: Vec<_> = catalog
        .resources
        .iter()
        .map(|r| r.resource.uri.as_str())
        .collect();
    assert_eq!(
        uris,
        [
            "switchboard://a/file:///same",
            "file:///only-a",
            "switchboard://b/file:///same"
        ]
    );
    let route = |u: &str| catalog.route_resource(u).map(|(s, u)| (s.to_string(), u));
    assert_eq!(
        route("switchboard://b/file:///same"),
        Some(("b".into(), "file:///same".into()))
    );
    assert_eq!(
        route("file:///only-a"),
        Some(("a".into(), "file:///only-a".into()))
    );
    assert_eq!(route("db://a/42"), Some(("a".into(), "db://a/42".into())));
    assert_eq!(route("nope://x"), None);
}

#[test]
fn limits_cap_tool_count_cut_descriptions_and_drop_huge_schemas() {
    let a = spec("a");
    let mut snap = snapshot(&["t1", "t2", "t3", "t4"], &[], &[]);
    snap.tools[0].description = Some("x".repeat(50).into());
    let mut big = serde_json::Map::new();
    big.insert("description".into(), "y".repeat(500).into());
    snap.tools[1].input_schema = Arc::new(big);
    let limits = Limits {
        max_tools_per_server: 2,
        max_description_chars: 10,
        max_schema_bytes: 200,
        ..Limits::default()
    };
    let catalog = Catalog::build(&NamingTemplate::default(), &[(&a, &snap)], &limits, None);
    let names: Vec<_> = catalog
        .tools
        .iter()
        .map(|t| t.exposed_name.as_str())
        .collect();
    assert_eq!(
        names,
        ["a__t1", "a__t3"],
        "t2 dropped for its schema, t4 over the count"
    );
    assert_eq!(
        catalog.tools[0].tool.description.as_deref().unwrap().len(),
        10
    );
    assert_eq!(catalog.warnings.len(), 3, "{:?}", catalog.warnings);
}

/// A tool with an MCP Apps UI: `_meta.ui` (and the older flat key) naming `uri`.
fn app_tool(name: &str, uri: &str) -> Tool {
    let meta = serde_json::json!({
        "ui": {"resourceUri": uri, "visibility": ["model", "app"]},
        "ui/resourceUri": uri,
        "other": 1,
    });
    let serde_json::Value::Object(meta) = meta else {
        unreachable!()
    };
    tool(name).with_meta(rmcp::model::MetaObject(meta))
}

#[test]
fn shared_ui_uris_stay_ui_uris_and_tools_name_the_exposed_one() {
    let (a, b, c) = (spec("a"), spec("b"), spec("c"));
    let mut sa = snapshot(&[], &["ui://clock/app.html"], &[]);
    sa.tools.push(app_tool("clock", "ui://clock/app.html"));
    // b does not list its app's resource (MCP Apps allows that): it still routes.
    let mut sb = snapshot(&[], &[], &[]);
    sb.tools.push(app_tool("clock", "ui://clock/app.html"));
    let mut sc = snapshot(&[], &[], &[]);
    sc.tools.push(app_tool("solo", "ui://solo/app.html"));
    let catalog = Catalog::build(
        &NamingTemplate::default(),
        &[(&a, &sa), (&b, &sb), (&c, &sc)],
        &Limits::default(),
        None,
    );
    let meta = |name: &str| catalog.tool(name).unwrap().tool.meta.clone().unwrap().0;
    for (name, uri) in [
        ("a__clock", "ui://switchboard/a/clock/app.html"),
        ("b__clock", "ui://switchboard/b/clock/app.html"),
        ("c__solo", "ui://solo/app.html"),
    ] {
        let meta = meta(name);
        assert_eq!(meta["ui"]["resourceUri"], uri, "{name}");
        assert_eq!(meta["ui/resourceUri"], uri, "{name}");
        assert_eq!(
            meta["ui"]["visibility"],
            serde_json::json!(["model", "app"])
        );
        assert_eq!(meta["other"], 1);
    }
    let listed: Vec<_> = (catalog.resources.iter())
        .map(|r| r.resource.uri.as_str())
        .collect();
    assert_eq!(listed, ["ui://switchboard/a/clock/app.html"]);
    let route = |u: &str| catalog.route_resource(u).map(|(s, u)| (s.to_string(), u));
    for (exposed, server, upstream) in [
        (
            "ui://switchboard/a/clock/app.html",
            "a",
            "ui://clock/app.html",
        ),
        (
            "ui://switchboard/b/clock/app.html",
            "b",
            "ui://clock/app.html",
        ),
        ("ui://solo/app.html", "c", "ui://solo/app.html"),
    ] {
        assert_eq!(
            route(exposed),
            Some((server.into(), upstream.into())),
            "{exposed}"
        );
    }
    // The shared URI itself names no one server.
    assert_eq!(route("ui://clock/app.html"), None);
}
