//! Switchboard's pure vocabulary: names, server specs, statuses and error kinds (no I/O).

pub mod caller;
pub mod clock;
pub mod consent;
pub mod end_user;
pub mod env;
pub mod error;
pub mod guard;
pub mod identity;
pub mod limits;
pub mod names;
pub mod net_grant;
pub mod oauth;
pub mod spec;
pub mod status;
pub mod tools_mode;
pub mod trace;

pub use caller::{CallObserver, CallRecord, Caller, Observers, Surface};
pub use clock::{Clock, JumpableClock, SharedClock, SystemClock};
pub use consent::{ConsentAsked, ConsentLink, URL_REQUIRED, consent_required};
pub use end_user::{EndUserCredentials, EndUserGrants, Grant, GrantKey};
pub use end_user::{InboundToken, TokenExchange};
pub use error::{CallError, ErrorKind};
pub use guard::{
    Admission, CallContext, CallGuard, Effect, GuardFuture, Mode, Owner, Review, ToolRef, Verdict,
    Visibility,
};
pub use identity::{
    ClaimMapping, EndUserSource, Introspection, IssuerSpec, RequiredScopes, RoleMapping, SignIn,
    SpecProblem,
};
pub use limits::{Limits, ProcessLimits};
pub use names::{ActionId, ExposedName, NameTable, NamingTemplate, ServerSlug, is_valid_tool_name};
pub use net_grant::{DEFAULT_NET_PORTS, NetGrant};
pub use oauth::{OAuthClient, OAuthSpec};
pub use spec::{
    HttpSpec, HttpWire, SandboxChoice, SandboxGrants, ServerSpec, StdioSpec, Transport,
};
pub use status::ServerStatus;
pub use tools_mode::{META_TOOLS, ToolsMode, ToolsSetting};
