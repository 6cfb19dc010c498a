//! Opaque access tokens checked at their issuer's introspection endpoint (RFC 7662): the
//! answer must say `active`, name this issuer (when it names one), an audience of the
//! endpoint reached (unless the issuer's config accepts none), and no sender constraint.

use crate::claims::{Verified, map, values_at};
use crate::error::TokenError;
use crate::verify::Issuer;
use serde_json::{Map, Value};

/// Token types an introspection answer may name for a bearer access token.
const BEARER_TYPES: [&str; 3] = [
    "bearer",
    "access_token",
    "urn:ietf:params:oauth:token-type:access_token",
];

impl Issuer {
    /// Whether this issuer checks opaque tokens.
    pub(crate) fn introspects(&self) -> bool {
        self.spec.introspection.is_some()
    }

    /// The opaque `token` as its issuer's introspection endpoint describes it, checked for one
    /// of `audiences`; with the time until which the answer may be trusted.
    pub(crate) async fn introspect(
        &self,
        token: &str,
        audiences: &[String],
    ) -> Result<(Verified, u64), TokenError> {
        let Some(client) = &self.spec.introspection else {
            return Err(TokenError::Introspection(
                "this issuer has no introspection client".into(),
            ));
        };
        let endpoint = match &client.endpoint {
            Some(endpoint) => endpoint.clone(),
            None => (self.keys.metadata().await)
                .map_err(TokenError::IssuerUnavailable)?
                .introspection_endpoint
                .ok_or_else(|| {
                    TokenError::IssuerUnavailable(format!(
                        "{} publishes no introspection_endpoint: set introspection.endpoint",
                        self.spec.issuer
                    ))
                })?,
        };
        let secret = client.client_secret.as_deref().unwrap_or("");
        let form = [("token", token), ("token_type_hint", "access_token")];
        let answer = (self.keys.fetcher())
            .post_form_as(&endpoint, &form, Some((&client.client_id, secret)))
            .await
            .map_err(TokenError::IssuerUnavailable)?;
        let Value::Object(claims) = answer else {
            return Err(TokenError::Introspection(
                "its answer is not a JSON object".into(),
            ));
        };
        self.check_answer(claims, audiences)
    }

    /// An introspection answer checked; the mapped token and how long it may be trusted.
    fn check_answer(
        &self,
        claims: Map<String, Value>,
        audiences: &[String],
    ) -> Result<(Verified, u64), TokenError> {
        let accept_without_audience =
            (self.spec.introspection.as_ref()).is_some_and(|c| c.accept_without_audience);
        match claims.get("active") {
            Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => return Err(TokenError::Inactive),
            _ => {
                return Err(TokenError::Introspection(
                    "its answer has no boolean active".into(),
                ));
            }
        }
        if let Some(iss) = claims.get("iss")
            && iss.as_str() != Some(self.spec.issuer.as_str())
        {
            return Err(TokenError::Introspection(format!(
                "its answer names the issuer {iss}, not {}",
                self.spec.issuer
            )));
        }
        if let Some(kind) = claims.get("token_type").and_then(Value::as_str)
            && !BEARER_TYPES.contains(&kind.to_ascii_lowercase().as_str())
        {
            return Err(TokenError::NotAccessToken(
                "the issuer describes it as another kind of token than a bearer access token",
            ));
        }
        if claims.contains_key("cnf") {
            return Err(TokenError::NotAccessToken(
                "it is bound to a key (cnf: DPoP or mTLS), whose proof this gateway does not check",
            ));
        }
        let named = values_at(&claims, "aud");
        if named.is_empty() && !accept_without_audience {
            return Err(TokenError::Audience {
                found: "(none: the issuer's answer names no aud; set introspection.accept_without_audience if it never does)".into(),
                expected: audiences[0].clone(),
            });
        }
        if !named.is_empty() && !named.iter().any(|a| audiences.contains(a)) {
            return Err(TokenError::Audience {
                found: named.join(" "),
                expected: audiences[0].clone(),
            });
        }
        let now = jsonwebtoken::get_current_timestamp();
        let leeway = self.leeway();
        let time = |name: &str| claims.get(name).and_then(Value::as_u64);
        if time("exp").is_some_and(|exp| exp + leeway <= now) {
            return Err(TokenError::Expired);
        }
        if time("nbf").is_some_and(|nbf| nbf > now + leeway) {
            return Err(TokenError::NotYetValid("its nbf is ahead"));
        }
        let trusted_until = now + self.spec.introspection_cache_secs();
        let until = time("exp").map_or(trusted_until, |exp| exp.min(trusted_until));
        let expires_at = time("exp").unwrap_or(trusted_until);
        Ok((map(&self.spec, &claims, expires_at), until))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::KeyCache;
    use serde_json::json;
    use std::sync::Arc;
    use switchboard_core::{Introspection, IssuerSpec};

    fn issuer(accept_without_audience: bool, cache: Option<u64>) -> Issuer {
        let mut spec = IssuerSpec::new("https://idp.example.com");
        spec.introspection = Some(Introspection {
            client_id: "gateway".into(),
            client_secret: None,
            endpoint: None,
            accept_without_audience,
        });
        spec.introspection_cache_secs = cache;
        let fetcher = crate::Fetcher::new(switchboard_egress::EgressPolicy::default());
        Issuer {
            keys: Arc::new(KeyCache::new(spec.issuer.clone(), fetcher)),
            spec: Arc::new(spec),
            algorithms: Vec::new(),
        }
    }

    fn answer(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    const RESOURCE: &str = "https://mcp.example.com/mcp";

    #[test]
    fn an_answer_is_trusted_only_when_active_for_this_resource() {
        let now = jsonwebtoken::get_current_timestamp();
        let aud = [RESOURCE.to_string()];
        let i = issuer(false, None);
        let ok = |v: Value| i.check_answer(answer(v), &aud);
        let (token, until) = ok(json!({"active": true, "sub": "u1", "aud": RESOURCE,
            "iss": "https://idp.example.com", "exp": now + 3600, "token_type": "Bearer"}))
        .unwrap();
        assert_eq!(token.end_user.as_deref(), Some("u1"));
        assert!(
            until <= now + 61 && until >= now + 59,
            "cached 60 s by default"
        );
        // Never trusted past exp.
        let (_, until) = ok(json!({"active": true, "aud": [RESOURCE], "exp": now + 5})).unwrap();
        assert_eq!(until, now + 5);
        let refused = |v: Value| ok(v).unwrap_err().reason();
        assert_eq!(refused(json!({"active": false})), "inactive");
        assert_eq!(
            refused(json!({"sub": "u1", "aud": RESOURCE})),
            "introspection"
        );
        assert_eq!(
            refused(json!({"active": "true", "aud": RESOURCE})),
            "introspection"
        );
        assert_eq!(refused(json!({"active": true})), "audience");
        assert_eq!(
            refused(json!({"active": true, "aud": "https://other.example.com/mcp"})),
            "audience"
        );
        assert_eq!(
            refused(json!({"active": true, "aud": RESOURCE, "iss": "https://evil.example.com"})),
            "introspection"
        );
        assert_eq!(
            refused(json!({"active": true, "aud": RESOURCE, "exp": now - 3600})),
            "expired"
        );
        assert_eq!(
            refused(json!({"active": true, "aud": RESOURCE, "token_type": "refresh_token"})),
            "not_access_token"
        );
        assert_eq!(
            refused(json!({"active": true, "aud": RESOURCE, "cnf": {"jkt": "x"}})),
            "not_access_token"
        );
    }

    #[test]
    fn an_answer_without_audience_passes_only_where_configured() {
        let aud = [RESOURCE.to_string()];
        let i = issuer(true, Some(0));
        let (_, until) = i
            .check_answer(answer(json!({"active": true, "sub": "u"})), &aud)
            .unwrap();
        assert!(
            until <= jsonwebtoken::get_current_timestamp(),
            "cache 0: not kept"
        );
    }
}
