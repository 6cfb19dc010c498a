//! `/api/integrations/mcp/servers` bodies: connecting a server and changing one.

use crate::BodyError;
use crate::credentials::Credentials;
use serde::Deserialize;

/// The longest display name a server may have, in characters.
pub const MAX_NAME: usize = 100;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateServer {
    pub name: String,
    pub slug: String,
    pub url: String,
    #[serde(default = "auth_none")]
    pub auth_method: String,
    pub credentials: Option<Credentials>,
}

fn auth_none() -> String {
    "none".into()
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateServer {
    pub name: Option<String>,
    pub url: Option<String>,
    pub auth_method: Option<String>,
    pub credentials: Option<Credentials>,
}

/// A display name: not blank, at most [`MAX_NAME`] characters.
pub fn validate_name(name: &str) -> Result<(), BodyError> {
    if name.trim().is_empty() || name.chars().count() > MAX_NAME {
        return Err(BodyError(format!(
            "name must be 1 to {MAX_NAME} characters"
        )));
    }
    Ok(())
}
