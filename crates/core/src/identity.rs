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
    /// Opaque access tokens are checked at the issuer's introspection endpoint (RFC 7662)
    /// as this client.
    #[serde(default)]
    pub introspection: Option<Introspection>,
    /// Seconds an introspection answer is trusted (default 60; never past the token's
    /// `exp`; 0: ask the issuer on every request).
    #[serde(default)]
    pub introspection_cache_secs: Option<u64>,
    /// Servers with `credentials = "token_exchange"` trade this issuer's access tokens at its
    /// token endpoint (RFC 8693) as this client.
    #[serde(default)]
    pub token_exchange: Option<SignIn>,
}

/// The gateway's client at an issuer's introspection endpoint.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Introspection {
    pub client_id: String,
    /// Sent as HTTP Basic (`client_secret_basic`).
    #[serde(default)]
    pub client_secret: Option<String>,
    /// The endpoint; default: the `introspection_endpoint` of the issuer's metadata.
    #[serde(default)]
    pub endpoint: Option<String>,
    /// Accept an active token whose answer names no `aud` (for providers that never bind
    /// opaque tokens to a resource); otherwise such a token is refused.
    #[serde(default)]
    pub accept_without_audience: bool,
}

impl std::fmt::Debug for Introspection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Introspection")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("endpoint", &self.endpoint)
            .field("accept_without_audience", &self.accept_without_audience)
            .finish()
    }
}

/// How long an introspection answer is trusted when the issuer names no time.
pub const DEFAULT_INTROSPECTION_CACHE_SECS: u64 = 60;

/// The roles a claim may map to.
pub const ROLES: [&str; 4] = [
    "integrations:view",
    "integrations:manage",
    "gateway:operate",
    crate::end_user::ASSERT_ROLE,
];
/// Asymmetric JWS algorithms an issuer may pin.
const ALGORITHMS: [&str; 11] = [
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA", "ES512",
    "Ed25519",
];

/// One thing wrong with an issuer's spec: the key, the problem and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecProblem {
    pub key: &'static str,
    pub problem: String,
    pub fix: String,
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
            introspection: None,
            introspection_cache_secs: None,
            token_exchange: None,
        }
    }

    /// What is wrong with this spec, for any issuer: its URL, algorithms and role names.
    pub fn problems(&self) -> Vec<SpecProblem> {
        let mut problems = Vec::new();
        let mut add = |key, problem: String, fix: &str| {
            problems.push(SpecProblem {
                key,
                problem,
                fix: fix.into(),
            })
        };
        let is_web_url =
            |u: &str| url::Url::parse(u).is_ok_and(|url| matches!(url.scheme(), "https" | "http"));
        if !is_web_url(&self.issuer) {
            add(
                "issuer",
                format!("{:?} is not an https URL", self.issuer),
                "write the issuer exactly as its tokens' iss says, e.g. \"https://login.example.com/realms/acme\"",
            );
        }
        for alg in &self.algorithms {
            if !ALGORITHMS.contains(&alg.as_str()) {
                add(
                    "algorithms",
                    format!("{alg:?} is not an asymmetric JWS algorithm"),
                    "write e.g. [\"RS256\"]; HMAC and none are never accepted",
                );
            }
        }
        for (value, role) in self.claims.roles.iter().flat_map(|r| &r.map) {
            if !ROLES.contains(&role.as_str()) {
                add(
                    "roles",
                    format!("the claim value {value:?} maps to the unknown role {role:?}"),
                    &format!("map it to one of {}", ROLES.join(", ")),
                );
            }
        }
        if let Some(endpoint) = self
            .introspection
            .as_ref()
            .and_then(|i| i.endpoint.as_ref())
            && !is_web_url(endpoint)
        {
            add(
                "introspection",
                format!("the endpoint {endpoint:?} is not an https URL"),
                "write the full URL, or leave endpoint out to use the issuer's metadata",
            );
        }
        problems
    }

    /// What an org's own issuer may not do besides [`IssuerSpec::problems`]: choose the
    /// org, grant `gateway:operate`, or sign people in.
    pub fn org_problems(&self) -> Vec<SpecProblem> {
        let mut problems = self.problems();
        if self.claims.org.is_some() {
            problems.push(SpecProblem {
                key: "claims",
                problem: "an org's issuer maps into that org only, so it cannot take the org from a claim".into(),
                fix: "remove claims.org (only issuers in the operator's config choose the org)".into(),
            });
        }
        let roles = || self.claims.roles.iter().flat_map(|r| r.map.values());
        for reserved in ["gateway:operate", crate::end_user::ASSERT_ROLE] {
            if roles().any(|role| role == reserved) {
                problems.push(SpecProblem {
                    key: "roles",
                    problem: format!("an org's issuer cannot grant {reserved}"),
                    fix: "map claim values to integrations:view or integrations:manage".into(),
                });
            }
        }
        if self.sign_in.is_some() {
            problems.push(SpecProblem {
                key: "sign_in",
                problem: "people sign in through the operator's issuers only".into(),
                fix: "remove sign_in, and add the sign-in client to the operator's [[identity.issuers]]".into(),
            });
        }
        if self.token_exchange.is_some() {
            problems.push(SpecProblem {
                key: "token_exchange",
                problem: "tokens are exchanged at the operator's issuers only".into(),
                fix: "remove token_exchange, and add the exchange client to the operator's [[identity.issuers]]".into(),
            });
        }
        problems
    }

    /// Seconds an introspection answer is trusted.
    pub fn introspection_cache_secs(&self) -> u64 {
        (self.introspection_cache_secs).unwrap_or(DEFAULT_INTROSPECTION_CACHE_SECS)
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
