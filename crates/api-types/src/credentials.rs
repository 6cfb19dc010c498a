//! Credentials of API-added servers: what each `auth_method` needs, checked.

use crate::BodyError;
use serde::{Deserialize, Serialize};
use switchboard_core::{OAuthClient, OAuthSpec};

pub const MAX_SECRET: usize = 8000;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    pub token: Option<String>,
    pub access_token: Option<String>,
    pub refresh_token: Option<String>,
    /// apiKey: the key, the header it goes in (default `Authorization`) and its prefix.
    pub key: Option<String>,
    pub header_name: Option<String>,
    pub value_prefix: Option<String>,
    /// OAuth: the client, the token endpoint, the scopes, a client ID metadata document.
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub token_url: Option<String>,
    pub scopes: Option<Vec<String>>,
    pub client_metadata_url: Option<String>,
    /// Each end user sends their own token or key (bearer and apiKey); one given here is only
    /// used to list the server's tools.
    pub per_end_user: Option<bool>,
    /// With `per_end_user`: end users asserted by a caller holding `end_users:assert` pick
    /// their credential (an access token's end user always does).
    pub trust_asserted_end_users: Option<bool>,
}

/// What a server's requests carry upstream, from its auth method and credentials.
#[derive(Debug, Default)]
pub struct UpstreamAuth {
    pub bearer: Option<String>,
    pub header: Option<(String, String)>,
    pub oauth: Option<OAuthSpec>,
    /// `per_end_user`: where each end user's own secret goes.
    pub end_users: Option<switchboard_core::EndUserCredentials>,
}

/// What to send upstream for `auth_method`, checked against the credentials given.
pub fn upstream_auth(
    auth_method: &str,
    credentials: Option<&Credentials>,
) -> Result<UpstreamAuth, BodyError> {
    let bearer = |token: String| UpstreamAuth {
        bearer: Some(token),
        ..UpstreamAuth::default()
    };
    let secret = |field: &str, value: Option<&String>| -> Result<String, BodyError> {
        match value {
            Some(v) if v.chars().any(char::is_control) => Err(control_character(field)),
            Some(v) if !v.is_empty() && v.len() <= MAX_SECRET => Ok(v.clone()),
            Some(v) if v.len() > MAX_SECRET => Err(BodyError(format!(
                "credentials.{field} is {} characters; at most {MAX_SECRET} are allowed",
                v.len()
            ))),
            _ => Err(BodyError(format!(
                "auth_method {auth_method} needs credentials.{field}"
            ))),
        }
    };
    let per_end_user = credentials.and_then(|c| c.per_end_user) == Some(true);
    let trust_asserted = credentials.and_then(|c| c.trust_asserted_end_users);
    if per_end_user {
        return per_end_user_auth(auth_method, credentials, trust_asserted == Some(true));
    }
    if trust_asserted.is_some() {
        return Err(BodyError(
            "credentials.trust_asserted_end_users applies only with credentials.per_end_user = true".into(),
        ));
    }
    match (auth_method, credentials) {
        ("none", _) => Ok(UpstreamAuth::default()),
        ("bearer", c) => secret("token", c.and_then(|c| c.token.as_ref())).map(bearer),
        ("apiKey", c) => {
            let key = secret("key", c.and_then(|c| c.key.as_ref()))?;
            let name = c
                .and_then(|c| c.header_name.clone())
                .unwrap_or_else(|| "Authorization".into());
            if !switchboard_core::names::is_header_name(&name) {
                return Err(BodyError(format!(
                    "credentials.header_name {name:?} is not an HTTP header name; use letters, digits and '-', e.g. \"X-API-Key\""
                )));
            }
            let prefix = c.and_then(|c| c.value_prefix.clone()).unwrap_or_default();
            if prefix.len() > 100 || prefix.chars().any(char::is_control) {
                return Err(BodyError(
                    "credentials.value_prefix must be at most 100 characters, none of them control characters".into(),
                ));
            }
            Ok(UpstreamAuth {
                header: Some((name, format!("{prefix}{key}"))),
                ..UpstreamAuth::default()
            })
        }
        ("oauth2" | "clientCredentials" | "authorizationCode", c) => {
            let empty = Credentials::default();
            oauth_spec(auth_method, c.unwrap_or(&empty)).map(|spec| UpstreamAuth {
                oauth: Some(spec),
                ..UpstreamAuth::default()
            })
        }
        (other, _) => Err(BodyError(format!(
            "auth_method {other:?} is not supported; use none, bearer, apiKey, oauth2, clientCredentials or authorizationCode"
        ))),
    }
}

/// `per_end_user` credentials: authorizationCode (each end user authorizes in their browser),
/// or bearer or apiKey, whose token or key (if given) only lists the
/// server's tools; each end user's own goes in the same header.
fn per_end_user_auth(
    auth_method: &str,
    credentials: Option<&Credentials>,
    trust_asserted: bool,
) -> Result<UpstreamAuth, BodyError> {
    let given = |c: &Credentials| match auth_method {
        "bearer" => c.token.is_some(),
        _ => c.key.is_some(),
    };
    let mut auth = match (auth_method, credentials) {
        ("bearer" | "apiKey", Some(c)) if given(c) => {
            let plain = Credentials {
                per_end_user: None,
                trust_asserted_end_users: None,
                ..c.clone()
            };
            upstream_auth(auth_method, Some(&plain))?
        }
        ("bearer" | "apiKey", _) => UpstreamAuth::default(),
        ("authorizationCode", c) => {
            let plain = Credentials {
                per_end_user: None,
                trust_asserted_end_users: None,
                ..c.cloned().unwrap_or_default()
            };
            if plain.access_token.is_some() || plain.refresh_token.is_some() {
                return Err(BodyError(
                    "credentials.per_end_user with authorizationCode keeps each end user's own tokens, got in their browser: remove access_token and refresh_token".into(),
                ));
            }
            upstream_auth(auth_method, Some(&plain))?
        }
        (other, _) => {
            return Err(BodyError(format!(
                "credentials.per_end_user needs auth_method authorizationCode, bearer or apiKey (got {other}): one client's token would act for every end user"
            )));
        }
    };
    let oauth = auth_method == "authorizationCode";
    let c = credentials.cloned().unwrap_or_default();
    let (header, prefix) = match auth_method {
        "bearer" | "authorizationCode" => ("Authorization".to_string(), "Bearer ".to_string()),
        _ => (
            c.header_name.unwrap_or_else(|| "Authorization".into()),
            c.value_prefix.unwrap_or_default(),
        ),
    };
    if !switchboard_core::names::is_header_name(&header) {
        return Err(BodyError(format!(
            "credentials.header_name {header:?} is not an HTTP header name; use letters, digits and '-', e.g. \"X-API-Key\""
        )));
    }
    auth.end_users = Some(switchboard_core::EndUserCredentials {
        header,
        prefix,
        trust_asserted,
        exchange: false,
        oauth,
    });
    Ok(auth)
}

/// The OAuth settings of `auth_method`, checked: every secret at most [`MAX_SECRET`]
/// characters, URLs that the token endpoint and metadata document can be.
fn oauth_spec(auth_method: &str, c: &Credentials) -> Result<OAuthSpec, BodyError> {
    let optional = |field: &str, value: &Option<String>| -> Result<Option<String>, BodyError> {
        match value {
            Some(v) if v.is_empty() || v.len() > MAX_SECRET => Err(BodyError(format!(
                "credentials.{field} must be 1 to {MAX_SECRET} characters"
            ))),
            Some(v) if v.chars().any(char::is_control) => Err(control_character(field)),
            other => Ok(other.clone()),
        }
    };
    let required = |field: &str, value: &Option<String>| -> Result<String, BodyError> {
        optional(field, value)?.ok_or_else(|| {
            BodyError(format!(
                "auth_method {auth_method} needs credentials.{field}"
            ))
        })
    };
    let client = match optional("client_id", &c.client_id)? {
        Some(id) => Some(OAuthClient {
            id,
            secret: optional("client_secret", &c.client_secret)?,
        }),
        None if c.client_secret.is_some() => {
            return Err(BodyError(
                "credentials.client_secret needs credentials.client_id".into(),
            ));
        }
        None => None,
    };
    let token_url = optional("token_url", &c.token_url)?;
    if let Some(url) = &token_url
        && url::Url::parse(url).is_err()
    {
        return Err(BodyError(format!(
            "credentials.token_url {url:?} is not a URL"
        )));
    }
    let scopes = c.scopes.clone().unwrap_or_default();
    if scopes.iter().any(|s| s.is_empty() || s.contains(' ')) {
        return Err(BodyError(
            "credentials.scopes must be a list of single scopes, e.g. [\"read\", \"write\"]".into(),
        ));
    }
    match auth_method {
        "oauth2" => Ok(OAuthSpec::Tokens {
            access_token: required("access_token", &c.access_token)?,
            refresh_token: optional("refresh_token", &c.refresh_token)?,
            client,
            token_url,
        }),
        "clientCredentials" => {
            let client = client.filter(|c| c.secret.is_some()).ok_or_else(|| {
                BodyError(
                    "auth_method clientCredentials needs credentials.client_id and credentials.client_secret".into(),
                )
            })?;
            Ok(OAuthSpec::ClientCredentials {
                token_url: token_url.ok_or_else(|| {
                    BodyError("auth_method clientCredentials needs credentials.token_url".into())
                })?,
                client,
                scopes,
            })
        }
        _ => {
            let client_metadata_url = optional("client_metadata_url", &c.client_metadata_url)?;
            if let Some(url) = &client_metadata_url
                && !url.starts_with("https://")
            {
                return Err(BodyError(
                    "credentials.client_metadata_url must be an https URL".into(),
                ));
            }
            let seed = match optional("access_token", &c.access_token)? {
                Some(access) => Some((access, optional("refresh_token", &c.refresh_token)?)),
                None => None,
            };
            Ok(OAuthSpec::AuthorizationCode {
                scopes,
                client,
                client_metadata_url,
                seed,
            })
        }
    }
}

/// Secrets travel in HTTP headers and forms, where a line break or other control character
/// cannot go (usually a copy-and-paste slip).
fn control_character(field: &str) -> BodyError {
    BodyError(format!(
        "credentials.{field} contains a control character (a line break?); give the value alone"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn per_end_user(more: serde_json::Value) -> Credentials {
        let mut json = serde_json::json!({"per_end_user": true});
        json.as_object_mut()
            .unwrap()
            .extend(more.as_object().unwrap().clone());
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn each_end_user_authorizes_an_authorization_code_server_themselves() {
        let given = per_end_user(serde_json::json!({"scopes": ["files.read"]}));
        let auth = upstream_auth("authorizationCode", Some(&given)).unwrap();
        let each = auth.end_users.unwrap();
        assert!(each.oauth && !each.exchange);
        assert_eq!(
            (each.header.as_str(), each.prefix.as_str()),
            ("Authorization", "Bearer ")
        );
        assert!(matches!(
            auth.oauth,
            Some(OAuthSpec::AuthorizationCode { .. })
        ));
        // Tokens given here would be nobody's; one client's token everybody's.
        let seeded = per_end_user(serde_json::json!({"access_token": "a"}));
        let refused = upstream_auth("authorizationCode", Some(&seeded)).unwrap_err();
        assert!(refused.0.contains("remove access_token"), "{}", refused.0);
        let client = per_end_user(serde_json::json!({"client_id": "c", "client_secret": "s",
            "token_url": "https://example.com/token"}));
        let refused = upstream_auth("clientCredentials", Some(&client)).unwrap_err();
        assert!(
            refused.0.contains("act for every end user"),
            "{}",
            refused.0
        );
        // A bearer server stays as it was.
        let bearer = upstream_auth("bearer", Some(&per_end_user(serde_json::json!({})))).unwrap();
        assert!(!bearer.end_users.unwrap().oauth);
    }
}
