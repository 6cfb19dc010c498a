//! The issuers whose access tokens the gateway accepts, and how their claims map onto the
//! gateway's model (org, roles, agent, end user): what config files and the REST API declare.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Signing algorithms accepted when an issuer names none: asymmetric ones only (never
/// `none`, never HMAC, whose key would be a secret shared with every client).
pub const DEFAULT_ALGORITHMS: [&str; 4] = ["RS256", "PS256", "ES256", "EdDSA"];

/// One trusted issuer of access tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssuerSpec {
    /// The exact `iss` of its tokens; its discovery document lives under it.
    pub issuer: String,
    /// Audiences accepted besides the canonical resource URI of the endpoint reached (for
    /// providers that ignore RFC 8707, e.g. Entra's `api://…`, Auth0's API identifier).
    #[serde(default)]
    pub audiences: Vec<String>,
    /// The `alg` values accepted (asymmetric only); empty means [`DEFAULT_ALGORITHMS`].
    #[serde(default)]
    pub algorithms: Vec<String>,
    /// Accept only tokens typed `at+jwt` (RFC 9068), for issuers that type theirs.
    #[serde(default)]
    pub require_at_jwt: bool,
    /// Seconds of clock difference tolerated on `exp`, `nbf` and `iat` (default 60).
    #[serde(default)]
    pub leeway_secs: Option<u64>,
    #[serde(default)]
    pub claims: ClaimMapping,
    /// Scopes a token must hold per surface.
    #[serde(default)]
    pub scopes: RequiredScopes,
    /// People sign in to the dashboard and REST through this issuer (OpenID Connect,
    /// authorization code + PKCE) as this client.
    #[serde(default)]
    pub sign_in: Option<SignIn>,
}

/// The gateway's own client at an issuer, for people's sign-in.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignIn {
    pub client_id: String,
    /// Sent as `client_secret_post`; none for a public client (PKCE alone).
    #[serde(default)]
    pub client_secret: Option<String>,
    /// Scopes asked besides `openid`.
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIn")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("scopes", &self.scopes)
            .finish()
    }
}

impl IssuerSpec {
    /// A spec for `issuer` with every default.
    pub fn new(issuer: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audiences: Vec::new(),
            algorithms: Vec::new(),
            require_at_jwt: false,
            leeway_secs: None,
            claims: ClaimMapping::default(),
            scopes: RequiredScopes::default(),
            sign_in: None,
        }
    }

    /// The algorithms in force.
    pub fn algorithms(&self) -> Vec<String> {
        match self.algorithms.is_empty() {
            true => DEFAULT_ALGORITHMS.iter().map(|a| a.to_string()).collect(),
            false => self.algorithms.clone(),
        }
    }
}

/// Which claim gives each part of the gateway's model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimMapping {
    /// The org's name (operator-configured issuers only); none: the operator's endpoint.
    #[serde(default)]
    pub org: Option<String>,
    /// The end user (default `sub`).
    #[serde(default = "default_end_user")]
    pub end_user: Option<String>,
    /// The agent (e.g. `azp` or `client_id`): the token may use only that agent's endpoint.
    #[serde(default)]
    pub agent: Option<String>,
    /// Roles from a claim's values; without it a token gets `integrations:view`.
    #[serde(default)]
    pub roles: Option<RoleMapping>,
}

fn default_end_user() -> Option<String> {
    Some("sub".into())
}

impl Default for ClaimMapping {
    fn default() -> Self {
        Self {
            org: None,
            end_user: default_end_user(),
            agent: None,
            roles: None,
        }
    }
}

/// A claim's values (a string, a list, or a space-separated string) mapped to roles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleMapping {
    pub claim: String,
    /// Claim value → role.
    #[serde(default)]
    pub map: BTreeMap<String, String>,
}

/// Scopes a token must hold, per surface (each empty: none needed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequiredScopes {
    /// `/mcp` and the agent endpoints.
    #[serde(default)]
    pub mcp: Vec<String>,
    /// The REST API and the dashboard.
    #[serde(default)]
    pub api: Vec<String>,
    /// `/metrics`.
    #[serde(default)]
    pub metrics: Vec<String>,
}

/// Where a call's end user came from, as its audit row says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndUserSource {
    /// A claim of the caller's verified access token.
    Token,
    /// Named by the caller in the request (`_meta`, `end_user_id`, `--end-user`).
    Asserted,
}

impl EndUserSource {
    pub fn as_str(self) -> &'static str {
        match self {
            EndUserSource::Token => "token",
            EndUserSource::Asserted => "asserted",
        }
    }
}
