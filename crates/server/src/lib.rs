//! The downstream faces of the gateway, one folder per job:
//! - `mcp`: the aggregated MCP endpoint over Streamable HTTP (`/mcp`, `/mcp/agents/{agent}`)
//!   and stdio: the handler, the endpoint built once with its fast path, sessions, the relay;
//! - `edge`: the HTTP listener's routes and the layers every request meets first (bounds,
//!   answers in flight, spans, who calls);
//! - `rest`: the REST API (`/api/…`) and replicas' change notices and jobs;
//! - `admin`: the dashboard, `/metrics`, the OAuth callback;
//! - `control_plane`: what they share ([`ControlPlane`]) and what the registry keeps in the store.

mod admin;
mod control_plane;
mod edge;
mod mcp;
mod rest;

pub use admin::metrics::{spawn_status_watch, spawn_status_watches};
pub use admin::serve_oauth_callback;
pub use control_plane::callers::{MANAGE, OPERATE, VIEW};
pub use control_plane::end_users::grant_audit_entry;
pub use control_plane::grants::StoredGrants;
pub use control_plane::snapshots::StoreSnapshots;
pub use control_plane::tenancy;
pub use control_plane::tokens::SealedTokens;
pub use control_plane::{ApiError, ControlPlane, OrgRegistries, Source};
pub use edge::identity::ResourceServer;
pub use edge::in_flight::InFlight;
pub use edge::request_bounds::{RequestBounds, RequestCaps};
pub use edge::routes::{HttpOptions, router, serve_http};
pub use mcp::serve_stdio;
pub use mcp::sessions::limits::{SessionCaps, SessionLimits};
pub use rest::{JobOptions, spawn_change_listener, spawn_jobs};
