//! The aggregated view: every server's tools, resources and prompts under collision-free names.

mod exposed;
mod freshness;
pub(crate) mod ui_uris;

pub use exposed::{ExposedPrompt, ExposedResource, ExposedResourceTemplate, ExposedTool};
pub(crate) use exposed::{WireJson, WithheldTool};
pub use freshness::{ListFreshness, ListKind};

use rmcp::model::Tool;
use std::collections::{HashMap, HashSet};
use switchboard_core::names::NameConflict;
use switchboard_core::{
    ActionId, CallGuard, Limits, NameTable, NamingTemplate, Owner, Review, ServerSlug, ServerSpec,
};
use switchboard_upstream::Snapshot;

/// Prefix for resource URIs that more than one server offers.
pub(crate) const RESOURCE_PREFIX: &str = "switchboard://";

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
        let kept: Vec<Vec<Tool>> = servers
            .iter()
            .map(|(spec, snap)| {
                let tools = catalog.bounded_tools(spec, &snap.tools, limits);
                let (mut tools, review) = catalog.reviewed(spec, tools, &snap.apps, guard);
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
        for (((spec, _), tools), reviews) in servers.iter().zip(&kept).zip(&reviews) {
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
        catalog
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
        apps: &Apps,
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

    fn add_resources(
        &mut self,
        servers: &[(&ServerSpec, &Snapshot)],
        kept: &[Vec<Tool>],
        uris: &ExposedUris,
    ) {
        for ((spec, snap), tools) in servers.iter().zip(kept) {
            let exposed_as = |uri: &str| {
                let key = (spec.name.clone(), uri.to_string());
                uris.get(&key).cloned().unwrap_or_else(|| uri.to_string())
            };
            for r in &snap.resources {
                let exposed = exposed_as(&r.uri);
                if self.resource_routes.contains_key(&exposed) {
                    continue;
                }
                self.resource_routes
                    .insert(exposed.clone(), (spec.name.clone(), r.uri.clone()));
                let mut def = r.clone();
                def.uri = exposed;
                self.resources.push(ExposedResource {
                    server: spec.name.clone(),
                    upstream_uri: r.uri.clone(),
                    resource: def,
                });
            }
            // An app's resource its server does not list (MCP Apps allows that) still routes.
            for app in tools.iter().filter_map(ui_uris::app_of) {
                let route = (spec.name.clone(), app.to_string());
                self.resource_routes.entry(exposed_as(app)).or_insert(route);
            }
            for t in &snap.resource_templates {
                self.resource_templates.push(ExposedResourceTemplate {
                    server: spec.name.clone(),
                    template: t.clone(),
                });
            }
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

    /// The server and upstream URI for a resource URI: a listed one, the prefixed form, or one
    /// matching exactly one server's templates.
    pub fn route_resource(&self, uri: &str) -> Option<(ServerSlug, String)> {
        if let Some(route) = self.resource_routes.get(uri) {
            return Some(route.clone());
        }
        if let Some(route) = ui_uris::route(uri) {
            return Some(route);
        }
        if let Some(rest) = uri.strip_prefix(RESOURCE_PREFIX)
            && let Some((server, upstream)) = rest.split_once('/')
            && let Ok(server) = ServerSlug::parse(server)
        {
            return Some((server, upstream.to_string()));
        }
        let mut matching = self
            .resource_templates
            .iter()
            .filter(|t| template_prefix_matches(&t.template.uri_template, uri))
            .map(|t| &t.server);
        match (matching.next(), matching.next()) {
            (Some(server), None) => Some((server.clone(), uri.to_string())),
            (Some(first), Some(second)) if first == second => {
                Some((first.clone(), uri.to_string()))
            }
            _ => None,
        }
    }
}

pub(crate) fn prefixed_uri(server: &ServerSlug, uri: &str) -> String {
    match uri.starts_with(ui_uris::UI_SCHEME) {
        true => ui_uris::prefixed(server, uri),
        false => format!("{RESOURCE_PREFIX}{server}/{uri}"),
    }
}

/// A server's UI resources (MCP Apps) as discovery read them, by URI.
type Apps = std::collections::BTreeMap<String, switchboard_upstream::apps::AppUi>;

/// A tool as the guard reviews it: with its app's UI (`uiResource`: URI, hash, HTML and its
/// `_meta.ui`) when it names one, so pins cover the HTML and the scanner reads it.
fn with_app(tool: &Tool, apps: &Apps) -> serde_json::Value {
    let mut json = serde_json::to_value(tool).unwrap_or_default();
    if let Some(uri) = ui_uris::app_of(tool)
        && let Some(app) = apps.get(uri)
        && let Some(map) = json.as_object_mut()
    {
        let ui = serde_json::json!({
            "uri": uri,
            "mimeType": app.mime_type,
            "sha256": app.sha256,
            "html": app.html,
            "ui": app.ui,
        });
        map.insert("uiResource".into(), ui);
    }
    json
}

/// What the gateway exposes each server's resource URIs as, by (server, upstream URI).
type ExposedUris = HashMap<(ServerSlug, String), String>;

/// Every resource URI each server offers (listed, or a `ui://` URI one of its kept tools names
/// as its app) and its exposed form: itself, or prefixed when several servers offer it.
fn exposed_uris(servers: &[(&ServerSpec, &Snapshot)], kept: &[Vec<Tool>]) -> ExposedUris {
    let mut offers: Vec<(&ServerSlug, &str)> = Vec::new();
    for ((spec, snap), tools) in servers.iter().zip(kept) {
        let mut own: HashSet<&str> = snap.resources.iter().map(|r| r.uri.as_str()).collect();
        own.extend(tools.iter().filter_map(ui_uris::app_of));
        offers.extend(own.into_iter().map(|uri| (&spec.name, uri)));
    }
    let mut offered_by: HashMap<&str, usize> = HashMap::new();
    for (_, uri) in &offers {
        *offered_by.entry(uri).or_default() += 1;
    }
    (offers.iter())
        .map(|&(server, uri)| {
            let exposed = match offered_by[uri] > 1 {
                true => prefixed_uri(server, uri),
                false => uri.to_string(),
            };
            ((server.clone(), uri.to_string()), exposed)
        })
        .collect()
}

/// Whether `uri` starts with the literal part of an RFC 6570 template (before its first `{`).
fn template_prefix_matches(template: &str, uri: &str) -> bool {
    let literal = template.split('{').next().unwrap_or_default();
    !literal.is_empty() && uri.starts_with(literal) && uri.len() > literal.len()
}

#[cfg(test)]
mod tests;
