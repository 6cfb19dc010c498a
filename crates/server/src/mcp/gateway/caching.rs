//! `ttlMs` and `cacheScope` of the merged lists (SEP-2549): fresh for the least time any of
//! their servers allows, and `public` only when every server allows it and every caller of
//! the endpoint gets the same answer.

use super::Gateway;
use super::view::View;
use rmcp::model::CacheScope;
use std::time::Instant;
use switchboard_registry::ListKind;
use switchboard_upstream::ListCache;

impl Gateway {
    /// How long this caller may keep a merged list of `kind`, and who may share it.
    pub(super) fn list_cache(&self, view: &View, kind: ListKind) -> (u64, CacheScope) {
        let now = Instant::now();
        let merged = (view.registries.iter())
            .map(|r| r.catalog().freshness.at(kind, now))
            .reduce(ListCache::and);
        let Some(merged) = merged else {
            return (0, CacheScope::Private);
        };
        // An agent endpoint answers for one agent, and an endpoint that takes org tokens
        // answers each org with its own servers: only the operator's own endpoint (stdio, or
        // HTTP without a control plane) gives every caller the same lists. Policy filters by
        // org and agent, so it cannot tell two of those callers apart.
        let one_audience = self.agent.is_none() && self.orgs.is_none();
        let scope = if merged.public && one_audience {
            CacheScope::Public
        } else {
            CacheScope::Private
        };
        (merged.ttl_ms, scope)
    }
}
