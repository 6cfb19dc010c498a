//! Skills (the skills extension, SEP-2640) under the gateway's names: a skill URI one server
//! serves is exposed as it is; one several servers serve becomes
//! `skill://switchboard/<server>/<rest>` (still `skill://`, its last segment still the skill's
//! name), with every file of its manifest renamed alike, and each name routes back.

use rmcp::model::{Skill, SkillResources};
use std::collections::HashMap;
use switchboard_core::ServerSlug;
use switchboard_upstream::Snapshot;

/// The scheme of skill URIs.
pub(crate) const SKILL_SCHEME: &str = "skill://";

/// Where a skill URI several servers serve is exposed: `skill://switchboard/<server>/<rest>`.
pub(crate) const SKILL_PREFIX: &str = "skill://switchboard/";

/// One server's skill as the gateway exposes it.
#[derive(Debug, Clone)]
pub struct ExposedSkill {
    pub server: ServerSlug,
    /// The skill's URI (its `SKILL.md`) at its server.
    pub upstream_uri: String,
    /// The entry as callers see it: URIs the gateway's.
    pub skill: Skill,
}

/// Every server's skills, and where each skill's folder routes.
#[derive(Debug, Default)]
pub(crate) struct Skills {
    pub(crate) exposed: Vec<ExposedSkill>,
    /// Exposed folder of a skill (its URI without `/SKILL.md`) → server and upstream folder.
    folders: HashMap<String, (ServerSlug, String)>,
}

impl Skills {
    pub(crate) fn build(servers: &[(&ServerSlug, &Snapshot)]) -> Self {
        let mut offered_by: HashMap<&str, usize> = HashMap::new();
        for (_, snap) in servers {
            for skill in &snap.skills {
                *offered_by.entry(skill.uri.as_str()).or_default() += 1;
            }
        }
        let mut skills = Skills::default();
        for (server, snap) in servers {
            for skill in &snap.skills {
                // A URI already in the gateway's own form is renamed too: it could pass for
                // another server's skill.
                let shared =
                    offered_by[skill.uri.as_str()] > 1 || skill.uri.starts_with(SKILL_PREFIX);
                let rename = |uri: &str| match shared {
                    true => prefixed(server, uri),
                    false => uri.to_string(),
                };
                let mut exposed = skill.clone();
                exposed.uri = rename(&skill.uri);
                if let SkillResources::Files(files) = &mut exposed.resources {
                    for file in files {
                        file.uri = rename(&file.uri);
                    }
                }
                let folder = |uri: &str| uri.strip_suffix("/SKILL.md").map(String::from);
                if let (Some(exposed_folder), Some(upstream_folder)) =
                    (folder(&exposed.uri), folder(&skill.uri))
                {
                    let route = ((*server).clone(), upstream_folder);
                    skills.folders.entry(exposed_folder).or_insert(route);
                }
                skills.exposed.push(ExposedSkill {
                    server: (*server).clone(),
                    upstream_uri: skill.uri.clone(),
                    skill: exposed,
                });
            }
        }
        skills
    }

    /// The server and upstream URI of a URI within a skill's folder (the folder itself,
    /// `SKILL.md`, any file or subfolder), or a prefixed skill URI.
    pub(crate) fn route(&self, uri: &str) -> Option<(ServerSlug, String)> {
        if !uri.starts_with(SKILL_SCHEME) {
            return None;
        }
        let mut folder = uri;
        loop {
            if let Some((server, upstream)) = self.folders.get(folder) {
                return Some((
                    server.clone(),
                    format!("{upstream}{}", &uri[folder.len()..]),
                ));
            }
            match folder.rsplit_once('/') {
                Some((parent, _)) if parent.len() > SKILL_SCHEME.len() => folder = parent,
                _ => break,
            }
        }
        let rest = uri.strip_prefix(SKILL_PREFIX)?;
        let (server, upstream) = rest.split_once('/')?;
        let server = ServerSlug::parse(server).ok()?;
        Some((server, format!("{SKILL_SCHEME}{upstream}")))
    }

    /// `upstream_uri` (a URI of `server`'s) as callers name it.
    pub(crate) fn exposed_uri(&self, server: &ServerSlug, upstream_uri: &str) -> String {
        let mut folders = self.folders.iter().filter(|(_, (s, _))| s == server);
        let found = folders.find_map(|(exposed, (_, upstream))| {
            let rest = upstream_uri.strip_prefix(upstream.as_str())?;
            (rest.is_empty() || rest.starts_with('/')).then(|| format!("{exposed}{rest}"))
        });
        found.unwrap_or_else(|| upstream_uri.to_string())
    }
}

/// `uri` (a `skill://` URI) as `server` serves it when another server serves it too.
pub(crate) fn prefixed(server: &ServerSlug, uri: &str) -> String {
    let rest = uri.strip_prefix(SKILL_SCHEME).unwrap_or(uri);
    format!("{SKILL_PREFIX}{server}/{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{SkillFrontmatter, SkillResource};

    fn skill(uri: &str) -> Skill {
        let files = vec![
            SkillResource::from_bytes(uri, b"---\nname: x\n---\n"),
            SkillResource::from_bytes(uri.replace("SKILL.md", "ref/a.md"), b"a"),
        ];
        Skill::new(
            uri,
            SkillFrontmatter::new("pdf", "d"),
            SkillResources::Files(files),
        )
    }

    fn snapshot(uris: &[&str]) -> Snapshot {
        Snapshot {
            skills: uris.iter().map(|u| skill(u)).collect(),
            ..Snapshot::default()
        }
    }

    #[test]
    fn a_skill_two_servers_serve_is_prefixed_with_its_files_and_routes_back() {
        let (a, b) = (
            ServerSlug::parse("a").unwrap(),
            ServerSlug::parse("b").unwrap(),
        );
        let (sa, sb) = (
            snapshot(&["skill://docs/pdf/SKILL.md", "skill://mine/only/SKILL.md"]),
            snapshot(&["skill://docs/pdf/SKILL.md"]),
        );
        let skills = Skills::build(&[(&a, &sa), (&b, &sb)]);
        let uris: Vec<&str> = skills
            .exposed
            .iter()
            .map(|s| s.skill.uri.as_str())
            .collect();
        assert_eq!(
            uris,
            [
                "skill://switchboard/a/docs/pdf/SKILL.md",
                "skill://mine/only/SKILL.md",
                "skill://switchboard/b/docs/pdf/SKILL.md"
            ]
        );
        let SkillResources::Files(files) = &skills.exposed[2].skill.resources else {
            panic!("files")
        };
        assert_eq!(files[1].uri, "skill://switchboard/b/docs/pdf/ref/a.md");
        // The file, the folder and a subfolder route to their server's own names.
        let route = |uri| skills.route(uri).map(|(s, u)| (s.to_string(), u));
        assert_eq!(
            route("skill://switchboard/b/docs/pdf/ref/a.md"),
            Some(("b".into(), "skill://docs/pdf/ref/a.md".into()))
        );
        assert_eq!(
            route("skill://mine/only"),
            Some(("a".into(), "skill://mine/only".into()))
        );
        assert_eq!(
            route("skill://mine/only/ref"),
            Some(("a".into(), "skill://mine/only/ref".into()))
        );
        assert_eq!(route("skill://nobody/x/SKILL.md"), None);
        assert_eq!(route("file:///mine/only/SKILL.md"), None);
        // Children a directory read names come back under the exposed names.
        assert_eq!(
            skills.exposed_uri(&b, "skill://docs/pdf/ref"),
            "skill://switchboard/b/docs/pdf/ref"
        );
        assert_eq!(
            skills.exposed_uri(&a, "skill://mine/only/x.md"),
            "skill://mine/only/x.md"
        );

        // A server naming its skill in the gateway's form cannot pass for another server.
        let c = ServerSlug::parse("c").unwrap();
        let forged = snapshot(&["skill://switchboard/a/docs/pdf/SKILL.md"]);
        let skills = Skills::build(&[(&c, &forged), (&a, &sa), (&b, &sb)]);
        let route = |uri| skills.route(uri).map(|(s, u)| (s.to_string(), u));
        assert_eq!(
            skills.exposed[0].skill.uri,
            "skill://switchboard/c/switchboard/a/docs/pdf/SKILL.md"
        );
        assert_eq!(
            route("skill://switchboard/a/docs/pdf/ref/a.md"),
            Some(("a".into(), "skill://docs/pdf/ref/a.md".into()))
        );
    }
}
