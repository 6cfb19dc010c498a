//! A verified token's claims mapped onto the gateway's model: org, roles, agent, end user and
//! scopes, as its issuer's [`ClaimMapping`] says.

use serde_json::{Map, Value};
use std::sync::Arc;
use switchboard_core::{ClaimMapping, IssuerSpec};

/// The role a token gets when its issuer maps none.
pub const DEFAULT_ROLE: &str = "integrations:view";

/// Who a verified access token stands for.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The issuer's spec (its required scopes, its mapping).
    pub spec: Arc<IssuerSpec>,
    pub subject: String,
    /// The org's name, from the mapping's `org` claim.
    pub org: Option<String>,
    pub roles: Vec<String>,
    pub agent: Option<String>,
    pub end_user: Option<String>,
    pub scopes: Vec<String>,
    /// `exp`, in seconds since the epoch.
    pub expires_at: u64,
}

impl Verified {
    /// `issuer#subject`: who the token is, for audit rows and session binding.
    pub fn principal(&self) -> String {
        format!("{}#{}", self.spec.issuer, self.subject)
    }

    /// Whether the mapped roles hold `role` (manage implies view).
    pub fn has_role(&self, role: &str) -> bool {
        let has = |r: &str| self.roles.iter().any(|t| t == r);
        has(role) || (role == DEFAULT_ROLE && has("integrations:manage"))
    }

    /// `Err(InsufficientScope)` naming the scopes of `needed` the token lacks.
    pub fn require_scopes(&self, needed: &[String]) -> Result<(), crate::TokenError> {
        let missing: Vec<&str> = (needed.iter())
            .filter(|s| !self.scopes.contains(s))
            .map(String::as_str)
            .collect();
        match missing.is_empty() {
            true => Ok(()),
            false => Err(crate::TokenError::InsufficientScope {
                missing: missing.join(" "),
                needed: needed.to_vec(),
            }),
        }
    }
}

/// The mapped identity of a token whose signature and times were checked.
pub(crate) fn map(
    spec: &Arc<IssuerSpec>,
    claims: &Map<String, Value>,
    expires_at: u64,
) -> Verified {
    let mapping: &ClaimMapping = &spec.claims;
    let one = |name: &Option<String>| name.as_deref().and_then(|n| string_at(claims, n));
    let roles = match &mapping.roles {
        Some(roles) => values_at(claims, &roles.claim)
            .iter()
            .filter_map(|v| roles.map.get(v).cloned())
            .collect(),
        None => vec![DEFAULT_ROLE.to_string()],
    };
    let mut scopes = values_at(claims, "scope");
    scopes.extend(values_at(claims, "scp"));
    Verified {
        spec: spec.clone(),
        // A client-credentials token has no `sub`: its client is who it is.
        subject: (string_at(claims, "sub").or_else(|| string_at(claims, "client_id")))
            .unwrap_or_default(),
        org: one(&mapping.org),
        roles,
        agent: one(&mapping.agent),
        end_user: one(&mapping.end_user),
        scopes,
        expires_at,
    }
}

/// The claim named `path`, or else at the dotted path (`realm_access.roles`).
fn at<'c>(claims: &'c Map<String, Value>, path: &str) -> Option<&'c Value> {
    if let Some(value) = claims.get(path) {
        return Some(value);
    }
    let mut parts = path.split('.');
    let mut value = claims.get(parts.next()?)?;
    for part in parts {
        value = value.get(part)?;
    }
    Some(value)
}

/// A claim as one string (numbers as written).
fn string_at(claims: &Map<String, Value>, path: &str) -> Option<String> {
    match at(claims, path)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A claim's values: a list of strings, or a space-separated string (`scope`).
pub(crate) fn values_at(claims: &Map<String, Value>, path: &str) -> Vec<String> {
    match at(claims, path) {
        Some(Value::String(s)) => s.split_whitespace().map(String::from).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_core::RoleMapping;

    #[test]
    fn claims_map_onto_org_roles_agent_and_end_user() {
        let mut spec = IssuerSpec::new("https://idp.example.com");
        spec.claims.org = Some("tenant.name".into());
        spec.claims.agent = Some("azp".into());
        spec.claims.roles = Some(RoleMapping {
            claim: "groups".into(),
            map: [("mcp-admins".to_string(), "gateway:operate".to_string())].into(),
        });
        let claims = serde_json::json!({
            "sub": "u-1", "azp": "agent-7", "tenant": {"name": "acme"},
            "groups": ["mcp-admins", "other"], "scope": "mcp:tools openid", "scp": ["x"],
            "https://example.com/team": "blue"
        });
        let v = map(&Arc::new(spec), claims.as_object().unwrap(), 10);
        assert_eq!(v.org.as_deref(), Some("acme"));
        assert_eq!(v.agent.as_deref(), Some("agent-7"));
        assert_eq!(v.end_user.as_deref(), Some("u-1"));
        assert_eq!(v.roles, ["gateway:operate"]);
        assert_eq!(v.scopes, ["mcp:tools", "openid", "x"]);
        assert_eq!(v.principal(), "https://idp.example.com#u-1");
        // A namespaced claim (Auth0) is found by its whole name before any dotted path.
        assert_eq!(
            string_at(claims.as_object().unwrap(), "https://example.com/team").as_deref(),
            Some("blue")
        );
    }

    #[test]
    fn without_a_role_mapping_a_token_may_view() {
        let spec = Arc::new(IssuerSpec::new("https://idp.example.com"));
        let v = map(
            &spec,
            serde_json::json!({"sub": "u"}).as_object().unwrap(),
            10,
        );
        assert!(v.has_role("integrations:view"));
        assert!(!v.has_role("integrations:manage"));
        assert_eq!(v.org, None);
    }
}
