//! Discovery: every page of every list a server offers, with how long each list may be cached
//! (a 2026-07-28 server's `ttlMs` and `cacheScope`).

use super::{Connection, Snapshot, with_stderr};
use crate::UpstreamError;
use rmcp::model::{
    CacheScope, Cursor, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams,
};
use rmcp::service::ServiceError;
use std::time::{Duration, Instant};

/// How long one list may be cached and by whom, as its server said on every page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListCache {
    /// Fresh for this long after it was fetched.
    pub ttl_ms: u64,
    /// May be shared across authorization contexts (`cacheScope: public`).
    pub public: bool,
}

impl ListCache {
    /// The hint of two pages, or of two lists merged: the shorter time, and shared only when
    /// both may be.
    pub fn and(self, other: ListCache) -> ListCache {
        ListCache {
            ttl_ms: self.ttl_ms.min(other.ttl_ms),
            public: self.public && other.public,
        }
    }
}

/// What a server said about caching one of its lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListHint {
    /// The server offers no such list: it never changes the merged one.
    NotOffered,
    /// No hint (revisions before 2026-07-28, a page without `ttlMs`, a saved snapshot): the
    /// list is stale at once.
    #[default]
    Stale,
    /// Fresh for `ttl_ms` after it was fetched.
    Fresh(ListCache),
}

/// The caching hints of a snapshot's lists.
#[derive(Debug, Clone, Default)]
pub struct Freshness {
    /// When the lists were fetched.
    pub fetched: Option<Instant>,
    pub tools: ListHint,
    pub resources: ListHint,
    pub resource_templates: ListHint,
    pub prompts: ListHint,
}

/// One page of a list result.
trait Page {
    type Item;
    fn split(self) -> (Vec<Self::Item>, Option<Cursor>, Option<ListCache>);
}

macro_rules! page {
    ($result:ty, $items:ident, $item:ty) => {
        impl Page for $result {
            type Item = $item;
            fn split(self) -> (Vec<$item>, Option<Cursor>, Option<ListCache>) {
                // An absent scope is public (SEP-2549); an absent TTL promises nothing.
                let hint = self.ttl_ms.map(|ttl_ms| ListCache {
                    ttl_ms,
                    public: self.cache_scope.unwrap_or_default() == CacheScope::Public,
                });
                (self.$items, self.next_cursor, hint)
            }
        }
    };
}

page!(ListToolsResult, tools, rmcp::model::Tool);
page!(ListResourcesResult, resources, rmcp::model::Resource);
page!(
    ListResourceTemplatesResult,
    resource_templates,
    rmcp::model::ResourceTemplate
);
page!(ListPromptsResult, prompts, rmcp::model::Prompt);
page!(rmcp::model::ListSkillsResult, skills, rmcp::model::Skill);

/// Every page of one list, and the hint all its pages allow (none when a page gave none).
async fn every_page<R: Page, F, Fut>(fetch: F) -> Result<(Vec<R::Item>, ListHint), ServiceError>
where
    F: Fn(Option<PaginatedRequestParams>) -> Fut,
    Fut: Future<Output = Result<R, ServiceError>>,
{
    let mut items = Vec::new();
    let mut cursor = None;
    let mut hint: Option<Option<ListCache>> = None;
    loop {
        let page = fetch(Some(PaginatedRequestParams::default().with_cursor(cursor))).await?;
        let (more, next, page_hint) = page.split();
        items.extend(more);
        hint = Some(match (hint, page_hint) {
            (None, h) => h,
            (Some(Some(a)), Some(b)) => Some(a.and(b)),
            _ => None,
        });
        cursor = next;
        if cursor.is_none() {
            return Ok((
                items,
                hint.flatten().map_or(ListHint::Stale, ListHint::Fresh),
            ));
        }
    }
}

/// [`every_page`] of a list the server offers; none of one it does not.
async fn every_page_if<R: Page, F, Fut>(
    offered: bool,
    fetch: F,
) -> Result<(Vec<R::Item>, ListHint), ServiceError>
where
    F: Fn(Option<PaginatedRequestParams>) -> Fut,
    Fut: Future<Output = Result<R, ServiceError>>,
{
    if !offered {
        return Ok((Vec::new(), ListHint::NotOffered));
    }
    every_page(fetch).await
}

impl Connection {
    /// Lists everything the server offers, every page, within `timeout`.
    pub async fn discover(&self, timeout: Duration) -> Result<Snapshot, UpstreamError> {
        let caps = self
            .peer
            .peer_info()
            .map(|i| i.capabilities.clone())
            .unwrap_or_default();
        let fetched = Instant::now();
        let work = async {
            let peer = &self.peer;
            let tools = every_page_if(caps.tools.is_some(), |p| peer.list_tools(p));
            let has_resources = caps.resources.is_some();
            let resources = every_page_if(has_resources, |p| peer.list_resources(p));
            let templates = async {
                (every_page_if(has_resources, |p| peer.list_resource_templates(p)).await).or_else(
                    |e| {
                        // Some servers offer resources but not templates: not a failure.
                        tracing::debug!(server = %self.server, "resources/templates/list: {e}");
                        Ok((Vec::new(), ListHint::NotOffered))
                    },
                )
            };
            let prompts = every_page_if(caps.prompts.is_some(), |p| peer.list_prompts(p));
            let skills = async {
                (every_page_if(caps.supports_skills(), |p| peer.list_skills(p)).await).or_else(
                    |e| {
                        // A skills listing that fails leaves the server's tools usable.
                        tracing::warn!(server = %self.server, "skills/list: {e}");
                        Ok((Vec::new(), ListHint::NotOffered))
                    },
                )
            };
            let (tools, resources, templates, prompts, skills) =
                tokio::try_join!(tools, resources, templates, prompts, skills)
                    .map_err(UpstreamError::from_service)?;
            if self.asks_for_input {
                *self.param_header_tools.lock() = tools
                    .0
                    .iter()
                    .filter(|t| {
                        serde_json::to_string(&t.input_schema)
                            .is_ok_and(|s| s.contains("x-mcp-header"))
                    })
                    .map(|t| t.name.to_string())
                    .collect();
            }
            let apps = crate::apps::read(peer, &tools.0).await;
            Ok(Snapshot {
                apps,
                skills: skills.0,
                extensions: caps.extensions.clone().unwrap_or_default(),
                freshness: Freshness {
                    fetched: Some(fetched),
                    tools: tools.1,
                    resources: resources.1,
                    resource_templates: templates.1,
                    prompts: prompts.1,
                },
                tools: tools.0,
                resources: resources.0,
                resource_templates: templates.0,
                prompts: prompts.0,
            })
        };
        tokio::time::timeout(timeout, work)
            .await
            .map_err(|_| UpstreamError::Timeout(timeout))?
            .map_err(|e| with_stderr(e, self.stderr.as_ref()))
    }
}
