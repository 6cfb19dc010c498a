//! `ttlMs` and `cacheScope` of the merged lists (SEP-2549): fresh for the least time any of
//! their servers allows, and `public` only when every server allows it and every caller of
//! the endpoint gets the same answer.

use super::view::View;
use super::{Gateway, is_stateless};
use rmcp::model::{
    CacheScope, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, ReadResourceResult,
};
use rmcp::service::{RequestContext, RoleServer};
use std::time::Instant;
use switchboard_registry::ListKind;
use switchboard_upstream::ListCache;

/// A list result that can say how long it stays fresh.
pub(super) trait Cacheable: Sized {
    fn hinted(self, ttl_ms: u64, scope: CacheScope) -> Self;

    /// With `ttlMs` and `cacheScope` for a 2026-07-28 caller; older revisions have neither.
    fn cached_for(
        self,
        context: &RequestContext<RoleServer>,
        hint: impl FnOnce() -> (u64, CacheScope),
    ) -> Self {
        if !is_stateless(context) {
            return self;
        }
        let (ttl_ms, scope) = hint();
        self.hinted(ttl_ms, scope)
    }
}

macro_rules! cacheable {
    ($($result:ty),*) => {$(
        impl Cacheable for $result {
            fn hinted(self, ttl_ms: u64, scope: CacheScope) -> Self {
                self.with_ttl_ms(ttl_ms).with_cache_scope(scope)
            }
        }
    )*};
}

cacheable!(
    ListToolsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListPromptsResult,
    rmcp::model::ListSkillsResult
);

impl Gateway {
    /// How long this caller may keep a merged list of `kind`, and who may share it.
    pub(super) fn list_cache(&self, view: &View, kind: ListKind) -> (u64, CacheScope) {
        let now = Instant::now();
        // A registry none of whose servers offers the list does not count.
        let merged = (view.registries.iter())
            .filter_map(|r| r.catalog().freshness.at(kind, now))
            .reduce(ListCache::and);
        let Some(merged) = merged else {
            return (0, CacheScope::Private);
        };
        let scope = if merged.public && self.one_audience() {
            CacheScope::Public
        } else {
            CacheScope::Private
        };
        (merged.ttl_ms, scope)
    }

    /// Whether every caller of this endpoint gets the same answers. An agent endpoint answers
    /// for one agent, and an endpoint that takes org tokens answers each org with its own
    /// servers: only the operator's own endpoint (stdio, or HTTP without a control plane)
    /// does. Policy filters by org and agent, so it cannot tell two of those callers apart.
    pub(super) fn one_audience(&self) -> bool {
        self.agent.is_none() && self.orgs.is_none()
    }
}

/// A read as this endpoint may let it be cached: a server's `public` read stays shared only
/// where every caller gets the same answers (the same URI may name another org's resource).
pub(super) fn scoped_read(
    mut result: ReadResourceResult,
    one_audience: bool,
) -> ReadResourceResult {
    if !one_audience && result.ttl_ms.is_some() {
        result.cache_scope = Some(CacheScope::Private);
    }
    result
}
