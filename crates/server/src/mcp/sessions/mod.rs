//! Downstream MCP sessions: kept in order (`ordered`), live for the fast path (`live`), saved in
//! the store for every replica (`saved`), bound to who opened them (`owners`), bounded
//! (`limits`, `admission`) and parked when idle (`parking`).

pub(crate) mod admission;
pub(crate) mod limits;
pub(crate) mod live;
pub(crate) mod ordered;
pub(crate) mod owners;
pub(crate) mod parking;
pub(crate) mod saved;
