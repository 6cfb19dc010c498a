//! One live connection to one upstream MCP server (stdio child or Streamable HTTP) via rmcp.

pub mod apps;
pub mod auth;
mod call;
mod capability_set;
mod connection;
mod direct;
mod direct_stdio;
mod error;
mod events;
mod forgotten_session;
mod handshake;
mod http;
mod input_rounds;
mod legacy_sse;
mod listen;
mod log_level;
mod relay;
mod route;
mod sandboxed;
mod session_processes;
mod stdio;
mod stdio_child;
mod tap;

pub use call::{CallOptions, Progress, RelayNotes, RoundAnswers, Rounds};
pub use capability_set::CapabilitySet;
pub use connection::{
    ConnectOptions, Connection, Freshness, ListCache, ListHint, Snapshot, TaskAnswer, TaskRequest,
    result_size,
};
pub use error::UpstreamError;
pub use events::UpstreamEvent;
pub use http::UpstreamHttp;
pub use input_rounds::{MAX_INPUT_ROUNDS, as_server_request};
pub use log_level::{LogFloor, level_rank};
pub use relay::{
    Declined, TASKS_EXTENSION, Upcall, UpcallSender, declined, declined_round, method_name,
    relayable_capabilities,
};
pub use sandboxed::{ProxySetup, SandboxSetup, ServerRefused};
pub use session_processes::SessionProcesses;
pub use switchboard_egress::{EgressError, EgressPolicy};
