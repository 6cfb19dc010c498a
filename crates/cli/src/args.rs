//! Command-line arguments, as SPEC.md fixes them.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

mod audit;
pub(crate) use audit::{AuditCommand, AuditFilterArgs};

/// `switchboard --version`: the package version and the commit it was built from.
pub(crate) const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("SWITCHBOARD_COMMIT"),
    ")"
);

#[derive(Debug, Parser)]
#[command(
    name = "switchboard",
    version = VERSION,
    about = "One MCP endpoint, CLI and library in front of all your MCP servers"
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct Global {
    /// Config file (mcp.json, settings.json, workspace.yaml, config.yaml or switchboard.toml).
    /// Repeatable: later files win on a server-name collision. Default: every one of
    /// ./switchboard.toml, ./.mcp.json, ./mcp.json that exists, layered in that order.
    #[arg(short = 'c', long = "config", global = true, value_name = "FILE")]
    pub config: Vec<PathBuf>,
    /// Allow http:// and loopback upstream URLs (local development only).
    #[arg(long, global = true)]
    pub dev: bool,
    /// Exposed-name template, e.g. "{server}__{tool}", "mcp__{server}__{tool}" or "{tool}".
    #[arg(long, global = true, value_name = "TEMPLATE")]
    pub naming: Option<String>,
    /// Log filter (overrides RUST_LOG), e.g. "info" or "switchboard=debug".
    #[arg(long, global = true, value_name = "FILTER")]
    pub log: Option<String>,
    /// Log lines as text (default) or JSON objects, one per line, for log shippers.
    #[arg(
        long,
        global = true,
        value_enum,
        env = "SWITCHBOARD_LOG_FORMAT",
        default_value = "text"
    )]
    pub log_format: LogFormat,
    /// Where the embedded SQLite database and the master key file live. Default: the
    /// platform's per-user data folder ($XDG_DATA_HOME/switchboard, ~/.local/share/switchboard
    /// on Linux); an existing ./.switchboard is still used, with a warning.
    #[arg(
        long = "data",
        global = true,
        value_name = "DIR",
        env = "SWITCHBOARD_DATA"
    )]
    pub data_given: Option<PathBuf>,
    /// The data folder in force (`data_given` or the default), set once after parsing.
    #[arg(skip)]
    pub data: PathBuf,
    /// A shared Postgres instead of embedded SQLite (postgres://…).
    #[arg(
        long,
        global = true,
        value_name = "URL",
        env = "SWITCHBOARD_DATABASE_URL"
    )]
    pub database_url: Option<String>,
    /// Threads that run the gateway (default: one per CPU). On a small machine shared with
    /// its upstreams, 1 spends less CPU per call on a lone caller; more threads serve more
    /// calls at once (figures in BENCHMARKS.md).
    #[arg(
        long,
        global = true,
        value_name = "N",
        env = "SWITCHBOARD_THREADS",
        value_parser = clap::value_parser!(u16).range(1..=1024)
    )]
    pub threads: Option<u16>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run the gateway: the aggregated MCP endpoint at /mcp, plus /healthz and /readyz.
    Serve {
        /// Address to listen on.
        #[arg(long, value_name = "ADDR")]
        listen: Option<String>,
        /// Benchmarks only: do not write audit rows.
        #[arg(long, hide = true)]
        no_audit: bool,
        /// Reload the config files when they change (servers added, changed and removed
        /// without a restart; calls in flight finish).
        #[arg(long)]
        watch: bool,
    },
    /// Serve the aggregated MCP endpoint on stdin/stdout (for MCP hosts that launch servers).
    Stdio,
    /// Start each (or one) server, initialize, list what it offers, stop it; exit 1 if any failed.
    Test {
        /// Only this server.
        server: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List the exposed tool names with their server and description (quarantined and
    /// withheld tools say why); `diff` and `approve` definitions that changed.
    Tools {
        #[command(subcommand)]
        command: Option<ToolsCommand>,
        #[arg(long)]
        json: bool,
    },
    /// Scan tool definitions for poisoning: a tools/list result in FILE, or every configured
    /// server live; per tool a verdict (clean, warn, quarantine, block) and findings.
    Scan {
        /// A tools/list result (`{"tools": [...]}`) or a bare list of tools.
        #[arg(long, value_name = "FILE")]
        tools: Option<std::path::PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Call one tool through the full pipeline and print the result.
    Call {
        /// Exposed tool name (see `switchboard tools`).
        tool: String,
        /// Arguments as a JSON object.
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
        /// End user the call is about (sent upstream as _meta.bound_end_user_id).
        #[arg(long, value_name = "ID")]
        end_user: Option<String>,
        /// Print the raw MCP result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Work with config files.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Values of VS Code `${input:ID}` placeholders, kept sealed in the store.
    Input {
        #[command(subcommand)]
        command: InputCommand,
    },
    /// End users' own credentials for per-end-user servers (docs/end-user-credentials.md).
    EndUsers {
        #[command(subcommand)]
        command: EndUsersCommand,
    },
    /// The audit log.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Print a shell completion script: `switchboard completions bash > /etc/bash_completion.d/switchboard`
    /// (zsh: into a folder of `$fpath` as `_switchboard`; fish: `~/.config/fish/completions/switchboard.fish`).
    Completions { shell: clap_complete::Shell },
    /// How stdio servers are confined: `sandbox explain SERVER` prints every grant and why.
    Sandbox {
        #[command(subcommand)]
        command: SandboxCommand,
    },
    /// Organisations (tenants) of the control plane.
    Org {
        #[command(subcommand)]
        command: OrgCommand,
    },
    /// API tokens for the REST API.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// The master keys that seal credentials at rest.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Server states in a running gateway (config-file servers and the org's API servers).
    Status {
        #[command(flatten)]
        remote: Remote,
        /// Keep printing each state change as it happens.
        #[arg(long)]
        watch: bool,
        #[arg(long)]
        json: bool,
    },
    /// Refresh, disable, enable or reauthorize a server in a running gateway.
    Server {
        operation: ServerOperation,
        /// The server's name or id (`srv_…` for API servers, `config:NAME` for config-file
        /// servers, from `switchboard status`).
        id: String,
        #[command(flatten)]
        remote: Remote,
        #[arg(long)]
        json: bool,
    },
    /// OAuth authorization of config-file servers from the terminal.
    Auth {
        #[command(subcommand)]
        command: AuthCommand,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum AuthCommand {
    /// Authorize a server (auth type authorizationCode): prints the URL to open, waits for the
    /// browser on a loopback callback, saves the tokens where `serve` finds them.
    Login {
        /// The server's name in the config files.
        server: String,
        /// Open the URL with this program (it gets the URL as its argument) instead of
        /// printing it and waiting for a person.
        #[arg(long, value_name = "PROGRAM")]
        open_with: Option<String>,
        /// Loopback port of the callback (default: any free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Authorize again even when the saved tokens still work.
        #[arg(long)]
        force: bool,
        /// Give up after this many seconds without the browser coming back.
        #[arg(long, default_value_t = 600, value_name = "SECONDS")]
        timeout: u64,
        #[arg(long)]
        json: bool,
    },
}

/// How to reach a running gateway's REST API.
#[derive(Debug, Clone, Args)]
pub(crate) struct Remote {
    /// The gateway's base URL.
    #[arg(long, default_value = "http://127.0.0.1:8750", value_name = "URL")]
    pub url: String,
    /// An API token of the org (`switchboard token create`), or SWITCHBOARD_API_TOKEN.
    #[arg(
        long,
        env = "SWITCHBOARD_API_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
}

impl Remote {
    /// The API token, or an error that names both ways of giving one.
    pub(crate) fn token(&self) -> anyhow::Result<&str> {
        self.token.as_deref().ok_or_else(|| {
            anyhow::anyhow!(
                "this command talks to the running gateway's REST API and needs an API token: pass --token TOKEN or set SWITCHBOARD_API_TOKEN (make one with `switchboard token create --org ORG --role integrations:view`)"
            )
        })
    }
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum ServerOperation {
    Refresh,
    Disable,
    Enable,
    Reauthorize,
    /// Remove an API server (soft delete: credentials and tokens wiped, row kept).
    Remove,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ToolsCommand {
    /// Show definitions waiting for approval next to the approved ones.
    Diff {
        server: String,
        tool: Option<String>,
        /// An org's API server (its pins belong to the org) instead of a config-file server.
        #[arg(long, value_name = "ORG")]
        org: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Approve the waiting definition of one tool (or every tool of the server with --all).
    Approve {
        server: String,
        tool: Option<String>,
        #[arg(long, conflicts_with = "tool")]
        all: bool,
        #[arg(long, value_name = "ORG")]
        org: Option<String>,
        /// The sha256 (or its first characters) `tools diff` showed: refused if the waiting
        /// definition changed again since.
        #[arg(long, value_name = "SHA256")]
        hash: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum SandboxCommand {
    /// Every grant a stdio server gets and why, the layers this machine has, what is hidden.
    Explain {
        server: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum OrgCommand {
    /// Create an organisation, optionally with features (e.g. mcp_external_servers).
    Create {
        name: String,
        #[arg(long = "feature", value_name = "NAME")]
        features: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// List the organisations with their features.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Replace an organisation's features.
    Set {
        name: String,
        /// The features it has from now on (repeat for several).
        #[arg(
            long = "feature",
            value_name = "NAME",
            required_unless_present = "no_features"
        )]
        features: Vec<String>,
        /// Take every feature away.
        #[arg(long, conflicts_with = "features")]
        no_features: bool,
        #[arg(long)]
        json: bool,
    },
    /// Delete an organisation (refused while it has servers); its tokens stop working.
    Delete {
        name: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum TokenCommand {
    /// Create an API token (printed once; only its hash is stored).
    Create {
        #[arg(long, value_name = "ORG")]
        org: String,
        /// integrations:manage, integrations:view, gateway:operate (operations on the
        /// config-file servers every org shares); repeat for several.
        #[arg(long = "role", value_name = "ROLE", required = true)]
        roles: Vec<String>,
        /// Refused after this long, e.g. 30d, 12h or 90m (default: never).
        #[arg(long, value_name = "DURATION")]
        expires: Option<String>,
        /// Print {id, token, org, roles, expires_at}.
        #[arg(long)]
        json: bool,
    },
    /// List tokens (never their secrets): id, org, roles, state, created, expires.
    List {
        #[arg(long, value_name = "ORG")]
        org: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Revoke a token by its id (from `token list`); every replica refuses it at once.
    Revoke {
        id: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum KeysCommand {
    /// Add a new master key and re-seal every stored credential with it.
    Rotate,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// Validate the files: each problem with file, line and fix; exit 1 on errors.
    Check {
        #[arg(long)]
        json: bool,
    },
    /// List the MCP config files of the hosts installed for this user (Claude Desktop,
    /// Claude Code, Cursor, VS Code, Windsurf, Codex, Zed, Goose) and their servers.
    Discover {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum InputCommand {
    /// Store a value for `${input:ID}`, sealed: typed hidden on a terminal, else read from
    /// stdin. `SWITCHBOARD_INPUT_<ID>` in the environment overrides it.
    Set { id: String },
    /// The stored input ids (never their values).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Forget a stored input.
    Remove { id: String },
}

#[derive(Debug, Subcommand)]
pub(crate) enum EndUsersCommand {
    /// Store an end user's own key or token for a per-end-user server, sealed: typed hidden
    /// on a terminal, else read from stdin.
    SetKey {
        #[command(flatten)]
        grant: GrantArgs,
        #[arg(long)]
        json: bool,
    },
    /// What end users granted: server, kind, issued, last used (never a secret).
    List {
        #[arg(long)]
        end_user: Option<String>,
        #[arg(long)]
        org: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Revoke an end user's grant: their next call is refused until they grant again.
    Revoke {
        #[command(flatten)]
        grant: GrantArgs,
    },
}

/// One end user's grant for one server.
#[derive(Debug, clap::Args)]
pub(crate) struct GrantArgs {
    #[arg(long)]
    pub(crate) end_user: String,
    #[arg(long)]
    pub(crate) server: String,
    /// The org whose end user it is (without it: the operator's callers').
    #[arg(long)]
    pub(crate) org: Option<String>,
}
