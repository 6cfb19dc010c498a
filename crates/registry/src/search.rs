//! Search over a catalogue for the gateway's search mode: each catalogue's indexes are made
//! the first time they are asked for, so they follow every catalogue change; what the caller
//! cannot see is never found.

use crate::{Catalog, ExposedTool, Registry};
use std::collections::HashSet;
use std::sync::OnceLock;
use switchboard_core::{Caller, ServerSlug};
use switchboard_search::{Document, Index, Weights};

/// A catalogue's search indexes (tools; resources, templates and prompts).
#[derive(Debug, Default)]
pub(crate) struct CatalogSearch {
    tools: OnceLock<Index>,
    items: OnceLock<(Index, Vec<FoundItem>)>,
}

/// A tool search found, with its score.
#[derive(Debug, Clone)]
pub struct FoundTool {
    pub tool: ExposedTool,
    pub score: f32,
}

/// A resource, resource template or prompt search found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FoundItem {
    /// `resource`, `resource_template` or `prompt`.
    pub kind: &'static str,
    pub server: ServerSlug,
    /// What reads or gets it: the exposed URI, URI template or prompt name.
    pub id: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub score: f32,
}

impl Catalog {
    fn tool_search(&self, meaning: bool) -> &Index {
        self.search.tools.get_or_init(|| {
            let docs: Vec<Document> = self.tools.iter().map(tool_document).collect();
            Index::build_with(&docs, weights(meaning))
        })
    }

    fn item_search(&self, meaning: bool) -> &(Index, Vec<FoundItem>) {
        self.search.items.get_or_init(|| {
            let mut items = Vec::new();
            let mut docs = Vec::new();
            let mut add = |kind, server: &ServerSlug, id: &str, name: &str, d: Option<&str>| {
                docs.push(Document {
                    server: server.to_string(),
                    name: name.to_string(),
                    description: d.unwrap_or_default().to_string(),
                    details: vec![id.to_string()],
                    ..Document::default()
                });
                items.push(FoundItem {
                    kind,
                    server: server.clone(),
                    id: id.to_string(),
                    name: name.to_string(),
                    description: d.map(str::to_string),
                    score: 0.0,
                });
            };
            for r in &self.resources {
                let (uri, name) = (&r.resource.uri, &r.resource.name);
                add(
                    "resource",
                    &r.server,
                    uri,
                    name,
                    r.resource.description.as_deref(),
                );
            }
            for t in &self.resource_templates {
                let (uri, name) = (&t.template.uri_template, &t.template.name);
                let description = t.template.description.as_deref();
                add("resource_template", &t.server, uri, name, description);
            }
            for p in &self.prompts {
                let description = p.prompt.description.as_deref();
                add(
                    "prompt",
                    &p.server,
                    &p.exposed_name,
                    &p.upstream_name,
                    description,
                );
            }
            (Index::build_with(&docs, weights(meaning)), items)
        })
    }
}

/// The ranking's weights: the defaults, without the meaning ranking when it is off
/// (`[gateway] tools_search_meaning = false`).
fn weights(meaning: bool) -> Weights {
    let mut weights = Weights::default();
    if !meaning {
        weights.semantic = 0.0;
    }
    weights
}

/// What a tool is searched by: its upstream name, title, description, and its input schema's
/// property names and descriptions.
fn tool_document(t: &ExposedTool) -> Document {
    let title = t
        .tool
        .title
        .clone()
        .or_else(|| t.tool.annotations.as_ref().and_then(|a| a.title.clone()));
    let details = Document::schema_details(&t.tool.input_schema);
    Document {
        server: t.server.to_string(),
        name: t.upstream_name.clone(),
        title,
        description: t
            .tool
            .description
            .as_deref()
            .unwrap_or_default()
            .to_string(),
        details,
    }
}

impl Registry {
    /// The tools `caller` sees that best match `query` (of `server` only, when given).
    pub async fn search_tools(
        &self,
        caller: &Caller,
        query: &str,
        server: Option<&str>,
        limit: usize,
    ) -> Vec<FoundTool> {
        let catalog = self.catalog();
        let visible: HashSet<usize> = self.visible_in(&catalog, caller).await.collect();
        // Search answers the model: a tool only its app may see is not offered.
        let admit = |i: usize| {
            let tool = &catalog.tools[i];
            visible.contains(&i)
                && server.is_none_or(|s| tool.server.as_str() == s)
                && !crate::catalog::ui_uris::app_only(&tool.tool)
        };
        (catalog.tool_search(self.tools_setting().meaning))
            .search(query, limit, admit)
            .into_iter()
            .map(|hit| FoundTool {
                tool: catalog.tools[hit.doc].clone(),
                score: hit.score,
            })
            .collect()
    }

    /// The tool `caller` sees under an exposed name or action id, if any.
    pub async fn visible_tool(&self, caller: &Caller, name: &str) -> Option<ExposedTool> {
        let catalog = self.catalog();
        let mut visible = self.visible_in(&catalog, caller).await;
        visible
            .find(|&i| {
                let t = &catalog.tools[i];
                t.exposed_name == name || t.action_id.as_str() == name
            })
            .map(|i| catalog.tools[i].clone())
    }

    /// How many tools `caller` sees.
    pub async fn visible_count(&self, caller: &Caller) -> usize {
        let catalog = self.catalog();
        self.visible_in(&catalog, caller).await.count()
    }

    /// The resources, resource templates and prompts of servers `caller` sees that best
    /// match `query` (of `server` only, when given).
    pub async fn search_items(
        &self,
        caller: &Caller,
        query: &str,
        server: Option<&str>,
        limit: usize,
    ) -> Vec<FoundItem> {
        let catalog = self.catalog();
        let (index, items) = catalog.item_search(self.tools_setting().meaning);
        let mut servers: Vec<&str> = items.iter().map(|i| i.server.as_str()).collect();
        servers.sort_unstable();
        servers.dedup();
        let mut seen = HashSet::new();
        for s in servers {
            if server.is_none_or(|want| want == s) && self.server_visible(caller, s).await {
                seen.insert(s.to_string());
            }
        }
        let admit = |i: usize| seen.contains(items[i].server.as_str());
        (index.search(query, limit, admit))
            .into_iter()
            .map(|hit| FoundItem {
                score: hit.score,
                ..items[hit.doc].clone()
            })
            .collect()
    }
}
