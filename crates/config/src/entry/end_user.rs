//! `credentials = "per_end_user"` on a server entry: each end user's own secret, sent in the
//! header `auth` names, and whether asserted end users are trusted to pick one.

use super::Entry;
use serde_json::Value;
use switchboard_core::{EndUserCredentials, Transport};

const TRUST_KEYS: [&str; 2] = ["trust_asserted_end_users", "trustAssertedEndUsers"];
const ENV_KEYS: [&str; 2] = ["end_user_env", "endUserEnv"];

/// Whether the entry says `credentials = "per_end_user"` (a bad value is a problem).
pub(super) fn per_end_user(e: &mut Entry<'_>) -> bool {
    match e.map.get("credentials") {
        None => false,
        Some(Value::String(mode)) => match mode.as_str() {
            "shared" => false,
            "per_end_user" | "perEndUser" | "token_exchange" | "tokenExchange" => true,
            other => {
                e.problem(
                    "credentials",
                    format!("unknown credentials mode {other:?}"),
                    "use \"shared\" (one credential for every caller, the default), \"per_end_user\" or \"token_exchange\"",
                );
                false
            }
        },
        Some(_) => {
            e.problem(
                "credentials",
                "must be a string",
                "write credentials = \"per_end_user\"",
            );
            false
        }
    }
}

/// Whether the entry says `credentials = "token_exchange"`.
fn exchanges(e: &Entry<'_>) -> bool {
    (e.map.get("credentials").and_then(Value::as_str))
        .is_some_and(|m| m == "token_exchange" || m == "tokenExchange")
}

/// Where each end user's secret goes, for a `per_end_user` server; problems for the
/// combinations that cannot work.
pub(super) fn credentials(e: &mut Entry<'_>, transport: &Transport) -> Option<EndUserCredentials> {
    let trust_key = TRUST_KEYS.into_iter().find(|k| e.map.contains_key(*k));
    let trust_asserted = trust_key.and_then(|k| e.bool_field(k)).unwrap_or(false);
    if !e.per_end_user {
        if let Some(key) = ENV_KEYS.into_iter().find(|k| e.map.contains_key(*k)) {
            e.problem(
                key,
                "applies only to a server with credentials = \"per_end_user\"",
                "add credentials = \"per_end_user\", or remove this key",
            );
        }
        if let Some(key) = trust_key {
            e.problem(
                key,
                "applies only to a server with credentials = \"per_end_user\"",
                "add credentials = \"per_end_user\", or remove this key",
            );
        }
        return None;
    }
    let env_key = ENV_KEYS.into_iter().find(|k| e.map.contains_key(*k));
    if let Transport::Stdio(_) = transport {
        return stdio_credentials(e, env_key, trust_asserted);
    }
    if let Some(key) = env_key {
        e.problem(
            key,
            "applies only to a stdio server (an HTTP server's `auth` says where each end user's secret goes)",
            "remove this key",
        );
        return None;
    }
    let exchange = exchanges(e);
    if exchange && let Some(key) = trust_key.filter(|_| trust_asserted) {
        e.problem(
            key,
            "a token exchange trades the caller's own access token: an asserted end user has none",
            "remove this key",
        );
        return None;
    }
    let auth = e.map.get("auth");
    if exchange {
        let bearer = (auth.and_then(|a| a.get("type"))).and_then(Value::as_str) == Some("bearer");
        let token = auth.and_then(|a| a.get("token")).is_some();
        if !bearer || !token {
            e.problem(
                "credentials",
                "a token-exchange server sends each end user's exchanged token as a bearer token, and lists its tools with a discovery token",
                "add auth = { type = \"bearer\", token = \"…\" } (the token lists the tools only)",
            );
            return None;
        }
    }
    let kind = (auth.and_then(|a| a.get("type")))
        .and_then(Value::as_str)
        .unwrap_or("none");
    let text = |key: &str| {
        (auth.and_then(|a| a.get(key)))
            .and_then(Value::as_str)
            .map(String::from)
    };
    let oauth = matches!(kind, "authorizationCode" | "authorization_code");
    let seeded = [
        "accessToken",
        "access_token",
        "refreshToken",
        "refresh_token",
    ];
    if oauth
        && seeded
            .iter()
            .any(|k| auth.is_some_and(|a| a.get(*k).is_some()))
    {
        e.problem(
            "auth",
            "a per-end-user OAuth server keeps each end user's own tokens, got in their browser: tokens given here would belong to nobody",
            "remove the tokens from auth; each end user authorizes the server from the consent link a call sends them",
        );
        return None;
    }
    let (header, prefix) = match kind {
        "bearer" => ("Authorization".to_string(), "Bearer ".to_string()),
        _ if oauth => ("Authorization".to_string(), "Bearer ".to_string()),
        "apiKey" | "api_key" => (
            text("headerName")
                .or_else(|| text("header_name"))
                .unwrap_or_else(|| "Authorization".into()),
            text("valuePrefix")
                .or_else(|| text("value_prefix"))
                .unwrap_or_default(),
        ),
        "none" => {
            e.problem(
                "credentials",
                "a per-end-user server needs auth to say where each user's secret goes",
                "add auth: {type: bearer} or auth: {type: apiKey, headerName: \"X-API-Key\"} (a token or key there is used only to list the server's tools)",
            );
            return None;
        }
        _ => {
            e.problem(
                "credentials",
                format!("per-end-user credentials do not support auth type {kind:?}: one client's token would act for every end user"),
                "use auth type authorizationCode (each end user authorizes the server in their browser), or bearer or apiKey, whose secret each end user (or their platform) sets with `switchboard end-users set-key` or PUT /api/end-users/{user}/credentials/{server}",
            );
            return None;
        }
    };
    Some(EndUserCredentials {
        header,
        prefix,
        trust_asserted,
        exchange,
        oauth,
    })
}

/// A per-end-user stdio server: one process per end user (never the shared one, so
/// `per_session = true` is required), their secret in the environment variable `end_user_env`.
fn stdio_credentials(
    e: &mut Entry<'_>,
    env_key: Option<&str>,
    trust_asserted: bool,
) -> Option<EndUserCredentials> {
    if exchanges(e) {
        e.problem(
            "credentials",
            "a token exchange sends the exchanged token as a bearer token: a stdio server has no request header",
            "connect the server over HTTP, or use credentials = \"per_end_user\" with end_user_env",
        );
        return None;
    }
    let per_session = (e
        .bool_field("per_session")
        .or_else(|| e.bool_field("perSession")))
    .unwrap_or(false);
    if !per_session {
        e.problem(
            "credentials",
            "a per-end-user stdio server runs one process per end user with their secret in its environment, never one shared process",
            "add per_session = true (and end_user_env = \"THE_TOKEN_VARIABLE\")",
        );
        return None;
    }
    let Some(key) = env_key else {
        e.problem(
            "credentials",
            "a per-end-user stdio server needs to know which environment variable each end user's secret goes in",
            "add end_user_env = \"GITHUB_TOKEN\" (the variable the server reads its token from)",
        );
        return None;
    };
    let name = e.str_field(key).unwrap_or_default();
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid || switchboard_core::env::is_refused(&name, &[]) {
        e.problem(
            key,
            format!("{name:?} is not an environment variable a secret may go in"),
            "use letters, digits and '_' (not starting with a digit), and not a variable that loads code (LD_PRELOAD, NODE_OPTIONS…)",
        );
        return None;
    }
    Some(EndUserCredentials {
        header: name,
        prefix: String::new(),
        trust_asserted,
        exchange: false,
        oauth: false,
    })
}
