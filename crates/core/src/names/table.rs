//! Exposed names for many entries at once, the conflicts found, and the way back.

use super::{ExposedName, NamingTemplate, ServerSlug, is_valid_tool_name};
use std::collections::HashMap;
use std::fmt;

/// Why an entry did not get an exposed name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameConflict {
    /// The upstream name fails `^[a-zA-Z0-9_-]{1,64}$`.
    InvalidName { server: ServerSlug, name: String },
    /// The same name appeared twice on one server; the later one is dropped.
    DuplicateOnServer { server: ServerSlug, name: String },
    /// The template would give a gateway meta-tool's name ([`crate::META_TOOLS`]): the tool
    /// is exposed under `{server}__{tool}` instead.
    Reserved {
        server: ServerSlug,
        name: String,
        exposed: ExposedName,
    },
    /// Another server's entry already renders to this exposed name.
    Collision {
        server: ServerSlug,
        name: String,
        exposed: ExposedName,
        taken_by: ServerSlug,
    },
}

impl fmt::Display for NameConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameConflict::InvalidName { server, name } => write!(
                f,
                "server {server}: dropped {name:?}: names must match ^[a-zA-Z0-9_-]{{1,64}}$"
            ),
            NameConflict::DuplicateOnServer { server, name } => {
                write!(
                    f,
                    "server {server}: dropped second {name:?}: duplicate name"
                )
            }
            NameConflict::Reserved {
                server,
                name,
                exposed,
            } => write!(
                f,
                "server {server}: {name:?} exposed as {exposed:?}: its name is reserved for the gateway's search mode"
            ),
            NameConflict::Collision {
                server,
                name,
                exposed,
                taken_by,
            } => write!(
                f,
                "server {server}: dropped {name:?}: exposed name {exposed:?} is already used by server {taken_by}; use a naming template with {{server}}"
            ),
        }
    }
}

/// Exposed names for a set of (server, name) entries, and the way back.
#[derive(Debug, Clone, Default)]
pub struct NameTable {
    forward: HashMap<(ServerSlug, String), ExposedName>,
    reverse: HashMap<ExposedName, (ServerSlug, String)>,
}

impl NameTable {
    /// Names every entry it can, in order; what it cannot name is reported, never fatal.
    pub fn build<'a>(
        template: &NamingTemplate,
        entries: impl IntoIterator<Item = (&'a ServerSlug, &'a str)>,
    ) -> (Self, Vec<NameConflict>) {
        Self::build_reserving(template, entries, &[])
    }

    /// [`NameTable::build`] for tools: a name the template would turn into one of the
    /// gateway's meta-tools is given its server's prefix instead (reported as
    /// [`NameConflict::Reserved`]).
    pub fn build_tools<'a>(
        template: &NamingTemplate,
        entries: impl IntoIterator<Item = (&'a ServerSlug, &'a str)>,
    ) -> (Self, Vec<NameConflict>) {
        Self::build_reserving(template, entries, &crate::META_TOOLS)
    }

    fn build_reserving<'a>(
        template: &NamingTemplate,
        entries: impl IntoIterator<Item = (&'a ServerSlug, &'a str)>,
        reserved: &[&str],
    ) -> (Self, Vec<NameConflict>) {
        let mut table = Self::default();
        let mut conflicts = Vec::new();
        for (server, name) in entries {
            if !is_valid_tool_name(name) {
                conflicts.push(NameConflict::InvalidName {
                    server: server.clone(),
                    name: name.to_string(),
                });
                continue;
            }
            let key = (server.clone(), name.to_string());
            if table.forward.contains_key(&key) {
                conflicts.push(NameConflict::DuplicateOnServer {
                    server: server.clone(),
                    name: name.to_string(),
                });
                continue;
            }
            let mut exposed = template.render(server, name);
            if reserved.contains(&exposed.as_str()) {
                let prefixed = NamingTemplate::new(NamingTemplate::DEFAULT, template.max_len())
                    .unwrap_or_default();
                exposed = prefixed.render(server, name);
                conflicts.push(NameConflict::Reserved {
                    server: server.clone(),
                    name: name.to_string(),
                    exposed: exposed.clone(),
                });
            }
            if let Some((taken_by, _)) = table.reverse.get(&exposed) {
                conflicts.push(NameConflict::Collision {
                    server: server.clone(),
                    name: name.to_string(),
                    exposed,
                    taken_by: taken_by.clone(),
                });
                continue;
            }
            table.reverse.insert(exposed.clone(), key.clone());
            table.forward.insert(key, exposed);
        }
        (table, conflicts)
    }

    /// The (server, upstream name) an exposed name stands for.
    pub fn route(&self, exposed: &str) -> Option<(&ServerSlug, &str)> {
        self.reverse
            .get(exposed)
            .map(|(server, name)| (server, name.as_str()))
    }

    pub fn exposed(&self, server: &ServerSlug, name: &str) -> Option<&str> {
        self.forward
            .get(&(server.clone(), name.to_string()))
            .map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.forward.len()
    }

    pub fn is_empty(&self) -> bool {
        self.forward.is_empty()
    }
}
