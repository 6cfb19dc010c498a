//! The extensions callers and upstreams share, as the gateway offers them: advertised where a
//! server behind it declares them (tasks, skills), and skills aggregated like resources (each
//! server's seen only by callers who see the server), read back through their server.

use super::caching::Cacheable;
use super::{Gateway, View, error_data, resource_error};
use rmcp::model::{
    CacheScope, ErrorData, GetSkillRequestParams, GetSkillResult, ListSkillsResult,
    PaginatedRequestParams, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ResultType, ServerCapabilities, Skill,
};
use rmcp::service::{RequestContext, RoleServer};
use switchboard_registry::Registry;
use switchboard_upstream::TASKS_EXTENSION;

/// The skills extension (SEP-2640).
const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

impl Gateway {
    /// The gateway's capabilities with the extensions a server behind it declares. Asked on
    /// every stateless request (rmcp serves each one directly): no registry is cloned.
    pub(super) fn with_extensions(&self, caps: ServerCapabilities) -> ServerCapabilities {
        let (mut tasks, mut skills, mut directory_read) = (false, false, false);
        let mut offers = |registry: &Registry| {
            let catalog = registry.catalog();
            tasks |= catalog.declares(TASKS_EXTENSION, None);
            skills |= catalog.declares(SKILLS_EXTENSION, None);
            directory_read |= catalog.declares(SKILLS_EXTENSION, Some("directoryRead"));
        };
        offers(&self.registry);
        if let Some(control) = &self.orgs {
            control.orgs.for_each(&mut offers);
        }
        let mut builder = ServerCapabilities::builder();
        if tasks {
            builder = builder.enable_tasks();
        }
        if directory_read {
            builder = builder.enable_skills_with_directory_read();
        } else if skills {
            builder = builder.enable_skills();
        }
        let mut caps = caps;
        if let Some(extensions) = builder.build().extensions {
            caps.extensions.get_or_insert_default().extend(extensions);
        }
        caps
    }

    /// The skills this caller sees, in the order their servers were configured.
    async fn visible_skills(&self, view: &View) -> Vec<Skill> {
        if self.agent.is_some() {
            return Vec::new();
        }
        super::visible_items(view, |c| {
            (c.skills().iter())
                .map(|s| (s.server.clone(), s.skill.clone()))
                .collect()
        })
        .await
    }

    /// `skills/list`: every skill the caller sees, one page (the gateway holds them all).
    pub(super) async fn skills_list(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        let mut result = ListSkillsResult::with_all_items(self.visible_skills(&view).await);
        result.result_type = Some(ResultType::COMPLETE);
        // A skill's files may change without notice: no promise of freshness.
        Ok(result.cached_for(context, || (0, CacheScope::Private)))
    }

    /// `skills/get`: one skill the caller sees, by its exposed URI; `-32602` otherwise.
    pub(super) async fn skill_get(
        &self,
        request: GetSkillRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        let skills = self.visible_skills(&view).await;
        let skill = (skills.into_iter().find(|s| s.uri == request.uri)).ok_or_else(|| {
            ErrorData::invalid_params(
                format!("no skill at {:?}", request.uri),
                Some(serde_json::json!({ "uri": request.uri })),
            )
        })?;
        let mut result = GetSkillResult::new(skill)
            .with_ttl_ms(0)
            .with_cache_scope(CacheScope::Private);
        result.result_type = Some(ResultType::COMPLETE);
        Ok(result)
    }

    /// `resources/directory/read`: the children of a skill's folder, read from its server and
    /// named as the caller names them.
    pub(super) async fn directory_read(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let uri = request.uri;
        let view = self.view(&context.extensions, Some(&context.meta));
        let unknown = || {
            ErrorData::invalid_params(
                format!("no server offers the directory {uri:?}"),
                Some(serde_json::json!({ "uri": uri })),
            )
        };
        if self.agent.is_some() {
            return Err(unknown());
        }
        let registry = view.registry_for(|c| c.route_resource(&uri).is_some());
        let catalog = registry.catalog();
        let (server, upstream) = catalog.route_resource(&uri).ok_or_else(unknown)?;
        let opts = self.options(context, view.caller.clone());
        let read = registry.read_directory(server.as_str(), &upstream, request.cursor, opts);
        let mut result = read.await.map_err(|e| match e.code {
            Some(_) => error_data(e),
            None => resource_error(e, &uri),
        })?;
        for child in &mut result.resources {
            child.uri = catalog.exposed_skill_uri(&server, &child.uri);
        }
        result.result_type = Some(ResultType::COMPLETE);
        Ok(result)
    }
}
