//! Safe names: server slugs, action ids, exposed tool names from a template, and routing back.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// Longest exposed name allowed by default (the common model-provider limit).
pub const DEFAULT_MAX_NAME_LEN: usize = 64;
/// Longest exposed name a template may be configured to produce.
pub const MAX_NAME_LEN_LIMIT: usize = 128;
const SLUG_MAX: usize = 32;
const HASH_HEX: usize = 8;

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,max}$`.
pub fn is_valid_name(name: &str, max: usize) -> bool {
    !name.is_empty()
        && name.len() <= max
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether an upstream tool name is acceptable (`^[a-zA-Z0-9_-]{1,64}$`).
/// An HTTP header name (RFC 9110 token characters), at most 100 of them.
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

pub fn is_valid_tool_name(name: &str) -> bool {
    is_valid_name(name, DEFAULT_MAX_NAME_LEN)
}

/// A server's name: `^[a-z][a-z0-9_]{0,31}$`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ServerSlug(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid server name {name:?}: use 1-32 characters, a lowercase letter first, then lowercase letters, digits or '_'"
)]
pub struct InvalidSlug {
    pub name: String,
}

impl ServerSlug {
    /// Accepts exactly the slug form, as the REST API does.
    pub fn parse(name: &str) -> Result<Self, InvalidSlug> {
        let ok = name.len() <= SLUG_MAX
            && name.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if ok {
            Ok(Self(name.to_string()))
        } else {
            Err(InvalidSlug {
                name: name.to_string(),
            })
        }
    }

    /// Turns a config key such as `My-Server.v2` into a slug (`my_server_v2`).
    pub fn normalize(key: &str) -> Result<Self, InvalidSlug> {
        let mut out = String::with_capacity(key.len());
        for c in key.chars() {
            let c = c.to_ascii_lowercase();
            let c = if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '_'
            };
            if !(c == '_' && (out.is_empty() || out.ends_with('_'))) {
                out.push(c);
            }
        }
        while out.ends_with('_') {
            out.pop();
        }
        if out.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            out.insert_str(0, "s_");
        }
        out.truncate(SLUG_MAX);
        while out.ends_with('_') {
            out.pop();
        }
        Self::parse(&out).map_err(|_| InvalidSlug {
            name: key.to_string(),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ServerSlug {
    type Error = InvalidSlug;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<ServerSlug> for String {
    fn from(value: ServerSlug) -> Self {
        value.0
    }
}

impl fmt::Display for ServerSlug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `mcp.<server>.<tool>`: what policies, audit rows and agent toggles refer to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ActionId(String);

impl ActionId {
    pub fn new(server: &ServerSlug, tool: &str) -> Self {
        Self(format!("mcp.{server}.{tool}"))
    }

    /// Splits `mcp.<server>.<tool>` back into its parts.
    pub fn parse(id: &str) -> Option<(ServerSlug, String)> {
        let rest = id.strip_prefix("mcp.")?;
        let (server, tool) = rest.split_once('.')?;
        Some((ServerSlug::parse(server).ok()?, tool.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ActionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A model-facing name produced by a [`NamingTemplate`].
pub type ExposedName = String;

/// How exposed names are built from server and tool names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamingTemplate {
    template: String,
    pieces: Vec<Piece>,
    max_len: usize,
}

/// One part of a parsed template: read once, left to right, so a literal can never combine
/// with a placeholder into another placeholder (`{tool}{{server}tool}` is refused).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Server,
    Tool,
    Literal(String),
}

fn parse_pieces(template: &str) -> Option<Vec<Piece>> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("{server}") {
            pieces.push(Piece::Server);
            rest = after;
        } else if let Some(after) = rest.strip_prefix("{tool}") {
            pieces.push(Piece::Tool);
            rest = after;
        } else {
            let b = rest.as_bytes()[0];
            if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
                return None;
            }
            match pieces.last_mut() {
                Some(Piece::Literal(text)) => text.push(b as char),
                _ => pieces.push(Piece::Literal((b as char).to_string())),
            }
            rest = &rest[1..];
        }
    }
    Some(pieces)
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("naming template {0:?} must contain {{tool}}")]
    MissingTool(String),
    #[error(
        "naming template {0:?} may only contain {{server}}, {{tool}}, letters, digits, '_' and '-'"
    )]
    BadCharacters(String),
    #[error("name length limit {0} is out of range: use 16 to 128")]
    BadLimit(usize),
}

impl Default for NamingTemplate {
    fn default() -> Self {
        Self::parse(Self::DEFAULT).expect("the default template is valid")
    }
}

impl NamingTemplate {
    pub const DEFAULT: &'static str = "{server}__{tool}";
    pub const PRESETS: [&'static str; 3] = ["{server}__{tool}", "mcp__{server}__{tool}", "{tool}"];

    pub fn new(template: &str, max_len: usize) -> Result<Self, TemplateError> {
        if !(16..=MAX_NAME_LEN_LIMIT).contains(&max_len) {
            return Err(TemplateError::BadLimit(max_len));
        }
        let Some(pieces) = parse_pieces(template) else {
            return Err(TemplateError::BadCharacters(template.to_string()));
        };
        if !pieces.contains(&Piece::Tool) {
            return Err(TemplateError::MissingTool(template.to_string()));
        }
        Ok(Self {
            template: template.to_string(),
            pieces,
            max_len,
        })
    }

    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        Self::new(template, DEFAULT_MAX_NAME_LEN)
    }

    pub fn as_str(&self) -> &str {
        &self.template
    }

    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// What every exposed name of `server` starts with (the template up to `{tool}`); empty
    /// for templates that start with the tool name.
    pub fn prefix(&self, server: &ServerSlug) -> String {
        let head = self
            .pieces
            .iter()
            .take_while(|piece| **piece != Piece::Tool);
        Self::fill(head, server, "")
    }

    fn fill<'a>(
        pieces: impl Iterator<Item = &'a Piece>,
        server: &ServerSlug,
        tool: &str,
    ) -> String {
        pieces.fold(String::new(), |mut name, piece| {
            name.push_str(match piece {
                Piece::Server => server.as_str(),
                Piece::Tool => tool,
                Piece::Literal(text) => text,
            });
            name
        })
    }

    /// The exposed name for one tool: the template filled in, shortened with a stable hash
    /// suffix when it would exceed the length limit.
    pub fn render(&self, server: &ServerSlug, tool: &str) -> ExposedName {
        let full = Self::fill(self.pieces.iter(), server, tool);
        if full.len() <= self.max_len {
            return full;
        }
        let mut hasher = Sha256::new();
        hasher.update(server.as_str().as_bytes());
        hasher.update([0]);
        hasher.update(tool.as_bytes());
        let digest = hex::encode(hasher.finalize());
        // All characters are ASCII here, so byte slicing is safe.
        let keep = self.max_len - HASH_HEX - 1;
        format!("{}_{}", &full[..keep], &digest[..HASH_HEX])
    }
}

mod table;
pub use table::{NameConflict, NameTable};

#[cfg(test)]
mod tests;
