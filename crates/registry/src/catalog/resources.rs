//! Resources under the gateway's names: a URI one server offers is exposed as it is, one
//! several servers offer is prefixed per server (`switchboard://<server>/<uri>`, or within its
//! own scheme for `ui://` and `skill://`), and each exposed URI routes back.

use super::{Catalog, ExposedResource, ExposedResourceTemplate, skills, ui_uris};
use rmcp::model::Tool;
use std::collections::{HashMap, HashSet};
use switchboard_core::{ServerSlug, ServerSpec};
use switchboard_upstream::Snapshot;

/// Prefix for resource URIs that more than one server offers.
pub(crate) const RESOURCE_PREFIX: &str = "switchboard://";

impl Catalog {
    pub(super) fn add_resources(
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

    /// The server and upstream URI for a resource URI: a listed one, the prefixed form, or one
    /// matching exactly one server's templates.
    pub fn route_resource(&self, uri: &str) -> Option<(ServerSlug, String)> {
        if let Some(route) = self.resource_routes.get(uri) {
            return Some(route.clone());
        }
        if let Some(route) = ui_uris::route(uri) {
            return Some(route);
        }
        if let Some(route) = self.skills.route(uri) {
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
    if uri.starts_with(ui_uris::UI_SCHEME) {
        ui_uris::prefixed(server, uri)
    } else if uri.starts_with(skills::SKILL_SCHEME) {
        skills::prefixed(server, uri)
    } else {
        format!("{RESOURCE_PREFIX}{server}/{uri}")
    }
}

/// What the gateway exposes each server's resource URIs as, by (server, upstream URI).
pub(super) type ExposedUris = HashMap<(ServerSlug, String), String>;

/// Every resource URI each server offers (listed, or a `ui://` URI one of its kept tools names
/// as its app) and its exposed form: itself, or prefixed when several servers offer it.
pub(super) fn exposed_uris(
    servers: &[(&ServerSpec, &Snapshot)],
    kept: &[Vec<Tool>],
) -> ExposedUris {
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
            // A URI already in one of the gateway's prefixed forms could pass for another
            // server's: it is prefixed too.
            let reserved = [RESOURCE_PREFIX, ui_uris::UI_PREFIX, skills::SKILL_PREFIX]
                .iter()
                .any(|prefix| uri.starts_with(prefix));
            let exposed = match offered_by[uri] > 1 || reserved {
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
