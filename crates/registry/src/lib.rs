//! The Registry: every configured upstream, its state and snapshot, one catalogue of exposed
//! names, and routing a call to the right connection. This is the embeddable Rust API.
//!
//! ```no_run
//! use switchboard_registry::{Registry, RegistryOptions};
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = switchboard_config::load(&["mcp.json".into()])?;
//! let registry = Registry::new(RegistryOptions::default());
//! registry.apply_config(&config).await;
//! for tool in registry.tools() {
//!     println!("{} ({})", tool.exposed_name, tool.action_id);
//! }
//! let result = registry
//!     .call_tool("time__get_current_time", Some(serde_json::json!({"timezone": "UTC"})), Default::default())
//!     .await?;
//! registry.shutdown().await;
//! # Ok(()) }
//! ```

mod authorize;
mod capability_sessions;
mod catalog;
mod consent_waits;
mod end_user_sessions;
mod entry;
mod lifecycle;
mod registry;
mod search;
mod session_slots;
mod watch;

pub use catalog::{
    Catalog, ExposedPrompt, ExposedResource, ExposedResourceTemplate, ExposedSkill, ExposedTool,
    ListFreshness, ListKind,
};
pub use consent_waits::GrantWait;
pub use entry::{ServerInfo, StatusChange};
pub use lifecycle::{MAX_FAILURES, SnapshotCache};
pub use registry::{Registry, RegistryOptions, SHUTDOWN_GRACE, TASK_ORIGIN_KEY, TestReport};
pub use search::{FoundItem, FoundTool};
pub use switchboard_upstream::{
    CallOptions, EgressPolicy, Progress, ProxySetup, SandboxSetup, ServerRefused, UpstreamHttp,
};
pub use watch::{ResourceUpdate, ResourceWatch};
