//! How a server entry is reached: stdio command or remote URL, with headers and `auth`.

use super::{Entry, oauth};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use switchboard_core::{HttpSpec, HttpWire, OAuthSpec, StdioSpec, Transport};

pub(super) fn transport(e: &mut Entry<'_>, kind: Option<&str>) -> Option<Transport> {
    let has_command = e.map.contains_key("command");
    let has_url = e.map.contains_key("url");
    let field = if e.map.contains_key("type") {
        "type"
    } else {
        "transport"
    };
    let mut wire = HttpWire::Streamable;
    let is_stdio = match kind {
        Some("stdio" | "local") => true,
        Some("http" | "streamable-http" | "streamableHttp" | "streamable_http" | "remote") => false,
        Some("sse") => {
            wire = HttpWire::LegacySse;
            false
        }
        Some(other) => {
            e.problem(
                field,
                format!("unknown transport {other:?}"),
                "use \"stdio\" (with command) or \"http\" (with url)",
            );
            return None;
        }
        None if has_command => true,
        None if has_url => {
            wire = HttpWire::Auto;
            false
        }
        None => {
            e.problem(
                "command",
                "the server has neither command nor url",
                "add \"command\" for a local server or \"url\" for a remote one",
            );
            return None;
        }
    };
    if is_stdio {
        let Some(command) = e.str_field("command") else {
            if !has_command {
                e.problem(
                    "command",
                    "a stdio server needs a command",
                    "add \"command\": \"npx\" (or similar)",
                );
            }
            return None;
        };
        if command.trim().is_empty() {
            e.problem("command", "the command is empty", "name the program to run");
            return None;
        }
        let args = e.string_list("args").unwrap_or_default();
        let env = e.string_map("env");
        let cwd = e.str_field("cwd").map(|c| {
            let p = PathBuf::from(c);
            if p.is_relative() {
                e.ctx.workspace_root.join(p)
            } else {
                p
            }
        });
        Some(Transport::Stdio(StdioSpec {
            command,
            args,
            env,
            cwd,
            limits: Default::default(),
        }))
    } else {
        let Some(url) = e.str_field("url") else {
            if !has_url {
                e.problem(
                    "url",
                    "a remote server needs a url",
                    "add \"url\": \"https://…/mcp\"",
                );
            }
            return None;
        };
        let mut headers = e.string_map("headers");
        let (bearer_token, oauth) = match auth(e, &mut headers) {
            Some(Auth::Bearer(token)) => (Some(token), None),
            Some(Auth::OAuth(spec)) => (None, Some(spec)),
            None => (None, None),
        };
        if oauth.is_some() && wire == HttpWire::LegacySse {
            e.problem(
                "auth",
                "OAuth is not supported over the legacy HTTP+SSE transport",
                "use the server's Streamable HTTP URL (\"type\": \"http\"), or a bearer token",
            );
        }
        Some(Transport::Http(HttpSpec {
            url,
            headers,
            bearer_token,
            oauth,
            wire,
        }))
    }
}

/// What `auth` asks requests to carry (an API key goes into the headers instead).
enum Auth {
    Bearer(String),
    OAuth(OAuthSpec),
}

/// `auth` of a remote server; an API key goes into `headers`.
fn auth(e: &mut Entry<'_>, headers: &mut BTreeMap<String, String>) -> Option<Auth> {
    let auth = e.map.get("auth")?;
    let kind = auth.get("type").and_then(Value::as_str).unwrap_or("none");
    match kind {
        "none" => None,
        "apiKey" | "api_key" => {
            let text = |key: &str| auth.get(key).and_then(Value::as_str).map(String::from);
            let header = text("headerName")
                .or_else(|| text("header_name"))
                .unwrap_or_else(|| "Authorization".into());
            let prefix = text("valuePrefix")
                .or_else(|| text("value_prefix"))
                .unwrap_or_default();
            let Some(raw) = text("key") else {
                // Per end user: each user's key goes in this header; none lists the tools.
                if e.per_end_user {
                    return None;
                }
                e.problem(
                    "auth",
                    "apiKey auth needs a key",
                    "write auth: {type: apiKey, key: \"${MY_KEY}\", headerName: \"X-API-Key\"}",
                );
                return None;
            };
            if !switchboard_core::names::is_header_name(&header) {
                e.problem(
                    "auth",
                    format!("{header:?} is not an HTTP header name"),
                    "use letters, digits and '-', e.g. \"X-API-Key\"",
                );
                return None;
            }
            // Header values count as secrets for redaction (see below).
            let key = e.resolve("auth", &raw)?;
            headers.insert(header, format!("{prefix}{key}"));
            None
        }
        "bearer" => match auth.get("token").and_then(Value::as_str) {
            Some(token) => e.resolve("auth", token).map(Auth::Bearer),
            None if e.per_end_user => None,
            None => {
                e.problem(
                    "auth",
                    "bearer auth needs a token",
                    "write auth: {type: bearer, token: \"${MY_TOKEN}\"}",
                );
                None
            }
        },
        "oauth2" | "clientCredentials" | "client_credentials" | "authorizationCode"
        | "authorization_code" => oauth::parse(e, kind, auth).map(Auth::OAuth),
        other => {
            e.problem(
                "auth",
                format!("auth type {other:?} is not known"),
                "use type \"none\", \"bearer\", \"apiKey\", \"oauth2\", \"clientCredentials\" or \"authorizationCode\"",
            );
            None
        }
    }
}
