//! What one upstream server is: how to reach it and the per-server settings that apply to it.

use crate::names::ServerSlug;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Default bound on connect + discovery.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Default bound on one tool call.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Default time a stdio server may sit without calls before it is stopped.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// One upstream MCP server, fully resolved (placeholders already substituted).
#[derive(Clone, PartialEq)]
pub struct ServerSpec {
    pub name: ServerSlug,
    pub transport: Transport,
    /// Per-server override of both the connect and the call timeout.
    pub timeout: Option<Duration>,
    pub enabled: bool,
    /// If set, only these upstream tool names are exposed.
    pub tools: Option<Vec<String>>,
    /// Upstream tool names never exposed (Codex `disabled_tools`, Windsurf `disabledTools`).
    pub disabled_tools: Vec<String>,
    /// Protocol version to offer; `None` offers the latest stable one with `initialize`.
    pub protocol_version: Option<String>,
    /// Stop a stdio server after this long without calls (`None`: the gateway default).
    pub idle_timeout: Option<Duration>,
    /// Start a stdio server only on its first call.
    pub lazy: Option<bool>,
    /// A stdio server started once per downstream session (its own process, so what it asks
    /// mid-call always reaches that session) instead of one process shared by all.
    pub per_session: bool,
    /// Calls in flight at once to this server (`None`: the gateway's `max_concurrent_calls`).
    pub max_concurrent_calls: Option<usize>,
    /// Values that came from the environment (tokens, keys): never printed.
    pub secrets: Vec<String>,
    /// `credentials = "per_end_user"`: each end user's own secret, never a shared one.
    pub end_user_credentials: Option<crate::EndUserCredentials>,
    /// Where this server's OAuth tokens are kept when not under its own key: an end user's
    /// grant key, on that user's session with a per-end-user OAuth server.
    pub oauth_key: Option<String>,
    /// Where the server was declared (`file:key`), for messages.
    pub origin: String,
    /// How a stdio server is confined (`sandbox` on its entry).
    pub sandbox: SandboxChoice,
    /// Which of a server's processes this spec starts, when it has several principals: an end
    /// user's grant key for a per-end-user stdio server (its own sandbox folders).
    pub instance: Option<String>,
}

/// How a stdio server is confined: the `sandbox` key of its entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxChoice {
    /// Confined (the default), with the default grants and these.
    On(SandboxGrants),
    /// `sandbox = false`: runs unconfined, audited and warned at start.
    Off,
}

impl Default for SandboxChoice {
    fn default() -> Self {
        SandboxChoice::On(SandboxGrants::default())
    }
}

/// What the operator grants a sandboxed server beyond the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxGrants {
    /// Paths it may read.
    pub read: Vec<PathBuf>,
    /// Paths it may read and write.
    pub write: Vec<PathBuf>,
    /// Hosts (`host` or `host:port`) its egress proxy lets it reach.
    pub net: Vec<String>,
}

impl ServerSpec {
    pub fn new(name: ServerSlug, transport: Transport) -> Self {
        Self {
            name,
            transport,
            timeout: None,
            enabled: true,
            tools: None,
            disabled_tools: Vec::new(),
            protocol_version: None,
            idle_timeout: None,
            lazy: None,
            per_session: false,
            max_concurrent_calls: None,
            secrets: Vec::new(),
            end_user_credentials: None,
            oauth_key: None,
            origin: String::new(),
            sandbox: SandboxChoice::default(),
            instance: None,
        }
    }

    /// Start-up (spawn or connect, initialize, list everything) gets at least the default:
    /// a short `timeout_ms` meant for calls must not fail a server that is merely slow to
    /// start (an interpreter importing its SDK on a busy machine).
    pub fn connect_timeout(&self) -> Duration {
        self.timeout
            .map_or(DEFAULT_CONNECT_TIMEOUT, |t| t.max(DEFAULT_CONNECT_TIMEOUT))
    }

    pub fn call_timeout(&self) -> Duration {
        self.timeout.unwrap_or(DEFAULT_CALL_TIMEOUT)
    }

    pub fn transport_name(&self) -> &'static str {
        match self.transport {
            Transport::Stdio(_) => "stdio",
            Transport::Http(_) => "http",
        }
    }

    /// Whether a per-end-user server has a credential of its own in its config, used only to
    /// list what it offers (never for a call).
    pub fn has_discovery_credential(&self) -> bool {
        let Some(each) = &self.end_user_credentials else {
            return false;
        };
        match &self.transport {
            Transport::Http(http) => {
                let header = |h: &String| h.eq_ignore_ascii_case(&each.header);
                http.bearer_token.is_some() || http.headers.keys().any(header)
            }
            Transport::Stdio(stdio) => stdio.env.contains_key(&each.header),
        }
    }

    /// This server as one end user reaches it, whose grant is kept under `key`: their
    /// `secret` in the header the server names and no other credential, or (an OAuth server)
    /// their own tokens, kept under `key`.
    pub fn as_end_user(&self, key: &str, secret: &str) -> ServerSpec {
        let mut spec = self.clone();
        // A stdio server: the end user's own process, their secret in its environment.
        if let (Some(each), Transport::Stdio(stdio)) =
            (&self.end_user_credentials, &mut spec.transport)
        {
            stdio.env.insert(each.header.clone(), secret.to_string());
            spec.secrets.push(secret.to_string());
            spec.instance = Some(key.to_string());
            return spec;
        }
        if let (Some(each), Transport::Http(http)) =
            (&self.end_user_credentials, &mut spec.transport)
        {
            if each.oauth {
                // Only the end user's own tokens: never the operator's header beside them.
                http.bearer_token = None;
                http.headers.retain(|h, _| {
                    !h.eq_ignore_ascii_case(&each.header)
                        && !h.eq_ignore_ascii_case("authorization")
                });
                spec.oauth_key = Some(key.to_string());
                return spec;
            }
            http.bearer_token = None;
            http.headers
                .retain(|h, _| !h.eq_ignore_ascii_case(&each.header));
            (http.headers).insert(each.header.clone(), format!("{}{secret}", each.prefix));
            spec.secrets.push(secret.to_string());
        }
        spec
    }

    /// `text` with every secret value of this server replaced by `<redacted>`.
    pub fn redact(&self, text: &str) -> String {
        self.redact_with(text, &[])
    }

    /// [`ServerSpec::redact`], hiding `more` secrets too (an end user's own, say).
    pub fn redact_with(&self, text: &str, more: &[&str]) -> String {
        let mut out = text.to_string();
        let secrets = self
            .secrets
            .iter()
            .map(String::as_str)
            .chain(more.iter().copied());
        for secret in secrets.filter(|s| s.len() >= 4) {
            out = out.replace(secret, "<redacted>");
        }
        out
    }

    /// Whether the server is reached over the network (Streamable HTTP or HTTP+SSE) rather
    /// than started as a process.
    pub fn is_remote(&self) -> bool {
        matches!(self.transport, Transport::Http(_))
    }

    /// Whether this is a stdio server started only on its first call.
    pub fn is_lazy(&self) -> bool {
        matches!(self.transport, Transport::Stdio(_)) && self.lazy == Some(true)
    }

    /// How long a stdio server may sit without calls before it is stopped; `None` = never
    /// (HTTP servers, or `idle_timeout = 0`).
    pub fn idle_after(&self) -> Option<Duration> {
        match self.transport {
            Transport::Stdio(_) => {
                Some(self.idle_timeout.unwrap_or(DEFAULT_IDLE_TIMEOUT)).filter(|t| !t.is_zero())
            }
            Transport::Http(_) => None,
        }
    }

    /// What a discovery snapshot of this server depends on: name, command line, working
    /// directory and the names (not values) of its environment; for HTTP, name and URL.
    pub fn fingerprint(&self) -> String {
        match &self.transport {
            Transport::Stdio(s) => format!(
                "stdio\0{}\0{}\0{}\0{:?}\0{}",
                self.name,
                s.command,
                s.args.join("\0"),
                s.cwd,
                s.env.keys().cloned().collect::<Vec<_>>().join(",")
            ),
            Transport::Http(h) => format!("http\0{}\0{}", self.name, h.url),
        }
    }

    /// Whether `tool` passes this server's tool allowlist and is not disabled.
    pub fn allows_tool(&self, tool: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|allowed| allowed.iter().any(|t| t == tool))
            && !self.disabled_tools.iter().any(|t| t == tool)
    }
}

impl fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerSpec")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("timeout", &self.timeout)
            .field("enabled", &self.enabled)
            .field("tools", &self.tools)
            .field("end_user_credentials", &self.end_user_credentials)
            .field("origin", &self.origin)
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    Stdio(StdioSpec),
    Http(HttpSpec),
}

/// A local server started as a child process speaking MCP on stdin/stdout.
#[derive(Clone, PartialEq)]
pub struct StdioSpec {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    /// OS limits for the child process.
    pub limits: crate::ProcessLimits,
}

impl fmt::Debug for StdioSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Env values are often secrets: show only the names.
        f.debug_struct("StdioSpec")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("cwd", &self.cwd)
            .field("limits", &self.limits)
            .finish()
    }
}

/// A remote server reached over HTTP.
#[derive(Clone, PartialEq, Default)]
pub struct HttpSpec {
    pub url: String,
    pub headers: BTreeMap<String, String>,
    pub bearer_token: Option<String>,
    /// Tokens obtained and renewed at run time (instead of a fixed bearer token).
    pub oauth: Option<crate::OAuthSpec>,
    /// Which HTTP transport the server speaks.
    pub wire: HttpWire,
}

/// The HTTP transports of MCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HttpWire {
    /// Streamable HTTP (`"type": "http"`).
    #[default]
    Streamable,
    /// The 2024-11-05 HTTP+SSE transport (`"type": "sse"`): a GET stream that announces
    /// the endpoint to POST to.
    LegacySse,
    /// A URL without a type: Streamable HTTP first, HTTP+SSE when that handshake is refused
    /// with a 4xx (the spec's backwards-compatibility rule).
    Auto,
}

impl fmt::Debug for HttpSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values and tokens are secrets: show only that they exist.
        f.debug_struct("HttpSpec")
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field(
                "bearer_token",
                &self.bearer_token.as_ref().map(|_| "<redacted>"),
            )
            .field("oauth", &self.oauth)
            .field("wire", &self.wire)
            .finish()
    }
}

impl ServerSpec {
    /// What starts or reaches the server, hashed (SHA-256, 16 hex digits): a stdio server's
    /// command, args, env and cwd, an HTTP server's URL. Pins are kept per launch, so an
    /// operator's edit to it re-pins instead of reading as a rug pull.
    pub fn launch_hash(&self) -> String {
        use sha2::{Digest, Sha256};
        let launch = match &self.transport {
            Transport::Stdio(s) => serde_json::json!({
                "command": s.command, "args": s.args, "env": s.env,
                "cwd": s.cwd.as_ref().map(|c| c.display().to_string()),
            }),
            Transport::Http(h) => serde_json::json!({"url": h.url}),
        };
        let digest = Sha256::digest(launch.to_string().as_bytes());
        hex::encode(&digest[..8])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_contains_secret_values() {
        let mut headers = BTreeMap::new();
        headers.insert("X-Api-Key".to_string(), "sekrit-header".to_string());
        let http = HttpSpec {
            url: "https://example.test/mcp".into(),
            headers,
            bearer_token: Some("sekrit-token".into()),
            oauth: None,
            wire: HttpWire::Streamable,
        };
        let mut env = BTreeMap::new();
        env.insert("TOKEN".to_string(), "sekrit-env".to_string());
        let stdio = StdioSpec {
            command: "server".into(),
            args: vec![],
            env,
            cwd: None,
            limits: Default::default(),
        };
        let text = format!("{http:?} {stdio:?}");
        assert!(!text.contains("sekrit"), "{text}");
        assert!(text.contains("X-Api-Key") && text.contains("TOKEN"));
    }

    #[test]
    fn an_end_users_oauth_session_never_carries_the_operators_authorization_header() {
        let mut headers = BTreeMap::new();
        headers.insert(
            "authorization".to_string(),
            "Bearer operator-secret".to_string(),
        );
        headers.insert("X-Tenant".to_string(), "acme".to_string());
        let mut spec = ServerSpec::new(
            ServerSlug::parse("billing").unwrap(),
            Transport::Http(HttpSpec {
                url: "https://example.test/mcp".into(),
                headers,
                bearer_token: Some("operator-token".into()),
                oauth: None,
                wire: HttpWire::Streamable,
            }),
        );
        spec.end_user_credentials = Some(crate::end_user::EndUserCredentials {
            header: "Authorization".into(),
            prefix: "Bearer ".into(),
            trust_asserted: false,
            exchange: false,
            oauth: true,
        });
        let mine = spec.as_end_user("eu:org|operator|billing|alice", "");
        let Transport::Http(http) = &mine.transport else {
            panic!("http")
        };
        assert_eq!(http.bearer_token, None);
        assert_eq!(http.headers.keys().collect::<Vec<_>>(), ["X-Tenant"]);
        assert_eq!(
            mine.oauth_key.as_deref(),
            Some("eu:org|operator|billing|alice")
        );
    }

    #[test]
    fn a_short_timeout_bounds_calls_but_not_start_up() {
        let mut spec = ServerSpec::new(
            ServerSlug::parse("fx").unwrap(),
            Transport::Http(HttpSpec {
                url: "https://example.test/mcp".into(),
                headers: BTreeMap::new(),
                bearer_token: None,
                oauth: None,
                wire: HttpWire::Streamable,
            }),
        );
        assert_eq!(spec.connect_timeout(), DEFAULT_CONNECT_TIMEOUT);
        assert_eq!(spec.call_timeout(), DEFAULT_CALL_TIMEOUT);
        spec.timeout = Some(Duration::from_secs(1));
        assert_eq!(spec.call_timeout(), Duration::from_secs(1));
        assert_eq!(spec.connect_timeout(), DEFAULT_CONNECT_TIMEOUT);
        spec.timeout = Some(Duration::from_secs(60));
        assert_eq!(spec.connect_timeout(), Duration::from_secs(60));
    }
}
