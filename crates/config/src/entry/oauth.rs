//! `auth: {type: oauth2 | clientCredentials | authorizationCode, …}` of a remote server.

use super::Entry;
use serde_json::{Map, Value};
use switchboard_core::{OAuthClient, OAuthSpec};

/// Reads one OAuth `auth` table; every problem names the key and the fix.
pub(super) fn parse(e: &mut Entry<'_>, kind: &str, auth: &Value) -> Option<OAuthSpec> {
    let Some(map) = auth.as_object() else {
        e.problem("auth", "must be a table", "write auth: {type: …, …}");
        return None;
    };
    let mut r = Reader { e, map };
    match kind {
        "oauth2" => {
            let access_token = r.required(
                "accessToken",
                "write auth: {type: oauth2, accessToken: \"${ACCESS}\", refreshToken: \"${REFRESH}\", clientId: \"…\"}",
            )?;
            Some(OAuthSpec::Tokens {
                access_token,
                refresh_token: r.text("refreshToken"),
                client: r.client(),
                token_url: r.text("tokenUrl"),
            })
        }
        "clientCredentials" | "client_credentials" => {
            let fix = "write auth: {type: clientCredentials, tokenUrl: \"https://…/token\", clientId: \"…\", clientSecret: \"${SECRET}\", scopes: [\"…\"]}";
            let token_url = r.required("tokenUrl", fix);
            let id = r.required("clientId", fix);
            let secret = r.required("clientSecret", fix);
            let scopes = r.scopes();
            Some(OAuthSpec::ClientCredentials {
                token_url: token_url?,
                client: OAuthClient {
                    id: id?,
                    secret: Some(secret?),
                },
                scopes,
            })
        }
        _ => {
            let client_metadata_url = r.text("clientMetadataUrl");
            if let Some(url) = &client_metadata_url
                && !url.starts_with("https://")
            {
                r.e.problem(
                    "auth.clientMetadataUrl",
                    "a client ID metadata document must be served over https",
                    "use the https URL where the client's metadata JSON is published",
                );
            }
            let seed = match map.get("tokens") {
                Some(Value::Object(tokens)) => {
                    let mut t = Reader {
                        e: r.e,
                        map: tokens,
                    };
                    let access = t.required(
                        "accessToken",
                        "write tokens: {accessToken: \"…\", refreshToken: \"…\"}",
                    );
                    access.map(|a| (a, t.text("refreshToken")))
                }
                Some(_) => {
                    r.e.problem(
                        "auth.tokens",
                        "must be a table",
                        "write tokens: {accessToken: \"…\", refreshToken: \"…\"}",
                    );
                    None
                }
                None => None,
            };
            Some(OAuthSpec::AuthorizationCode {
                scopes: r.scopes(),
                client: r.client(),
                client_metadata_url,
                seed,
            })
        }
    }
}

/// Reads camelCase keys (or their snake_case spelling) with placeholders resolved.
struct Reader<'e, 'a> {
    e: &'e mut Entry<'a>,
    map: &'e Map<String, Value>,
}

fn snake(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

impl Reader<'_, '_> {
    fn text(&mut self, key: &str) -> Option<String> {
        let value = self.map.get(key).or_else(|| self.map.get(&snake(key)))?;
        match value {
            Value::String(s) => self.e.resolve("auth", s),
            _ => {
                self.e.problem(
                    &format!("auth.{key}"),
                    "must be a string",
                    "quote the value",
                );
                None
            }
        }
    }

    fn required(&mut self, key: &str, fix: &str) -> Option<String> {
        let value = self.text(key);
        if value.is_none()
            && self
                .map
                .get(key)
                .or_else(|| self.map.get(&snake(key)))
                .is_none()
        {
            self.e
                .problem("auth", format!("this auth type needs {key}"), fix);
        }
        value
    }

    /// `clientId` / `clientSecret`, or `client: {id, secret}`.
    fn client(&mut self) -> Option<OAuthClient> {
        if let Some(Value::Object(client)) = self.map.get("client") {
            let mut c = Reader {
                e: self.e,
                map: client,
            };
            let id = c.text("id").or_else(|| c.text("clientId"))?;
            let secret = c.text("secret").or_else(|| c.text("clientSecret"));
            return Some(OAuthClient { id, secret });
        }
        let id = self.text("clientId")?;
        Some(OAuthClient {
            id,
            secret: self.text("clientSecret"),
        })
    }

    /// A list of scopes or one space-separated string.
    fn scopes(&mut self) -> Vec<String> {
        match self.map.get("scopes").or_else(|| self.map.get("scope")) {
            None => Vec::new(),
            Some(Value::String(s)) => s.split_whitespace().map(String::from).collect(),
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
            Some(_) => {
                self.e.problem(
                    "auth.scopes",
                    "must be a list of strings",
                    "write scopes: [\"read\", \"write\"]",
                );
                Vec::new()
            }
        }
    }
}
