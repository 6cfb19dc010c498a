//! The HTTP edge: the listener's routes (`routes`) and the layers every request meets before a
//! route does: request bounds, answers in flight for a graceful shutdown, a span per request,
//! and who calls an MCP endpoint (`callers`, with access tokens as `identity` says).

pub(crate) mod callers;
pub(crate) mod identity;
pub(crate) mod in_flight;
pub(crate) mod request_bounds;
pub(crate) mod routes;
pub(crate) mod traced;
