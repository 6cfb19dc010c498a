use super::*;
use proptest::prelude::*;

fn slug(s: &str) -> ServerSlug {
    ServerSlug::parse(s).unwrap()
}

#[test]
fn slugs_follow_the_rest_api_form() {
    assert!(ServerSlug::parse("github").is_ok());
    assert!(ServerSlug::parse("a_1").is_ok());
    assert!(ServerSlug::parse("1abc").is_err());
    assert!(ServerSlug::parse("Abc").is_err());
    assert!(ServerSlug::parse("my-server").is_err());
    assert!(ServerSlug::parse("").is_err());
    assert!(ServerSlug::parse(&"a".repeat(33)).is_err());
}

#[test]
fn config_keys_are_normalised_to_slugs() {
    assert_eq!(
        ServerSlug::normalize("My-Server.v2").unwrap().as_str(),
        "my_server_v2"
    );
    assert_eq!(ServerSlug::normalize("GitHub").unwrap().as_str(), "github");
    assert_eq!(
        ServerSlug::normalize("123abc").unwrap().as_str(),
        "s_123abc"
    );
    assert_eq!(ServerSlug::normalize("--x--").unwrap().as_str(), "x");
    assert!(ServerSlug::normalize("---").is_err());
    assert_eq!(
        ServerSlug::normalize(&"b".repeat(50))
            .unwrap()
            .as_str()
            .len(),
        32
    );
}

#[test]
fn action_ids_round_trip() {
    let id = ActionId::new(&slug("billing"), "create_invoice");
    assert_eq!(id.as_str(), "mcp.billing.create_invoice");
    let (server, tool) = ActionId::parse(id.as_str()).unwrap();
    assert_eq!(
        (server.as_str(), tool.as_str()),
        ("billing", "create_invoice")
    );
}

#[test]
fn templates_render_presets() {
    let s = slug("time");
    let names: Vec<String> = NamingTemplate::PRESETS
        .iter()
        .map(|t| NamingTemplate::parse(t).unwrap().render(&s, "now"))
        .collect();
    assert_eq!(names, ["time__now", "mcp__time__now", "now"]);
}

#[test]
fn bad_templates_are_refused_with_the_reason() {
    assert!(matches!(
        NamingTemplate::parse("{server}"),
        Err(TemplateError::MissingTool(_))
    ));
    assert!(matches!(
        NamingTemplate::parse("{server}.{tool}"),
        Err(TemplateError::BadCharacters(_))
    ));
    // Braces around a placeholder once made a literal `{...}` survive into exposed names.
    assert!(matches!(
        NamingTemplate::parse("{tool}{{server}tool}"),
        Err(TemplateError::BadCharacters(_))
    ));
    assert!(matches!(
        NamingTemplate::new("{tool}", 200),
        Err(TemplateError::BadLimit(200))
    ));
}

#[test]
fn long_names_are_shortened_stably_and_route_back() {
    let t = NamingTemplate::default();
    let s = slug("a_really_long_server_name_here");
    let tool = "an_extremely_long_tool_name_that_goes_on_and_on_x";
    let exposed = t.render(&s, tool);
    assert_eq!(exposed.len(), 64);
    assert_eq!(exposed, t.render(&s, tool), "stable");
    let (table, conflicts) = NameTable::build(&t, [(&s, tool)]);
    assert!(conflicts.is_empty());
    assert_eq!(table.route(&exposed), Some((&s, tool)));
}

#[test]
fn invalid_and_duplicate_names_are_dropped_and_the_rest_stay() {
    let s = slug("fx");
    let entries = [
        (&s, "ok"),
        (&s, "bad name!"),
        (&s, "ok"),
        (&s, ""),
        (&s, "fine-2"),
    ];
    let (table, conflicts) = NameTable::build(&NamingTemplate::default(), entries);
    assert_eq!(table.len(), 2);
    assert_eq!(conflicts.len(), 3);
    assert!(matches!(conflicts[0], NameConflict::InvalidName { .. }));
    assert!(matches!(
        conflicts[1],
        NameConflict::DuplicateOnServer { .. }
    ));
    assert_eq!(table.route("fx__fine-2"), Some((&s, "fine-2")));
}

#[test]
fn bare_tool_template_reports_collisions_between_servers() {
    let (a, b) = (slug("a"), slug("b"));
    let t = NamingTemplate::parse("{tool}").unwrap();
    let (table, conflicts) = NameTable::build(&t, [(&a, "echo"), (&b, "echo"), (&b, "add")]);
    assert_eq!(table.route("echo"), Some((&a, "echo")));
    assert_eq!(table.route("add"), Some((&b, "add")));
    assert!(matches!(&conflicts[..], [NameConflict::Collision { taken_by, .. }] if taken_by == &a));
}

fn server_strategy() -> impl Strategy<Value = ServerSlug> {
    "[a-z][a-z0-9_]{0,31}".prop_map(|s| ServerSlug::parse(&s).unwrap())
}

proptest! {
    #[test]
    fn every_exposed_name_matches_the_regex_and_routes_back_to_one_tool(
        entries in proptest::collection::vec((server_strategy(), "[a-zA-Z0-9_-]{1,64}"), 1..40),
        template in prop::sample::select(NamingTemplate::PRESETS.to_vec()),
        max_len in 16usize..=128,
    ) {
        let re = regex::Regex::new(&format!("^[a-zA-Z0-9_-]{{1,{max_len}}}$")).unwrap();
        let t = NamingTemplate::new(template, max_len).unwrap();
        let (table, conflicts) =
            NameTable::build(&t, entries.iter().map(|(s, n)| (s, n.as_str())));
        let mut seen = std::collections::HashSet::new();
        for (server, name) in &entries {
            match table.exposed(server, name) {
                Some(exposed) => {
                    prop_assert!(re.is_match(exposed), "{exposed}");
                    prop_assert_eq!(table.route(exposed), Some((server, name.as_str())));
                    seen.insert(exposed.to_string());
                }
                None => prop_assert!(!conflicts.is_empty()),
            }
        }
        prop_assert_eq!(seen.len(), table.len());
    }

    #[test]
    fn normalised_slugs_are_always_valid(key in "\\PC{1,60}") {
        if let Ok(s) = ServerSlug::normalize(&key) {
            prop_assert!(ServerSlug::parse(s.as_str()).is_ok());
        }
    }
}

#[test]
fn a_template_prefix_is_what_every_name_of_a_server_starts_with() {
    let fx = ServerSlug::parse("fx").unwrap();
    let prefix = |t: &str| NamingTemplate::parse(t).unwrap().prefix(&fx);
    assert_eq!(prefix("{server}__{tool}"), "fx__");
    assert_eq!(prefix("mcp__{server}__{tool}"), "mcp__fx__");
    assert_eq!(prefix("{tool}"), "");
    let template = NamingTemplate::parse("mcp__{server}__{tool}").unwrap();
    assert!(
        template
            .render(&fx, "echo")
            .starts_with(&template.prefix(&fx))
    );
}

#[test]
fn a_tool_named_like_a_meta_tool_gets_its_server_prefix_and_a_warning() {
    let t = NamingTemplate::parse("{tool}").unwrap();
    let s = slug("files");
    let (table, conflicts) = NameTable::build_tools(&t, [(&s, "search_tools"), (&s, "read")]);
    assert_eq!(
        table.exposed(&s, "search_tools"),
        Some("files__search_tools")
    );
    assert_eq!(
        table.route("files__search_tools"),
        Some((&s, "search_tools"))
    );
    assert_eq!(table.exposed(&s, "read"), Some("read"));
    assert!(matches!(&conflicts[..], [NameConflict::Reserved { .. }]));
    assert!(
        conflicts[0].to_string().contains("reserved"),
        "{}",
        conflicts[0]
    );
    // Prompts share no namespace with the meta-tools.
    let (prompts, none) = NameTable::build(&t, [(&s, "search_tools")]);
    assert_eq!(prompts.exposed(&s, "search_tools"), Some("search_tools"));
    assert!(none.is_empty());
}
