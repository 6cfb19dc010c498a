//! Consent asked where the end user is: the link a per-end-user server's missing grant makes,
//! and the `-32042` (URL required) error that carries it to every surface.

use crate::{CallError, ErrorKind};
use serde_json::json;

/// JSON-RPC's "URL elicitation required" error code (MCP 2025-11-25).
pub const URL_REQUIRED: i32 = -32042;

/// A consent link made for one end user and one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsentLink {
    /// The opaque, single-use id in the link (also the elicitation's id).
    pub id: String,
    /// `{public_url}/consent/{id}`.
    pub url: String,
    /// How long it works.
    pub expires_in_ms: u64,
}

/// What a `-32042` error made by the gateway asks: open `url` to grant `server`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsentAsked {
    pub id: String,
    pub url: String,
    pub server: String,
    pub message: String,
}

/// `end_user` has no credential for `server`: an `auth_unavailable` error with code `-32042`
/// whose data holds the URL-mode elicitation (as the spec shapes it), so a client that knows
/// URL elicitation can send its user there and retry, and the REST body carries the same.
pub fn consent_required(server: &str, end_user: &str, link: &ConsentLink) -> CallError {
    let minutes = link.expires_in_ms / 60_000;
    let message = format!(
        "{server} needs {end_user}'s own credential: open {} to grant it (the link works once, for {minutes} minutes, signed in as {end_user}), then call again",
        link.url
    );
    let data = json!({
        "elicitations": [{
            "mode": "url",
            "elicitationId": link.id,
            "url": link.url,
            "message": message,
        }],
        "server": server,
    });
    CallError::new(ErrorKind::AuthUnavailable, message)
        .with_upstream_error(URL_REQUIRED, Some(data))
}

impl ConsentAsked {
    /// The consent a gateway-made `-32042` error asks for (an upstream's own `-32042` is a
    /// `server_error`, passed on untouched).
    pub fn of(error: &CallError) -> Option<Self> {
        if error.kind != ErrorKind::AuthUnavailable || error.code != Some(URL_REQUIRED) {
            return None;
        }
        let data = error.data.as_deref()?;
        let first = data.get("elicitations")?.get(0)?;
        let text = |v: &serde_json::Value| v.as_str().map(String::from);
        Some(Self {
            id: text(first.get("elicitationId")?)?,
            url: text(first.get("url")?)?,
            server: text(data.get("server")?)?,
            message: text(first.get("message")?)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_carries_the_link_and_reads_back() {
        let link = ConsentLink {
            id: "abc".into(),
            url: "https://gw.example/consent/abc".into(),
            expires_in_ms: 600_000,
        };
        let error = consent_required("billing", "alice", &link);
        assert_eq!(error.code, Some(URL_REQUIRED));
        assert!(error.message.contains("https://gw.example/consent/abc"));
        let asked = ConsentAsked::of(&error).unwrap();
        assert_eq!(asked.id, "abc");
        assert_eq!(asked.server, "billing");
        let data = error.data.as_deref().unwrap();
        assert_eq!(data["elicitations"][0]["mode"], "url");
        // An upstream's own -32042 is not the gateway's consent.
        let upstream = CallError::new(ErrorKind::ServerError, "x")
            .with_upstream_error(URL_REQUIRED, Some((*data).clone()));
        assert_eq!(ConsentAsked::of(&upstream), None);
    }
}
