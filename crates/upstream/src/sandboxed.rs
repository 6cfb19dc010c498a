//! Starting a stdio server through the sandbox helper: its grants, its own folders, the command.

use crate::UpstreamError;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use switchboard_core::{SandboxChoice, SandboxGrants, ServerSpec, StdioSpec};
use switchboard_egress::{EgressPolicy, Lookup};
use switchboard_egress_proxy::{Gate, ProxyRefusal};
use switchboard_sandbox::grants::{self, Decided, Extra, Launch, Places};
use switchboard_sandbox::{HELPER_ARG, Mode, PLAN_VAR, PROXY_PORT, Support};

/// How the gateway confines the stdio servers it starts.
#[derive(Debug, Clone)]
pub struct SandboxSetup {
    /// The program started as the helper: the gateway's own binary (`switchboard __sandbox`).
    pub launcher: PathBuf,
    pub mode: Mode,
    /// What this kernel offers, probed once.
    pub support: Support,
    /// The gateway's data folder: never granted; servers' own folders live under it.
    pub data: PathBuf,
    pub home: Option<PathBuf>,
    /// The egress proxy of servers in their own network namespace (none: no way out at all).
    pub proxy: Option<ProxySetup>,
}

/// What every sandboxed server's egress proxy checks against, and where its refusals go.
#[derive(Clone)]
pub struct ProxySetup {
    /// The operator's egress policy (`--dev`'s loopback allowance does not apply).
    pub policy: EgressPolicy,
    /// The gateway's own listen addresses and its database: never reached through a proxy.
    pub forbidden: Vec<SocketAddr>,
    pub lookup: Arc<dyn Lookup>,
    /// Told of every refusal, with the server's name (the gateway audits and counts it).
    pub refused: ServerRefused,
}

/// Told of a sandboxed server's proxy refusal: the server's name and the refusal.
pub type ServerRefused = Arc<dyn Fn(&str, &ProxyRefusal) + Send + Sync>;

impl std::fmt::Debug for ProxySetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxySetup")
            .field("policy", &self.policy)
            .field("forbidden", &self.forbidden)
            .finish_non_exhaustive()
    }
}

/// A sandboxed start's proxy: the socket pair the listener comes back on, and its gate.
pub(crate) struct ProxyStart {
    /// Handed to the helper as [`switchboard_sandbox::PROXY_FD`].
    pub theirs: std::os::fd::OwnedFd,
    /// Where the listening socket made inside the namespace arrives.
    pub ours: std::os::fd::OwnedFd,
    pub gate: Gate,
    pub refused: switchboard_egress_proxy::Refused,
}

/// How one start of a server is made: the program, its arguments and what it adds to the env.
pub(crate) struct Start {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(OsString, OsString)>,
    pub proxy: Option<ProxyStart>,
}

impl SandboxSetup {
    /// The helper is `launcher`; the kernel is probed now.
    pub fn new(launcher: PathBuf, mode: Mode, data: PathBuf) -> Self {
        Self {
            launcher,
            mode,
            support: Support::probe(),
            data,
            home: switchboard_sandbox::home_folder(),
            proxy: None,
        }
    }

    /// Servers in their own network namespace reach `sandbox.net` hosts through `proxy`.
    pub fn with_proxy(mut self, proxy: ProxySetup) -> Self {
        self.proxy = Some(proxy);
        self
    }

    /// The folder of `spec`'s own files: `<data>/sandbox/<server>-<id>`, the id from where it
    /// was declared and, for an end user's own process, whose it is (each end user's process
    /// has its own HOME and TMPDIR).
    pub fn server_dir(&self, spec: &ServerSpec) -> PathBuf {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        hasher.update(spec.origin.as_bytes());
        if let Some(instance) = &spec.instance {
            hasher.update([0]);
            hasher.update(instance.as_bytes());
        }
        let id = hex::encode(&hasher.finalize()[..4]);
        self.data
            .join("sandbox")
            .join(format!("{}-{id}", spec.name))
    }

    /// Every grant `spec` gets and why, or why it cannot start confined.
    pub fn decide(
        &self,
        spec: &ServerSpec,
        stdio: &StdioSpec,
        extra: &SandboxGrants,
    ) -> Result<Decided, grants::GrantError> {
        let path_var = std::env::var_os("PATH");
        // An end user's secret is never a grant (their token could otherwise name any path).
        let end_user_variable = spec.end_user_credentials.as_ref().map(|e| &e.header);
        let env = (stdio.env.iter())
            .filter(|(name, _)| Some(*name) != end_user_variable)
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let launch = Launch {
            command: &stdio.command,
            args: &stdio.args,
            cwd: stdio.cwd.as_deref(),
            env: &env,
            path_var: path_var.as_deref(),
        };
        let places = Places {
            data: self.data.clone(),
            home: self.home.clone(),
            server_dir: self.server_dir(spec),
        };
        let extra = Extra {
            read: extra.read.clone(),
            write: extra.write.clone(),
        };
        let mut decided = grants::decide(launch, &extra, &places, self.support.layers())?;
        let layers = decided.plan.layers;
        if self.proxy.is_some() && layers.namespaces && layers.network {
            // The only way out of its own network namespace; Node reads these with the flag.
            decided.plan.proxy_port = Some(PROXY_PORT);
            let url = format!("http://127.0.0.1:{PROXY_PORT}");
            for name in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
                decided.env.push((name.into(), url.clone().into()));
            }
            decided.env.push(("NODE_USE_ENV_PROXY".into(), "1".into()));
        }
        Ok(decided)
    }

    /// How `spec` reads in a status: `full`, `partial: …`, `off (sandbox = false)`, …
    pub fn describe(setup: Option<&Self>, spec: &ServerSpec) -> Option<String> {
        if !matches!(spec.transport, switchboard_core::Transport::Stdio(_)) {
            return None;
        }
        Some(match (&spec.sandbox, setup) {
            (SandboxChoice::Off, _) => "off (sandbox = false)".into(),
            (SandboxChoice::On(_), Some(setup)) => {
                let runner = match &spec.transport {
                    switchboard_core::Transport::Stdio(s) => {
                        grants::package_runner(&s.command, &s.args)
                    }
                    _ => None,
                };
                match (runner, setup.support.layers().network) {
                    (Some(runner), true) => format!(
                        "partial: the host network ({runner} fetches its package at start; every host stays reachable: package installs do not go through the egress proxy yet)"
                    ),
                    _ => setup.support.summary(),
                }
            }
            (SandboxChoice::On(_), None) => {
                "not sandboxed: the program embedding the gateway set no sandbox helper".into()
            }
        })
    }
}

fn refused(stdio: &StdioSpec, message: String) -> UpstreamError {
    UpstreamError::StartRefused {
        command: stdio.command.clone(),
        reason: message,
    }
}

/// How `spec` starts: through the helper when it is confined, as itself otherwise.
pub(crate) fn start(
    setup: Option<&SandboxSetup>,
    spec: &ServerSpec,
    stdio: &StdioSpec,
) -> Result<Start, UpstreamError> {
    let plain = Start {
        program: stdio.command.clone().into(),
        args: stdio.args.iter().map(OsString::from).collect(),
        cwd: stdio.cwd.clone(),
        env: Vec::new(),
        proxy: None,
    };
    let (Some(setup), SandboxChoice::On(extra)) = (setup, &spec.sandbox) else {
        return Ok(plain);
    };
    let missing = setup.support.missing();
    if setup.mode == Mode::Strict && !missing.is_empty() {
        let message = format!(
            "[sandbox] mode = \"strict\" and this machine lacks: {}; fix the kernel setting, or set mode = \"auto\"",
            missing.join("; ")
        );
        return Err(refused(stdio, message));
    }
    let runner = grants::package_runner(&stdio.command, &stdio.args);
    if let (Mode::Strict, Some(runner)) = (setup.mode, runner) {
        let message = format!(
            "[sandbox] mode = \"strict\" and {runner} keeps the host network (it fetches its package at start, and package installs do not go through the egress proxy yet); install the package and start it directly, or set mode = \"auto\""
        );
        return Err(refused(stdio, message));
    }
    let layers = setup.support.layers();
    if !layers.landlock && !layers.namespaces {
        // Nothing to confine with (auto mode): the status says "not sandboxed".
        return Ok(plain);
    }
    let decided = setup
        .decide(spec, stdio, extra)
        .map_err(|e| refused(stdio, e.to_string()))?;
    let own = setup.server_dir(spec);
    for dir in &decided.plan.write {
        if dir.starts_with(&own) {
            std::fs::create_dir_all(dir).map_err(|e| {
                refused(
                    stdio,
                    format!("cannot make the server's folder {}: {e}", dir.display()),
                )
            })?;
        }
    }
    let plan = serde_json::to_string(&decided.plan).expect("a plan serialises");
    let mut env: Vec<(OsString, OsString)> = (decided.env.into_iter())
        .map(|(name, value)| (name.into(), value))
        .collect();
    env.push((PLAN_VAR.into(), plan.into()));
    let proxy = match (&setup.proxy, decided.plan.proxy_port) {
        (Some(proxy), Some(_)) => Some(proxy_start(proxy, spec, extra, stdio)?),
        _ => None,
    };
    Ok(Start {
        program: setup.launcher.clone().into_os_string(),
        args: vec![HELPER_ARG.into()],
        cwd: None,
        env,
        proxy,
    })
}

/// The socket pair and the gate of `spec`'s proxy.
fn proxy_start(
    proxy: &ProxySetup,
    spec: &ServerSpec,
    extra: &SandboxGrants,
    stdio: &StdioSpec,
) -> Result<ProxyStart, UpstreamError> {
    let (ours, theirs) = switchboard_sandbox::proxy_listener::channel().map_err(|e| {
        refused(
            stdio,
            format!("cannot make the egress proxy's channel: {e}"),
        )
    })?;
    let gate = Gate::new(
        &extra.net,
        &proxy.policy,
        proxy.forbidden.clone(),
        proxy.lookup.clone(),
    );
    let (told, server) = (proxy.refused.clone(), spec.name.to_string());
    Ok(ProxyStart {
        theirs,
        ours,
        gate,
        refused: Arc::new(move |refusal: &ProxyRefusal| told(&server, refusal)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_core::{ServerSlug, Transport};

    /// An end user's secret lands in the environment of their own process: it must never be
    /// read as a path to grant, whatever it names.
    #[test]
    fn an_end_users_secret_in_the_environment_is_never_a_grant() {
        let dir = tempfile::tempdir().unwrap();
        let named = dir.path().join("named-by-the-secret");
        std::fs::create_dir_all(&named).unwrap();
        let value = named.display().to_string();
        let stdio = StdioSpec {
            command: "sh".into(),
            args: Vec::new(),
            env: [("DATA_DIR".to_string(), value.clone())].into(),
            cwd: None,
            limits: Default::default(),
        };
        let mut spec =
            ServerSpec::new(ServerSlug::parse("local").unwrap(), Transport::Stdio(stdio));
        let setup = SandboxSetup::new("/bin/true".into(), Mode::Auto, dir.path().join("data"));
        let granted = |spec: &ServerSpec| {
            let Transport::Stdio(stdio) = &spec.transport else {
                unreachable!("a stdio spec")
            };
            let decided = setup.decide(spec, stdio, &SandboxGrants::default());
            let named = named.canonicalize().unwrap();
            decided.unwrap().grants.iter().any(|g| g.path == named)
        };
        assert!(
            granted(&spec),
            "a config env value naming a folder is granted"
        );
        spec.end_user_credentials = Some(switchboard_core::EndUserCredentials {
            header: "SERVICE_TOKEN".into(),
            prefix: String::new(),
            trust_asserted: false,
            exchange: false,
            oauth: false,
        });
        let end_user = spec.as_end_user("user-1", &value);
        let Transport::Stdio(stdio) = &end_user.transport else {
            unreachable!("a stdio spec")
        };
        assert_eq!(stdio.env.get("SERVICE_TOKEN"), Some(&value));
        assert!(
            granted(&end_user),
            "DATA_DIR still grants the folder for the end user's process"
        );
        let mut only_secret = end_user.clone();
        if let Transport::Stdio(stdio) = &mut only_secret.transport {
            stdio.env.remove("DATA_DIR");
        }
        assert!(
            !granted(&only_secret),
            "the same value as the end user's secret is not a grant"
        );
    }
}
