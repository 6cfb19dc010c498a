//! What the gateway tells the sandbox helper: the command to run and every grant, decided up front.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The environment variable that carries the plan (JSON) from the gateway to the helper; the
/// helper removes it before the server starts.
pub const PLAN_VAR: &str = "SWITCHBOARD_SANDBOX_PLAN";

/// The environment variable that tells a sandboxed server the process id the gateway knows it
/// by (its helper's, outside its PID namespace; status and logs show that one).
pub const PID_VAR: &str = "SWITCHBOARD_SANDBOX_PID";

/// Where the egress proxy listens inside a server's own network namespace (127.0.0.1).
pub const PROXY_PORT: u16 = 3128;

/// The first argument that makes the gateway's own binary the sandbox helper.
pub const HELPER_ARG: &str = "__sandbox";

/// One confined start of a stdio server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The program, an absolute path (looked up on the gateway's `PATH` before the start).
    pub program: PathBuf,
    /// The arguments after the program.
    pub args: Vec<String>,
    /// The server's working folder (read-write).
    pub workdir: PathBuf,
    /// Folders and files the server may read and execute.
    pub read_exec: Vec<PathBuf>,
    /// Folders and files the server may read only.
    pub read: Vec<PathBuf>,
    /// Folders and files the server may read and write.
    pub write: Vec<PathBuf>,
    /// Folders replaced by an empty private tmpfs inside (their pathname UNIX sockets vanish);
    /// granted paths under them are mounted back at the same place.
    pub hide: Vec<PathBuf>,
    /// Processes (threads included) the server may have at once, counted in its own user
    /// namespace (not the gateway user's whole count).
    pub max_processes: Option<u64>,
    /// The layers to apply; the gateway asks only for what the kernel has (`probe`).
    pub layers: Layers,
    /// With its own network namespace: the port on 127.0.0.1 inside it where the gateway's
    /// egress proxy listens (the child makes the socket and hands it over on
    /// [`crate::PROXY_FD`]).
    #[serde(default)]
    pub proxy_port: Option<u16>,
}

/// The confinement layers, each on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layers {
    /// File-system access rules and scopes (signals, abstract UNIX sockets).
    pub landlock: bool,
    /// Own user, mount, PID, IPC and UTS namespaces.
    pub namespaces: bool,
    /// Own network namespace (no route out); with `namespaces` only.
    pub network: bool,
    /// System calls an MCP server has no business making refused.
    pub seccomp: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Self {
            landlock: true,
            namespaces: true,
            network: true,
            seccomp: true,
        }
    }
}
