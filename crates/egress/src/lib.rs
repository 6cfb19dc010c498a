//! The SSRF guard: which upstream URLs may be used and which addresses may be connected to.
//!
//! URLs are parsed by the WHATWG URL parser (so `2130706433`, `0177.1`, `0x7f.0.0.1` and
//! `127.1` all become `127.0.0.1`), IPv6 addresses that embed IPv4 are judged by the embedded
//! address, and names are resolved by [`GuardedResolver`], which refuses a name if *any* answer
//! is not public and hands the checked addresses to the HTTP client so it connects to exactly
//! those (no second lookup to rebind).

mod address;
mod policy;
mod resolver;

pub use address::{Refusal, classify, embedded_ipv4};
pub use policy::{EgressError, EgressPolicy, MAX_URL_LEN};
pub use resolver::{GuardedResolver, Lookup, StaticLookup, SystemLookup};
