//! The bodies of the fuzz targets in `fuzz/`, each with the invariants it checks: a panic
//! (or a broken invariant) is a finding. `tests/corpus.rs` replays the committed corpus
//! through them under plain `cargo test`.

#![forbid(unsafe_code)]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;
use switchboard_core::{NameTable, NamingTemplate, ServerSlug, is_valid_tool_name};
use switchboard_egress::{EgressPolicy, classify};

/// One target's body.
pub type Target = fn(&[u8]);

/// The targets, by the names their corpus folders have.
pub const TARGETS: [(&str, Target); 6] = [
    ("config_file", config_file),
    ("egress_url", egress_url),
    ("names", names),
    ("jsonrpc", jsonrpc),
    ("rest_bodies", rest_bodies),
    ("policy_doc", policy_doc),
];

/// The file names whose shapes the config loader tells apart (the first byte picks one).
const CONFIG_NAMES: [&str; 9] = [
    "mcp.json",
    ".mcp.json",
    "settings.json",
    "workspace.yaml",
    "config.yaml",
    "switchboard.toml",
    "config.toml",
    ".claude.json",
    "cline_mcp_settings.json",
];

/// A config file of any shape: parsed with its placeholders against a small environment.
/// Never panics; an accepted file's servers have valid slugs.
pub fn config_file(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let name = CONFIG_NAMES[pick as usize % CONFIG_NAMES.len()];
    let path = Path::new("/nonexistent/fuzz").join(name);
    let env = |var: &str| match var {
        "HOME" => Some("/home/fuzz".to_string()),
        "TOKEN" | "API_KEY" => Some("s3cr3t".to_string()),
        _ => None,
    };
    if let Ok((servers, _problems)) = switchboard_config::parse_text(&path, text, &env) {
        for server in servers {
            let slug = server.name.as_str();
            assert!(
                ServerSlug::parse(slug).is_ok(),
                "accepted a bad slug {slug:?}"
            );
        }
    }
}

/// A URL string against the production and the `--dev` policies: never panics; a URL the
/// production policy accepts is https, carries no credentials, and an address literal in it
/// is public.
pub fn egress_url(data: &[u8]) {
    let Ok(raw) = std::str::from_utf8(data) else {
        // Raw bytes as addresses instead: the classifier and the policy agree.
        addresses(data);
        return;
    };
    let production = EgressPolicy::default();
    if let Ok(url) = production.check_url(raw) {
        assert_eq!(url.scheme(), "https", "{raw:?}");
        assert!(url.username().is_empty() && url.password().is_none());
        match url.host() {
            Some(url::Host::Ipv4(v4)) => assert_eq!(classify(IpAddr::V4(v4)), None, "{raw:?}"),
            Some(url::Host::Ipv6(v6)) => assert_eq!(classify(IpAddr::V6(v6)), None, "{raw:?}"),
            Some(url::Host::Domain(name)) => {
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                assert!(
                    name != "localhost" && !name.ends_with(".localhost"),
                    "{raw:?}"
                );
            }
            None => panic!("accepted a URL without a host: {raw:?}"),
        }
    }
    let _ = EgressPolicy::dev().check_url(raw);
    addresses(data);
}

fn addresses(data: &[u8]) {
    let production = EgressPolicy::default();
    if let Some(four) = data.get(..4) {
        let ip = IpAddr::V4(Ipv4Addr::new(four[0], four[1], four[2], four[3]));
        assert_eq!(production.check_ip(ip).is_ok(), classify(ip).is_none());
    }
    if let Some(sixteen) = data.get(..16) {
        let mut octets = [0u8; 16];
        octets.copy_from_slice(sixteen);
        let v6 = Ipv6Addr::from(octets);
        let ip = IpAddr::V6(v6);
        assert_eq!(production.check_ip(ip).is_ok(), classify(ip).is_none());
        // An IPv6 address that carries an IPv4 one is never kinder than that address.
        if let Some(v4) = switchboard_egress::embedded_ipv4(v6)
            && classify(IpAddr::V4(v4)).is_some()
        {
            assert!(classify(ip).is_some(), "{v6} carries refused {v4}");
        }
    }
}

/// Exposed names: a template and length limit, a server key and tool names from the input.
/// Every name given is valid, unique and routes back to exactly its (server, tool).
pub fn names(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\n');
    let (Some(template), Some(limit), Some(server)) = (parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let limit = limit.trim().parse().unwrap_or(64);
    let Ok(template) = NamingTemplate::new(template, limit) else {
        return;
    };
    let Ok(server) = ServerSlug::normalize(server) else {
        return;
    };
    let tools: Vec<&str> = parts.collect();
    let (table, _conflicts) = NameTable::build(&template, tools.iter().map(|t| (&server, *t)));
    let mut seen = std::collections::HashSet::new();
    for tool in &tools {
        let Some(exposed) = table.exposed(&server, tool) else {
            continue;
        };
        assert!(is_valid_tool_name(tool), "named an invalid tool {tool:?}");
        assert!(
            !exposed.is_empty()
                && exposed.len() <= limit
                && (exposed.bytes()).all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
            "bad exposed name {exposed:?}"
        );
        assert_eq!(table.route(exposed), Some((&server, *tool)), "{exposed:?}");
        seen.insert(exposed.to_string());
    }
    assert_eq!(seen.len(), table.len(), "each exposed name once");
}

/// A JSON-RPC message as `/mcp` receives it: rmcp's parse never panics, and what it accepts
/// survives a round trip through its own serialisation unchanged (numbers too: the
/// workspace's serde_json reads floats with `float_roundtrip`; fuzz/regressions/jsonrpc keeps
/// the inputs that showed the need).
pub fn jsonrpc(data: &[u8]) {
    use rmcp::model::{ClientNotification, ClientRequest, JsonRpcMessage};
    type Message = rmcp::model::ClientJsonRpcMessage;
    let Ok(message) = serde_json::from_slice::<Message>(data) else {
        return;
    };
    let written = serde_json::to_vec(&message).expect("an accepted message serialises");
    let again: Message = serde_json::from_slice(&written).expect("its own output parses");
    // A known method whose params rmcp cannot read typed (a duplicate key, say) is kept as a
    // custom message, which the gateway answers "method not found"; written out without the
    // duplicate it reads back typed. For those, the second reading must be stable.
    let custom = match &message {
        JsonRpcMessage::Request(r) => matches!(r.request, ClientRequest::CustomRequest(_)),
        JsonRpcMessage::Notification(n) => {
            matches!(n.notification, ClientNotification::CustomNotification(_))
        }
        _ => false,
    };
    let (before, after) = if custom {
        let rewritten = serde_json::to_vec(&again).expect("serialises");
        let third: Message = serde_json::from_slice(&rewritten).expect("parses");
        (
            serde_json::to_value(&again).ok(),
            serde_json::to_value(&third).ok(),
        )
    } else {
        (
            serde_json::to_value(&message).ok(),
            serde_json::to_value(&again).ok(),
        )
    };
    assert_eq!(after, before);
}

/// A REST request body (the first byte picks which), parsed and checked as the API does: never
/// panics; what is accepted keeps the API's promises (a name of 1 to 100 characters, a valid
/// slug, secrets of at most 8000 bytes that can travel in an HTTP header).
pub fn rest_bodies(data: &[u8]) {
    use switchboard_api_types as api;
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    match pick % 4 {
        0 => {
            let Ok(server) = serde_json::from_slice::<api::CreateServer>(body) else {
                return;
            };
            if api::validate_name(&server.name).is_ok() {
                let length = server.name.chars().count();
                assert!((1..=api::MAX_NAME).contains(&length) && !server.name.trim().is_empty());
            }
            if let Ok(slug) = ServerSlug::parse(&server.slug) {
                assert_eq!(slug.as_str(), server.slug, "a slug is taken as given");
            }
            credentials(&server.auth_method, server.credentials.as_ref());
        }
        1 => {
            let Ok(update) = serde_json::from_slice::<api::UpdateServer>(body) else {
                return;
            };
            if let Some(name) = &update.name {
                let _ = api::validate_name(name);
            }
            let method = update.auth_method.as_deref().unwrap_or("none");
            credentials(method, update.credentials.as_ref());
        }
        2 => {
            // Bare credentials under every auth method.
            let Ok(given) = serde_json::from_slice::<api::Credentials>(body) else {
                return;
            };
            let methods = ["none", "bearer", "apiKey", "oauth2", "clientCredentials"];
            for method in methods.into_iter().chain(["authorizationCode", "basic"]) {
                credentials(method, Some(&given));
            }
        }
        _ => {
            let _ = serde_json::from_slice::<api::Invoke>(body);
            let _ = serde_json::from_slice::<api::Toggle>(body);
            let _ = serde_json::from_slice::<api::ApproveBody>(body);
        }
    }
}

/// Credentials the API accepts for `method` can be sent: every secret fits and is a valid
/// header value.
fn credentials(method: &str, given: Option<&switchboard_api_types::Credentials>) {
    let Ok(auth) = switchboard_api_types::upstream_auth(method, given) else {
        return;
    };
    let sendable = |value: &str| {
        assert!(!value.is_empty() && value.len() <= 2 * switchboard_api_types::MAX_SECRET);
        assert!(
            http::HeaderValue::from_str(value).is_ok(),
            "accepted a secret no header can carry: {value:?}"
        );
    };
    if let Some(token) = &auth.bearer {
        sendable(&format!("Bearer {token}"));
    }
    if let Some((name, value)) = &auth.header {
        assert!(
            http::HeaderName::from_bytes(name.as_bytes()).is_ok(),
            "{name:?}"
        );
        sendable(value);
    }
    match &auth.oauth {
        Some(switchboard_core::OAuthSpec::Tokens { access_token, .. }) => {
            sendable(&format!("Bearer {access_token}"))
        }
        Some(switchboard_core::OAuthSpec::AuthorizationCode {
            seed: Some((access, _)),
            ..
        }) => sendable(&format!("Bearer {access}")),
        _ => {}
    }
}

/// A policy document, as switchboard.toml's `[policy]` (TOML) or `/api/policy` (JSON) carries
/// it (the first byte picks): reading and compiling its parts never panics; an accepted
/// document survives a round trip through its own JSON; a glob without wildcards matches
/// exactly its own text; a compiled predicate evaluates against any arguments; a rate that
/// parses has a count and a period above 0.
pub fn policy_doc(data: &[u8]) {
    use switchboard_policy_doc::{Glob, PolicyDoc, Predicate, parse_rate};
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let value: serde_json::Value = if pick % 2 == 0 {
        let Ok(table) = toml::from_str::<toml::Table>(text) else {
            return;
        };
        let Ok(value) = serde_json::to_value(&table) else {
            return;
        };
        value.get("policy").cloned().unwrap_or(value)
    } else {
        let Ok(value) = serde_json::from_str(text) else {
            return;
        };
        value
    };
    let Ok(doc) = PolicyDoc::from_value(&value) else {
        return;
    };
    let written = serde_json::to_value(&doc).expect("a document serialises");
    let again = PolicyDoc::from_value(&written).expect("its own output reads back");
    assert_eq!(serde_json::to_value(&again).ok(), Some(written));
    let arguments = value.as_object();
    for rule in &doc.rules {
        for pattern in &rule.actions {
            if let Ok(glob) = Glob::new(pattern) {
                let _ = glob.server();
                let literal = !pattern.contains(['*', '?']);
                assert!(
                    !literal || glob.matches(pattern),
                    "{pattern:?} misses itself"
                );
                let _ = glob.matches("mcp.github.create_issue");
            }
        }
        for predicate in &rule.when {
            if let Ok(compiled) = Predicate::compile(predicate) {
                let _ = compiled.root_field();
                let _ = compiled.holds(arguments);
                let _ = compiled.holds(None);
            }
        }
    }
    for limit in &doc.rate_limits {
        if let Some((count, period)) = parse_rate(&limit.rate) {
            assert!(count > 0 && period > 0, "{:?}", limit.rate);
        }
    }
}
