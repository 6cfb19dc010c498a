//! The tool list as ready-made JSON, for the fast path's `tools/list`.

use super::Gateway;
use rmcp::model::{Extensions, RequestMetaObject};
use serde_json::value::RawValue;
use std::sync::Arc;
use switchboard_core::ToolsMode;

impl Gateway {
    /// What `list_tools` answers, as each tool's JSON definition (made once per catalogue),
    /// for the request whose HTTP parts are in `extensions`.
    pub(crate) async fn visible_tools_json(
        &self,
        extensions: &Extensions,
        meta: &RequestMetaObject,
    ) -> Vec<Arc<RawValue>> {
        let view = self.view(extensions, Some(meta));
        let mode = self.mode_for(&view).await;
        // In search mode the full list is never needed: it is not made.
        if mode != ToolsMode::Search {
            let mut tools = Vec::new();
            for registry in &view.registries {
                tools.extend(registry.visible_tools_json(&view.caller).await);
            }
            if !self.lists_meta(mode, tools.len()) {
                return tools;
            }
        }
        let mut listed = super::search_mode::meta_tools_json();
        listed.extend(self.found_tools(&view).await.iter().map(|t| t.wire_json()));
        listed
    }
}
