//! The aggregated view: every server's tools, resources and prompts under collision-free names.

mod exposed;
mod freshness;
mod resources;
mod skills;
pub(crate) mod ui_uris;

pub use exposed::{ExposedPrompt, ExposedResource, ExposedResourceTemplate, ExposedTool};
pub(crate) use exposed::{WireJson, WithheldTool};
pub use freshness::{ListFreshness, ListKind};
pub use skills::ExposedSkill;

use rmcp::model::Tool;
use std::collections::HashMap;
use switchboard_core::names::NameConflict;
use switchboard_core::{
    ActionId, CallGuard, Limits, NameTable, NamingTemplate, Owner, Review, ServerSlug, ServerSpec,
};
use switchboard_upstream::Snapshot;

use resources::exposed_uris;

/// An immutable catalogue, rebuilt whenever a server's snapshot changes.
#[derive(Debug, Default)]
pub struct Catalog {
    pub tools: Vec<ExposedTool>,
    pub prompts: Vec<ExposedPrompt>,
    pub resources: Vec<ExposedResource>,
    pub resource_templates: Vec<ExposedResourceTemplate>,
    pub warnings: Vec<String>,
    /// Tools kept out by configuration (allowlists) or dropped by the policy pipeline.
    pub withheld: Vec<WithheldTool>,
    /// How long each merged list may be cached (the servers' `ttlMs` and `cacheScope`).
    pub freshness: ListFreshness,
    /// The extensions servers declared (`capabilities.extensions`): each one's servers and
    /// their settings.
    extensions: std::collections::BTreeMap<String, Vec<(ServerSlug, rmcp::model::JsonObject)>>,
    /// Every server's skills (the skills extension) under the gateway's URIs.
    skills: skills::Skills,
    tool_names: NameTable,
    prompt_names: NameTable,
    tool_index: HashMap<String, usize>,
    resource_routes: HashMap<String, (ServerSlug, String)>,
    /// Search indexes, made the first time search mode needs them (see `search.rs`).
    pub(crate) search: crate::search::CatalogSearch,
}

impl Catalog {
    pub fn build(
        template: &NamingTemplate,
        servers: &[(&ServerSpec, &Snapshot)],
        limits: &Limits,
        guard: Option<(&dyn CallGuard, &Owner)>,
    ) -> Self {
        let mut catalog = Catalog::default();
        let mut reviews: Vec<Vec<Review>> = Vec::with_capacity(servers.len());
        // Each server's UIs as reviewed, made once and shared by every tool that names one.
        let apps: Vec<UiResources> = servers.iter().map(|(_, snap)| ui_resources(snap)).collect();
        let kept: Vec<Vec<Tool>> = servers
            .iter()
            .zip(&apps)
            .map(|((spec, snap), apps)| {
                let tools = catalog.bounded_tools(spec, &snap.tools, limits);
                let (mut tools, review) = catalog.reviewed(spec, tools, apps, guard);
                catalog.cut_descriptions(spec, &mut tools, limits);
                reviews.push(review);
                tools
            })
            .collect();
        let tool_entries: Vec<(&ServerSlug, &str)> = servers
            .iter()
            .zip(&kept)
            .flat_map(|((spec, _), tools)| tools.iter().map(|t| (&spec.name, t.name.as_ref())))
            .collect();
        let (tool_names, conflicts) = NameTable::build_tools(template, tool_entries);
        catalog.note(conflicts);
        let uris = exposed_uris(servers, &kept);
        for ((((spec, _), tools), reviews), apps) in
            servers.iter().zip(&kept).zip(&reviews).zip(&apps)
        {
            for (tool, review) in tools.iter().zip(reviews) {
                let Some(exposed) = tool_names.exposed(&spec.name, &tool.name) else {
                    continue;
                };
                // The first definition of a duplicated name is the one that routes.
                if catalog.tool_index.contains_key(exposed) {
                    continue;
                }
                let mut def = tool.clone();
                def.name = exposed.to_string().into();
                if let Some(app) = ui_uris::app_of(tool)
                    && let Some(exposed_app) = uris.get(&(spec.name.clone(), app.to_string()))
                    && exposed_app != app
                {
                    ui_uris::point_at(&mut def, exposed_app);
                }
                catalog
                    .tool_index
                    .insert(exposed.to_string(), catalog.tools.len());
                catalog.tools.push(ExposedTool {
                    exposed_name: exposed.to_string(),
                    action_id: ActionId::new(&spec.name, &tool.name),
                    server: spec.name.clone(),
                    upstream_name: tool.name.to_string(),
                    tool: def,
                    review: review.clone(),
                    wire: WireJson::default(),
                    app: ui_uris::app_of(tool).and_then(|uri| apps.get(uri)).cloned(),
                });
            }
        }
        catalog.tool_names = tool_names;

        let prompt_entries: Vec<(&ServerSlug, &str)> = servers
            .iter()
            .flat_map(|(spec, snap)| snap.prompts.iter().map(|p| (&spec.name, p.name.as_str())))
            .collect();
        let (prompt_names, conflicts) = NameTable::build(template, prompt_entries);
        catalog.note(conflicts);
        for (spec, snap) in servers {
            for prompt in &snap.prompts {
                let Some(exposed) = prompt_names.exposed(&spec.name, &prompt.name) else {
                    continue;
                };
                if catalog.prompts.iter().any(|p| p.exposed_name == exposed) {
                    continue;
                }
                let mut def = prompt.clone();
                def.name = exposed.to_string();
                catalog.prompts.push(ExposedPrompt {
                    exposed_name: exposed.to_string(),
                    server: spec.name.clone(),
                    upstream_name: prompt.name.clone(),
                    prompt: def,
                });
            }
        }
        catalog.prompt_names = prompt_names;
        catalog.add_resources(servers, &kept, &uris);
        catalog.freshness = ListFreshness::of(servers.iter().map(|(_, snap)| *snap));
        for (spec, snap) in servers {
            for (id, settings) in &snap.extensions {
                let declared = catalog.extensions.entry(id.clone()).or_default();
                declared.push((spec.name.clone(), settings.clone()));
            }
        }
        let named: Vec<_> = servers
            .iter()
            .map(|(spec, snap)| (&spec.name, *snap))
            .collect();
        catalog.skills = skills::Skills::build(&named);
        catalog
    }

    /// Every server's skills under the gateway's URIs.
    pub fn skills(&self) -> &[ExposedSkill] {
        &self.skills.exposed
    }

    /// `upstream_uri`, a URI within one of `server`'s skills, as callers name it.
    pub fn exposed_skill_uri(&self, server: &ServerSlug, upstream_uri: &str) -> String {
        self.skills.exposed_uri(server, upstream_uri)
    }

    /// Whether a server here declared the extension `id`, with a setting `key` of `true`
    /// when one is named.
    pub fn declares(&self, id: &str, key: Option<&str>) -> bool {
        self.extensions.get(id).is_some_and(|servers| match key {
            None => true,
            Some(key) => (servers.iter()).any(|(_, s)| s.get(key) == Some(&true.into())),
        })
    }

    /// The server's allowed tools within the limits: at most `max_tools_per_server`, schemas
    /// no larger than `max_schema_bytes`, descriptions cut to `max_description_chars`.
    fn bounded_tools(&mut self, spec: &ServerSpec, tools: &[Tool], limits: &Limits) -> Vec<Tool> {
        let server = &spec.name;
        let mut kept = Vec::new();
        for tool in tools {
            if !spec.allows_tool(&tool.name) {
                self.withheld.push(WithheldTool {
                    server: server.clone(),
                    tool: tool.name.to_string(),
                    reason: "not in the server's tool allowlist (tools / allowlist.tool_ids)"
                        .into(),
                });
                continue;
            }
            if kept.len() == limits.max_tools_per_server {
                self.warn(format!(
                    "server {server}: only the first {} tools are kept (max_tools_per_server)",
                    limits.max_tools_per_server
                ));
                break;
            }
            let schema_bytes = serde_json::to_vec(&tool.input_schema).map_or(0, |v| v.len())
                + tool
                    .output_schema
                    .as_ref()
                    .map_or(0, |s| serde_json::to_vec(s).map_or(0, |v| v.len()));
            if schema_bytes > limits.max_schema_bytes {
                self.warn(format!(
                    "server {server}: dropped {:?}: its schemas are {schema_bytes} bytes, over max_schema_bytes ({})",
                    tool.name, limits.max_schema_bytes
                ));
                continue;
            }
            kept.push(tool.clone());
        }
        kept
    }

    /// Descriptions cut to `max_description_chars` (after review, so pins and the scanner see
    /// what the upstream sent, and a changed limit never reads as a changed definition).
    fn cut_descriptions(&mut self, spec: &ServerSpec, tools: &mut [Tool], limits: &Limits) {
        for tool in tools {
            if let Some(description) = &tool.description
                && description.chars().count() > limits.max_description_chars
            {
                self.warn(format!(
                    "server {}: description of {:?} cut to {} characters (max_description_chars)",
                    spec.name, tool.name, limits.max_description_chars
                ));
                let cut: String = description
                    .chars()
                    .take(limits.max_description_chars)
                    .collect();
                tool.description = Some(cut.into());
            }
        }
    }

    /// Asks the guard about each tool; drops those it drops (recording why) and pairs the
    /// rest with their review.
    fn reviewed(
        &mut self,
        spec: &ServerSpec,
        tools: Vec<Tool>,
        apps: &UiResources,
        guard: Option<(&dyn CallGuard, &Owner)>,
    ) -> (Vec<Tool>, Vec<Review>) {
        let Some((guard, owner)) = guard else {
            let reviews = vec![Review::default(); tools.len()];
            return (tools, reviews);
        };
        let json: Vec<serde_json::Value> = tools.iter().map(|t| with_app(t, apps)).collect();
        let refs: Vec<&serde_json::Value> = json.iter().collect();
        let reviews = guard.review(owner, &spec.name, &spec.launch_hash(), &refs);
        let mut kept = Vec::with_capacity(tools.len());
        let mut kept_reviews = Vec::with_capacity(tools.len());
        for (tool, review) in tools.into_iter().zip(reviews) {
            match &review.dropped {
                Some(reason) => self.withheld.push(WithheldTool {
                    server: spec.name.clone(),
                    tool: tool.name.to_string(),
                    reason: reason.clone(),
                }),
                None => {
                    kept.push(tool);
                    kept_reviews.push(review);
                }
            }
        }
        (kept, kept_reviews)
    }

    fn warn(&mut self, text: String) {
        tracing::warn!("{text}");
        self.warnings.push(text);
    }

    fn note(&mut self, conflicts: Vec<NameConflict>) {
        for conflict in conflicts {
            self.warn(conflict.to_string());
        }
    }

    pub fn tool(&self, exposed: &str) -> Option<&ExposedTool> {
        self.tool_index.get(exposed).map(|&i| &self.tools[i])
    }

    /// The (server, upstream tool) an exposed name stands for.
    pub fn route_tool(&self, exposed: &str) -> Option<(&ServerSlug, &str)> {
        self.tool_names.route(exposed)
    }

    /// Whether a server here offers the prompt or resource (template) a completion names.
    pub fn offers_completion(&self, reference: &rmcp::model::Reference) -> bool {
        match reference {
            rmcp::model::Reference::Prompt(p) => self.route_prompt(&p.name).is_some(),
            rmcp::model::Reference::Resource(r) => {
                self.resource_templates
                    .iter()
                    .any(|t| t.template.uri_template == r.uri)
                    || self.route_resource(&r.uri).is_some()
            }
            _ => false,
        }
    }

    pub fn route_prompt(&self, exposed: &str) -> Option<(&ServerSlug, &str)> {
        self.prompt_names.route(exposed)
    }
}

/// A server's UI resources (MCP Apps) as the guard reviews them (`uiResource`), by URI.
type UiResources = std::collections::BTreeMap<String, std::sync::Arc<serde_json::Value>>;

/// The `uiResource` of each UI discovery read: URI, MIME type, SHA-256, HTML (or, for a large
/// one, its reduced text) and its `_meta.ui`.
fn ui_resources(snap: &Snapshot) -> UiResources {
    (snap.apps.iter())
        .map(|(uri, app)| {
            let mut ui = serde_json::json!({
                "uri": uri,
                "mimeType": app.mime_type,
                "sha256": app.sha256,
                "html": app.html,
                "ui": app.ui,
            });
            // Only where there is one: the pins of UIs kept whole stay as they were.
            if let Some(text) = &app.text {
                ui["text"] = text.as_str().into();
            }
            (uri.clone(), std::sync::Arc::new(ui))
        })
        .collect()
}

/// A tool as the guard reviews it: with its app's UI (`uiResource`) when it names one, so pins
/// cover the HTML and the scanner reads it.
fn with_app(tool: &Tool, apps: &UiResources) -> serde_json::Value {
    let mut json = serde_json::to_value(tool).unwrap_or_default();
    if let Some(ui) = ui_uris::app_of(tool).and_then(|uri| apps.get(uri))
        && let Some(map) = json.as_object_mut()
    {
        map.insert("uiResource".into(), (**ui).clone());
    }
    json
}

#[cfg(test)]
mod tests;
