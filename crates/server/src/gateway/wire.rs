//! The tool list as ready-made JSON, for the fast path's `tools/list`.

use super::Gateway;
use rmcp::model::{Extensions, RequestMetaObject};
use serde_json::value::RawValue;
use std::sync::Arc;

impl Gateway {
    /// What `list_tools` answers, as each tool's JSON definition (made once per catalogue),
    /// for the request whose HTTP parts are in `extensions`.
    pub(crate) async fn visible_tools_json(
        &self,
        extensions: &Extensions,
        meta: &RequestMetaObject,
    ) -> Vec<Arc<RawValue>> {
        let view = self.view(extensions, Some(meta));
        let mut tools = Vec::new();
        for registry in &view.registries {
            tools.extend(registry.visible_tools_json(&view.caller).await);
        }
        if !self.searching(&view, || async { tools.len() }).await {
            return tools;
        }
        let mut listed = super::search_mode::meta_tools_json();
        let found = self.found.names();
        if !found.is_empty() {
            for registry in &view.registries {
                let visible = registry.visible_tools(&view.caller).await;
                let kept = visible.iter().filter(|t| found.contains(&t.exposed_name));
                listed.extend(kept.map(|t| t.wire_json()));
            }
        }
        listed
    }
}
