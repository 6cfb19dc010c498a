//! Gateway-wide settings: `[gateway]`, `[egress]`, `[limits]`, `[stdio]`, `[sandbox]`, `[oauth]`,
//! `[telemetry]` and `[audit]` in switchboard.toml.

use crate::entry::Context;
use crate::locate::line_of;
use crate::{GatewaySettings, Problem};
use serde_json::{Map, Value};

/// The top-level tables this module reads.
pub(crate) const SECTIONS: [&str; 10] = [
    "identity",
    "sandbox",
    "gateway",
    "egress",
    "limits",
    "stdio",
    "oauth",
    "policy",
    "telemetry",
    "audit",
];

const LIMIT_KEYS: [&str; 28] = [
    "max_message_bytes",
    "max_result_bytes",
    "max_tools_per_server",
    "max_description_chars",
    "max_schema_bytes",
    "max_concurrent_calls",
    "max_queued_calls",
    "session_park_secs",
    "max_sessions",
    "max_sessions_per_client",
    "max_sessions_per_token",
    "max_sessions_in_memory",
    "session_expire_secs",
    "max_connections",
    "max_connections_per_client",
    "header_read_secs",
    "body_read_secs",
    "max_request_bytes",
    "max_concurrent_requests_per_session",
    "max_concurrent_requests_per_token",
    "failed_auth_per_minute",
    "capability_sessions_per_server",
    "capability_sessions_per_stdio_server",
    "capability_session_idle_secs",
    "end_user_sessions_per_server",
    "end_user_processes_per_server",
    "end_user_session_idle_secs",
    "consent_timeout_secs",
];

/// The `[limits]` keys whose 0 is documented as "off" (`session_park_secs = 0`: never park).
const OFF_WHEN_ZERO: [&str; 3] = [
    "session_park_secs",
    "capability_sessions_per_server",
    "capability_sessions_per_stdio_server",
];

pub(crate) struct Reader<'a, 'c> {
    pub(crate) ctx: &'a Context<'c>,
    pub(crate) section: &'static str,
    pub(crate) problems: &'a mut Vec<Problem>,
}

impl Reader<'_, '_> {
    pub(crate) fn problem(&mut self, key: &str, message: &str, fix: &str) {
        self.problems.push(Problem::error(
            self.ctx.file,
            line_of(self.ctx.text, &[self.section, key]),
            &format!("{}.{key}", self.section),
            message,
            fix,
        ));
    }

    pub(crate) fn string(&mut self, key: &str, value: &Value) -> Option<String> {
        let Some(s) = value.as_str() else {
            self.problem(key, "must be a string", "quote the value");
            return None;
        };
        let mut secrets = Vec::new();
        match crate::placeholders::resolve(s, self.ctx.workspace_root, self.ctx.env, &mut secrets) {
            Ok(v) => Some(v),
            Err(e) => {
                self.problem(key, &e.message(), &e.fix());
                None
            }
        }
    }

    pub(crate) fn strings(&mut self, key: &str, value: &Value) -> Option<Vec<String>> {
        let list = value.as_array().filter(|l| l.iter().all(Value::is_string));
        match list {
            Some(list) => Some(
                list.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect(),
            ),
            None => {
                self.problem(key, "must be a list of strings", "write [\"a\", \"b\"]");
                None
            }
        }
    }

    pub(crate) fn number(&mut self, key: &str, value: &Value) -> Option<usize> {
        match value.as_u64().filter(|n| *n > 0) {
            Some(n) => Some(n as usize),
            None => {
                self.problem(key, "must be a positive whole number", "write e.g. 65536");
                None
            }
        }
    }

    pub(crate) fn unknown(&mut self, key: &str) {
        self.problems.push(Problem::warning(
            self.ctx.file,
            line_of(self.ctx.text, &[self.section, key]),
            &format!("{}.{key}", self.section),
            "unknown setting, ignored",
            "see the switchboard.toml reference in docs/configuration.md",
        ));
    }
}

fn table<'v>(
    root: &'v Map<String, Value>,
    name: &str,
) -> impl Iterator<Item = (&'v String, &'v Value)> {
    root.get(name)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

pub(crate) fn parse(
    root: &Map<String, Value>,
    ctx: &Context<'_>,
    problems: &mut Vec<Problem>,
) -> GatewaySettings {
    let mut g = GatewaySettings::default();
    let mut r = Reader {
        ctx,
        section: "gateway",
        problems,
    };
    for (key, value) in table(root, "gateway") {
        match key.as_str() {
            "listen" => g.listen = r.string(key, value),
            "naming" => g.naming = r.string(key, value),
            "public_url" => {
                let given = r.string(key, value);
                match given.as_deref().map(url::Url::parse) {
                    Some(Ok(url))
                        if matches!(url.scheme(), "http" | "https")
                            && matches!(url.path(), "" | "/")
                            && url.query().is_none() =>
                    {
                        g.public_url = given.map(|u| u.trim_end_matches('/').to_string());
                    }
                    Some(_) => r.problem(
                        key,
                        "must be an origin: https://host[:port], with no path",
                        "write the address people and clients reach this gateway at, e.g. \"https://mcp.example.com\"",
                    ),
                    None => {}
                }
            }
            "anonymous_loopback" => match value.as_bool() {
                Some(on) => g.anonymous_loopback = Some(on),
                None => r.problem(key, "must be true or false", "write true or false"),
            },
            "token" => g.token = r.string(key, value),
            "max_name_length" => g.max_name_length = r.number(key, value),
            "allowed_hosts" => g.allowed_hosts = r.strings(key, value),
            "allowed_origins" => g.allowed_origins = r.strings(key, value),
            "roots" => {
                let roots = r.strings(key, value).unwrap_or_default();
                for root in &roots {
                    // The protocol's roots are file:// URIs.
                    if url::Url::parse(root).map_or(true, |u| u.scheme() != "file") {
                        r.problem(
                            key,
                            &format!("{root:?} is not a file:// URI"),
                            "write roots as file URIs, e.g. \"file:///srv/projects\"",
                        );
                    }
                }
                g.roots = Some(roots);
            }
            "tools_mode" => {
                if let Some(text) = r.string(key, value) {
                    match text.parse() {
                        Ok(mode) => g.tools_mode = Some(mode),
                        Err(message) => r.problem(
                            key,
                            &message,
                            "search lists a few meta-tools that find the rest (docs/tool-search.md)",
                        ),
                    }
                }
            }
            "tools_search_threshold" => g.tools_search_threshold = r.number(key, value),
            "tools_search_lists_found" => match value.as_bool() {
                Some(on) => g.tools_search_lists_found = Some(on),
                None => r.problem(key, "must be true or false", "write true or false"),
            },
            "tools_search_meaning" => match value.as_bool() {
                Some(on) => g.tools_search_meaning = Some(on),
                None => r.problem(key, "must be true or false", "write true or false"),
            },
            "refresh_interval_secs" => match value.as_u64() {
                Some(n) => g.refresh_interval_secs = Some(n as usize),
                None => r.problem(
                    key,
                    "must be a whole number of seconds",
                    "write e.g. 600, or 0 to turn scheduled re-discovery off",
                ),
            },
            _ => r.unknown(key),
        }
    }
    r.section = "egress";
    for (key, value) in table(root, "egress") {
        match key.as_str() {
            "allow_hosts" => g.egress_allow_hosts = r.strings(key, value),
            "allow_cidrs" => {
                let Some(list) = r.strings(key, value) else {
                    continue;
                };
                let mut nets = Vec::new();
                for item in list {
                    match item
                        .parse::<ipnet::IpNet>()
                        .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                    {
                        Ok(net) => nets.push(net),
                        Err(_) => r.problem(
                            key,
                            &format!("{item:?} is not an address range"),
                            "write CIDRs such as \"10.20.0.0/16\" or \"fd00:1::/64\"",
                        ),
                    }
                }
                g.egress_allow_cidrs = Some(nets);
            }
            _ => r.unknown(key),
        }
    }
    r.section = "limits";
    for (key, value) in table(root, "limits") {
        if OFF_WHEN_ZERO.contains(&key.as_str()) && value.as_u64() == Some(0) {
            g.limits.push((key.clone(), 0));
        } else if LIMIT_KEYS.contains(&key.as_str()) {
            match r.number(key, value) {
                Some(n) if key == "consent_timeout_secs" && n > 600 => r.problem(
                    key,
                    "must be at most 600: a consent link works for ten minutes",
                    "write e.g. 300",
                ),
                Some(n) => g.limits.push((key.clone(), n)),
                None => {}
            }
        } else {
            r.unknown(key);
        }
    }
    r.section = "stdio";
    for (key, value) in table(root, "stdio") {
        match key.as_str() {
            "allow_env" => g.allow_env = r.strings(key, value),
            _ => r.unknown(key),
        }
    }
    r.section = "sandbox";
    for (key, value) in table(root, "sandbox") {
        match (key.as_str(), value.as_str()) {
            ("mode", Some("auto" | "strict")) => g.sandbox_mode = r.string(key, value),
            ("mode", _) => r.problem(
                key,
                "must be \"auto\" or \"strict\"",
                "write mode = \"auto\" (apply what the kernel has, name what is missing) or \"strict\" (start no server without every layer)",
            ),
            _ => r.unknown(key),
        }
    }
    r.section = "oauth";
    for (key, value) in table(root, "oauth") {
        match key.as_str() {
            "redirect_base" => {
                let base = r.string(key, value);
                match base.as_deref().map(url::Url::parse) {
                    Some(Ok(url)) if matches!(url.scheme(), "http" | "https") => {
                        g.oauth_redirect_base = base;
                    }
                    Some(_) => r.problem(
                        key,
                        "must be an http(s) URL",
                        "write the gateway's public address, e.g. \"https://gateway.example.com\"",
                    ),
                    None => {}
                }
            }
            "token_store" => match value.as_str() {
                Some("store" | "file" | "keychain") => g.oauth_token_store = r.string(key, value),
                _ => r.problem(
                    key,
                    "must be \"store\", \"file\" or \"keychain\"",
                    "write token_store = \"store\" (sealed in the gateway's store), \"file\" (with token_file) or \"keychain\" (builds with the keychain feature)",
                ),
            },
            "token_file" => g.oauth_token_file = r.string(key, value),
            _ => r.unknown(key),
        }
    }
    if let Some(section) = root.get("telemetry") {
        r.section = "telemetry";
        g.telemetry = crate::telemetry::parse(section, &mut r);
    }
    if let Some(section) = root.get("identity") {
        r.section = "identity";
        g.issuers = crate::identity::parse(section, &mut r);
    }
    if let Some(section) = root.get("audit") {
        r.section = "audit";
        g.audit = crate::audit::parse(section, &mut r);
    }
    g
}
