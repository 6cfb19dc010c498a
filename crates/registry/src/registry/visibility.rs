//! What each caller may list: tools the policy shows them, and servers they see at all.

use super::Registry;
use crate::catalog::ExposedTool;
use switchboard_core::{Caller, ToolRef, Visibility};

impl Registry {
    /// The tools `caller` may list: quarantined ones and those the policy hides left out.
    pub async fn visible_tools(&self, caller: &Caller) -> Vec<ExposedTool> {
        let catalog = self.catalog();
        let visible = self.visible_in(&catalog, caller).await;
        visible.map(|i| catalog.tools[i].clone()).collect()
    }

    /// [`Registry::visible_tools`] as the JSON definitions `tools/list` sends, each made
    /// once per catalogue.
    pub async fn visible_tools_json(
        &self,
        caller: &Caller,
    ) -> Vec<std::sync::Arc<serde_json::value::RawValue>> {
        let catalog = self.catalog();
        let visible = self.visible_in(&catalog, caller).await;
        visible.map(|i| catalog.tools[i].wire_json()).collect()
    }

    /// The positions in `catalog.tools` of the tools `caller` sees.
    pub(crate) async fn visible_in(
        &self,
        catalog: &crate::Catalog,
        caller: &Caller,
    ) -> impl Iterator<Item = usize> + use<> {
        let candidates: Vec<usize> = (0..catalog.tools.len())
            .filter(|&i| catalog.tools[i].quarantined().is_none())
            .collect();
        let seen = match self.guard() {
            None => vec![Visibility::Visible; candidates.len()],
            Some(guard) => {
                let refs: Vec<ToolRef<'_>> = candidates
                    .iter()
                    .map(|&i| &catalog.tools[i])
                    .map(|t| ToolRef {
                        owner: &self.inner.owner,
                        server: &t.server,
                        tool: &t.upstream_name,
                        action: &t.action_id,
                    })
                    .collect();
                guard.visibility(caller, &refs).await
            }
        };
        candidates
            .into_iter()
            .zip(seen)
            .filter(|(_, v)| *v == Visibility::Visible)
            .map(|(i, _)| i)
    }

    /// Whether `caller` sees `server` at all (resources and prompts follow their server).
    pub async fn server_visible(&self, caller: &Caller, server: &str) -> bool {
        let Some(guard) = self.guard() else {
            return true;
        };
        let Ok(slug) = switchboard_core::ServerSlug::parse(server) else {
            return false;
        };
        guard
            .server_visibility(caller, &self.inner.owner, &slug)
            .await
            == Visibility::Visible
    }
}
