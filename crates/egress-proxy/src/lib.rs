//! The egress proxy of sandboxed stdio servers: their only way out of their own network
//! namespace. It accepts on a socket made inside that namespace and, for each `CONNECT
//! host:port` (HTTPS) or absolute-form `http://` request, checks the target against the
//! server's `sandbox.net` list and the egress guard, then connects to the very address it
//! checked. Every refusal is answered 403 with its fix and reported to the gateway (audit and
//! `/metrics`).

mod gate;
mod serve;

pub use gate::{Denial, Gate, ProxyRefusal};
pub use serve::{Refused, serve};
