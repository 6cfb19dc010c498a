//! Config files as users already have them (mcp.json shapes, workspace.yaml, config.yaml,
//! switchboard.toml): detection by shape, placeholders, layering and located problems.

mod audit;
pub mod discover;
mod entry;
mod hosts;
mod identity;
mod json_dialect;
mod locate;
mod placeholders;
mod problem;
mod settings;
mod shapes;
mod suggest;
mod telemetry;
pub use audit::AuditSettings;
pub use identity::ROLES;
pub use telemetry::telemetry_of;

pub use placeholders::input_variable;
pub use problem::{Problem, Problems, Severity};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use switchboard_core::{ServerSlug, ServerSpec};

/// Gateway-wide settings from the native file (`[gateway]`, `[egress]`, `[limits]`, `[stdio]`).
/// `None` means "not set here", so layered files only override what they mention.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GatewaySettings {
    pub listen: Option<String>,
    pub naming: Option<String>,
    pub max_name_length: Option<usize>,
    /// Bearer token required on the downstream endpoint.
    pub token: Option<String>,
    /// Extra `Host` values the downstream endpoint accepts.
    pub allowed_hosts: Option<Vec<String>>,
    /// Browser origins the downstream endpoint accepts.
    pub allowed_origins: Option<Vec<String>>,
    /// Seconds between scheduled re-discoveries of API servers (once per cluster); 0 = off.
    pub refresh_interval_secs: Option<usize>,
    pub egress_allow_hosts: Option<Vec<String>>,
    pub egress_allow_cidrs: Option<Vec<ipnet::IpNet>>,
    /// `[limits]` overrides as (key, value), applied by [`GatewaySettings::limits`].
    pub limits: Vec<(String, usize)>,
    /// Runtime-hijacking variables the operator allows stdio servers to set.
    pub allow_env: Option<Vec<String>>,
    /// `[sandbox] mode`: `"auto"` (the default) or `"strict"`.
    pub sandbox_mode: Option<String>,
    /// `[gateway] roots`: the roots an upstream gets when it asks outside any call.
    pub roots: Option<Vec<String>>,
    /// `[oauth] redirect_base`: the stable public base of `/oauth/callback/…`.
    pub oauth_redirect_base: Option<String>,
    /// `[oauth] token_store`: `"store"` (sealed in the gateway's store), `"file"` or
    /// `"keychain"`.
    pub oauth_token_store: Option<String>,
    /// `[oauth] token_file`: the 0600 JSON file for `token_store = "file"`.
    pub oauth_token_file: Option<String>,
    /// `[telemetry]`: where traces are exported; `None` when not exported.
    pub telemetry: Option<Telemetry>,
    /// `[audit]`: durability of call rows and the queue's bound.
    pub audit: AuditSettings,
    /// `[gateway] tools_mode`: every tool listed, search meta-tools, or search when large.
    pub tools_mode: Option<switchboard_core::ToolsMode>,
    /// `[gateway] tools_search_threshold`: `auto` searches above this many visible tools.
    pub tools_search_threshold: Option<usize>,
    /// `[gateway] tools_search_lists_found`: tools a session found join its `tools/list`.
    pub tools_search_lists_found: Option<bool>,
    /// `[gateway] tools_search_meaning`: search ranks by meaning (the embedded model) too.
    pub tools_search_meaning: Option<bool>,
    /// `[gateway] public_url`: the origin of every URL the gateway hands out or checks.
    pub public_url: Option<String>,
    /// `[gateway] anonymous_loopback`: whether a request without a token on loopback is the
    /// operator's (default true).
    pub anonymous_loopback: Option<bool>,
    /// `[[identity.issuers]]`: the issuers whose access tokens are accepted.
    pub issuers: Option<Vec<switchboard_core::IssuerSpec>>,
}

/// `[telemetry]`: the OTLP/HTTP export of traces (off unless an endpoint is given).
#[derive(Debug, Clone, PartialEq)]
pub struct Telemetry {
    /// The collector's OTLP/HTTP base URL (`/v1/traces` is added) or its traces URL.
    pub endpoint: String,
    pub service_name: String,
    /// The share of new traces kept, 0.0 to 1.0 (default 1.0).
    pub sample_ratio: f64,
    /// Headers sent with each export (placeholders resolved).
    pub headers: Vec<(String, String)>,
}

impl GatewaySettings {
    /// Where authorization servers send browsers back (`{base}/oauth/callback/…`): `[oauth]
    /// redirect_base`, else `[gateway] public_url`, else `listening` (the listen address).
    pub fn oauth_redirect_base_or(&self, listening: Option<String>) -> Option<String> {
        (self.oauth_redirect_base.clone())
            .or_else(|| self.public_url.clone())
            .or(listening)
    }

    /// Later settings win where they say something.
    fn layer(&mut self, later: GatewaySettings) {
        macro_rules! take {
            ($($field:ident),*) => { $( if later.$field.is_some() { self.$field = later.$field; } )* };
        }
        take!(
            listen,
            naming,
            max_name_length,
            token,
            allowed_hosts,
            allowed_origins,
            refresh_interval_secs,
            egress_allow_hosts,
            egress_allow_cidrs,
            allow_env,
            sandbox_mode,
            roots,
            oauth_redirect_base,
            oauth_token_store,
            oauth_token_file,
            telemetry,
            tools_mode,
            tools_search_threshold,
            tools_search_lists_found,
            tools_search_meaning,
            public_url,
            anonymous_loopback,
            issuers
        );
        self.limits.extend(later.limits);
        self.audit.layer(later.audit);
    }

    /// The tools mode and `auto` threshold in force.
    pub fn tools(&self) -> switchboard_core::ToolsSetting {
        let default = switchboard_core::ToolsSetting::default();
        switchboard_core::ToolsSetting {
            mode: self.tools_mode.unwrap_or(default.mode),
            threshold: self.tools_search_threshold.unwrap_or(default.threshold),
            list_found: self.tools_search_lists_found.unwrap_or(default.list_found),
            meaning: self.tools_search_meaning.unwrap_or(default.meaning),
        }
    }

    /// The limits in force: defaults with `[limits]` overrides applied.
    pub fn limits(&self) -> switchboard_core::Limits {
        let mut limits = switchboard_core::Limits::default();
        for (key, value) in &self.limits {
            match key.as_str() {
                "max_message_bytes" => limits.max_message_bytes = *value,
                "max_result_bytes" => limits.max_result_bytes = *value,
                "max_tools_per_server" => limits.max_tools_per_server = *value,
                "max_description_chars" => limits.max_description_chars = *value,
                "max_schema_bytes" => limits.max_schema_bytes = *value,
                "max_concurrent_calls" => limits.max_concurrent_calls = *value,
                "max_queued_calls" => limits.max_queued_calls = *value,
                "session_park_secs" => limits.session_park_secs = *value,
                "max_sessions" => limits.max_sessions = *value,
                "max_sessions_per_client" => limits.max_sessions_per_client = *value,
                "max_sessions_per_token" => limits.max_sessions_per_token = *value,
                "max_sessions_in_memory" => limits.max_sessions_in_memory = *value,
                "session_expire_secs" => limits.session_expire_secs = *value,
                "max_connections" => limits.max_connections = *value,
                "max_connections_per_client" => limits.max_connections_per_client = *value,
                "header_read_secs" => limits.header_read_secs = *value,
                "body_read_secs" => limits.body_read_secs = *value,
                "max_request_bytes" => limits.max_request_bytes = *value,
                "max_concurrent_requests_per_session" => {
                    limits.max_concurrent_requests_per_session = *value
                }
                "max_concurrent_requests_per_token" => {
                    limits.max_concurrent_requests_per_token = *value
                }
                "failed_auth_per_minute" => limits.failed_auth_per_minute = *value,
                "capability_sessions_per_server" => limits.capability_sessions_per_server = *value,
                "capability_sessions_per_stdio_server" => {
                    limits.capability_sessions_per_stdio_server = *value
                }
                "capability_session_idle_secs" => limits.capability_session_idle_secs = *value,
                "end_user_sessions_per_server" => limits.end_user_sessions_per_server = *value,
                "end_user_processes_per_server" => limits.end_user_processes_per_server = *value,
                "end_user_session_idle_secs" => limits.end_user_session_idle_secs = *value,
                "consent_timeout_secs" => limits.consent_timeout_secs = *value,
                _ => {}
            }
        }
        limits
    }
}

/// A `[policy]` section as written (the policy crate reads it, with [`PolicySource::line`]
/// to point its problems at the file).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicySource {
    pub file: String,
    pub text: String,
    pub value: serde_json::Value,
}

impl PolicySource {
    /// The line of a field given as a document path such as `rules[2].when[0].gt`: the
    /// n-th `[[policy.rules]]` (or n-th inline entry), then each key after it.
    pub fn line(&self, path: &str) -> Option<usize> {
        let mut offset = self
            .text
            .find("[policy")
            .or_else(|| locate::offset_of(&self.text, "policy", 0))?;
        for segment in path.split('.').filter(|s| !s.is_empty()) {
            let (key, index) = match segment.split_once('[') {
                Some((key, rest)) => (key, rest.trim_end_matches(']').parse::<usize>().ok()),
                None => (segment, None),
            };
            let header = format!("[[policy.{key}]]");
            offset = match index {
                Some(n) if self.text[offset..].contains(&header) => {
                    locate::nth_offset(&self.text, &header, n, offset)?
                }
                Some(n) => {
                    let at = locate::offset_of(&self.text, key, offset)?;
                    // An inline list of tables counts `{`; a list of strings stays on its key.
                    let after = self.text[at..].split_once('[').map(|(_, r)| r.trim_start());
                    match after {
                        Some(rest) if rest.starts_with('{') => {
                            locate::nth_offset(&self.text, "{", n, at)?
                        }
                        _ => at,
                    }
                }
                None => locate::offset_of(&self.text, key, offset)?,
            };
        }
        Some(self.text[..offset].matches('\n').count() + 1)
    }
}

/// Everything the files declare, layered: later files win on a server-name collision.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub servers: Vec<ServerSpec>,
    pub gateway: GatewaySettings,
    /// Problems that do not stop anything (unknown keys, dropped duplicates).
    pub warnings: Vec<Problem>,
    /// Every `[policy]` section, in file order (later ones layer over earlier ones).
    pub policy: Vec<PolicySource>,
}

impl Config {
    pub fn server(&self, name: &str) -> Option<&ServerSpec> {
        self.servers.iter().find(|s| s.name.as_str() == name)
    }
}

/// Reads and layers `paths` in order. Every problem in every file is reported, not just the
/// first; warnings travel in [`Config::warnings`].
pub fn load(paths: &[PathBuf]) -> Result<Config, Problems> {
    load_with_env(paths, &|name| std::env::var(name).ok())
}

/// [`load`] with an explicit environment, for tests and embedders.
pub fn load_with_env(
    paths: &[PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, Problems> {
    let (config, problems) = load_all_with_env(paths, env);
    let (warnings, errors): (Vec<_>, Vec<_>) = problems
        .into_iter()
        .partition(|p| p.severity == Severity::Warning);
    if !errors.is_empty() {
        let mut all = errors;
        all.extend(warnings);
        return Err(Problems(all));
    }
    Ok(Config { warnings, ..config })
}

/// Everything the files declare that could be read, and every problem (errors and
/// warnings), so a check can go on to what depends on the config (policy, identity) and say
/// all that is wrong at once.
pub fn load_all_with_env(
    paths: &[PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
) -> (Config, Vec<Problem>) {
    let mut servers: BTreeMap<ServerSlug, (usize, ServerSpec)> = BTreeMap::new();
    let mut gateway = GatewaySettings::default();
    let mut policy = Vec::new();
    let mut problems = Vec::new();
    let mut order = 0usize;
    let mut server_files = Vec::new();
    for path in paths {
        let parsed = match read_file(path).and_then(|text| parse_file(path, &text, env)) {
            Ok(parsed) => parsed,
            Err(mut file_problems) => {
                problems.append(&mut file_problems);
                continue;
            }
        };
        problems.extend(parsed.problems);
        if parsed.declares_servers {
            server_files.push(path.display().to_string());
        }
        for spec in parsed.servers {
            order += 1;
            let position = servers.get(&spec.name).map_or(order, |(pos, _)| *pos);
            servers.insert(spec.name.clone(), (position, spec));
        }
        gateway.layer(parsed.gateway);
        policy.extend(parsed.policy);
    }
    let allowed = gateway.allow_env.clone().unwrap_or_default();
    for (_, spec) in servers.values() {
        if let switchboard_core::Transport::Stdio(stdio) = &spec.transport {
            for name in stdio
                .env
                .keys()
                .filter(|n| switchboard_core::env::is_refused(n, &allowed))
            {
                let (file, path) = spec.origin.rsplit_once(':').unwrap_or((&spec.origin, ""));
                let (message, fix) = match switchboard_core::env::is_gateways_own(name) {
                    true => (
                        format!(
                            "{name} is the gateway's own (its sandbox reads it) and is refused"
                        ),
                        "remove it".to_string(),
                    ),
                    false => (
                        format!("{name} can inject code into the server's runtime and is refused"),
                        format!(
                            "remove it, or allow it by name: [stdio] allow_env = [\"{name}\"] in switchboard.toml"
                        ),
                    ),
                };
                problems.push(Problem::error(
                    file,
                    None,
                    &format!("{path}.env.{name}"),
                    message,
                    fix,
                ));
            }
        }
    }
    problems.extend(end_user_oauth_problems(&servers, &gateway));
    let failed = problems.iter().any(|p| p.severity == Severity::Error);
    if servers.is_empty() && !failed {
        problems.extend(server_files.iter().map(|file| no_servers(file)));
    }
    let mut ordered: Vec<_> = servers.into_values().collect();
    ordered.sort_by_key(|(pos, _)| *pos);
    let config = Config {
        servers: ordered.into_iter().map(|(_, spec)| spec).collect(),
        gateway,
        warnings: Vec::new(),
        policy,
    };
    (config, problems)
}

/// The message of a server file that declares no servers (`config discover` shows such a
/// host file as having none, not as a problem).
pub const NO_SERVERS: &str =
    "the file's servers table is empty, so the configuration has no servers";

fn no_servers(file: &str) -> Problem {
    Problem::error(
        file,
        None,
        "",
        NO_SERVERS,
        "declare a server in it (docs/configuration.md has each shape), or leave it out: serve and stdio run without config files",
    )
}

/// A per-end-user OAuth server sends each end user to a consent page that signs them in
/// first: without a public URL and an issuer offering sign-in, nobody could ever authorize it.
fn end_user_oauth_problems(
    servers: &BTreeMap<ServerSlug, (usize, ServerSpec)>,
    gateway: &GatewaySettings,
) -> Vec<Problem> {
    let signs_in = (gateway.issuers.iter().flatten()).any(|i| i.sign_in.is_some());
    let missing = match (gateway.public_url.is_some(), signs_in) {
        (true, true) => return Vec::new(),
        (false, _) => "[gateway] public_url (where consent links point)",
        (true, false) => {
            "an [[identity.issuers]] entry with sign_in (how the end user proves who they are)"
        }
    };
    let each = |spec: &ServerSpec| spec.end_user_credentials.as_ref().is_some_and(|e| e.oauth);
    (servers.values().map(|(_, spec)| spec).filter(|s| each(s)))
        .map(|spec| {
            let (file, path) = spec.origin.rsplit_once(':').unwrap_or((&spec.origin, ""));
            Problem::error(
                file,
                None,
                &format!("{path}.auth"),
                format!("server {} has each end user authorize it in their browser, and this gateway has no {missing}", spec.name),
                "set [gateway] public_url and add sign_in = { client_id = …, client_secret = … } to an [[identity.issuers]] entry, or use auth type bearer or apiKey",
            )
        })
        .collect()
}

/// The VS Code inputs (`${input:ID}`) the files use, each once, in order of first use.
/// Unreadable files are skipped here (loading them reports it).
pub fn inputs_used(paths: &[PathBuf]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for text in paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()) {
        for id in placeholders::input_ids(&text) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

pub(crate) struct ParsedFile {
    /// Whether the file has a servers table (even an empty one), unlike a settings-only
    /// switchboard.toml.
    pub declares_servers: bool,
    pub servers: Vec<ServerSpec>,
    pub gateway: GatewaySettings,
    pub problems: Vec<Problem>,
    pub policy: Option<PolicySource>,
}

fn read_file(path: &Path) -> Result<String, Vec<Problem>> {
    std::fs::read_to_string(path).map_err(|e| {
        vec![Problem::error(
            &path.display().to_string(),
            None,
            "",
            format!("cannot read the file: {e}"),
            "check the path given to -c/--config",
        )]
    })
}

/// One config file's `text` as if read from `path` (whose name picks the shape), with its
/// problems: what `load` does with each file, for fuzzing and embedders that hold the text.
pub fn parse_text(
    path: &Path,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Vec<ServerSpec>, Vec<Problem>), Vec<Problem>> {
    parse_file(path, text, env).map(|parsed| (parsed.servers, parsed.problems))
}

fn parse_file(
    path: &Path,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ParsedFile, Vec<Problem>> {
    let file = path.display().to_string();
    let base = path
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(Path::new("."));
    let base = std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
    let (doc, lenient) = shapes::parse_document(path, text).map_err(|p| vec![p])?;
    let ctx = entry::Context {
        file: &file,
        text,
        workspace_root: &base,
        env,
        scope: &[],
    };
    let mut parsed = shapes::extract(&doc, &ctx);
    parsed.problems.extend(lenient);
    Ok(parsed)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod host_tests;

#[cfg(test)]
mod first_days_tests;
#[cfg(test)]
mod sandbox_tests;

#[cfg(test)]
mod redirect_base_tests {
    #[test]
    fn browsers_return_to_the_redirect_base_then_the_public_url_then_the_listen_address() {
        let mut g = super::GatewaySettings::default();
        let listening = || Some("http://127.0.0.1:8750".to_string());
        assert_eq!(g.oauth_redirect_base_or(listening()), listening());
        g.public_url = Some("https://mcp.example.com".into());
        assert_eq!(
            g.oauth_redirect_base_or(listening()).as_deref(),
            Some("https://mcp.example.com")
        );
        g.oauth_redirect_base = Some("https://callbacks.example.com".into());
        assert_eq!(
            g.oauth_redirect_base_or(listening()).as_deref(),
            Some("https://callbacks.example.com")
        );
    }
}
