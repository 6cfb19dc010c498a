//! What a server does when its upstream refuses the credentials (401) or their scope (403):
//! start the authorization code flow for a person, remember the wanted scopes, or stop with
//! `auth_unavailable` and the reason, instead of retrying credentials that cannot work.

use crate::entry::ServerEntry;
use switchboard_core::{CallError, ErrorKind, OAuthSpec, ServerStatus, Transport};
use switchboard_upstream::{ConnectOptions, UpstreamError};

/// How a person gets a new authorization, for messages.
fn how_to_authorize(name: &str) -> String {
    format!(
        "an operator authorizes it with the URL shown by `switchboard status` or the dashboard, or runs `switchboard auth login {name}`"
    )
}

impl ServerEntry {
    /// Reacts to a refusal; `None` when `e` is not about authorization (the caller goes on as
    /// with any failure), else the error the call gets. `mid_call`: the connection works and
    /// one request was refused (a tool wanting more scope leaves the others usable).
    pub(crate) async fn authorize(
        &self,
        e: &UpstreamError,
        connect: &ConnectOptions,
        mid_call: bool,
    ) -> Option<CallError> {
        // Boxed: rare, and large enough to double every call's future otherwise.
        Box::pin(self.react_to_refusal(e, connect, mid_call)).await
    }

    async fn react_to_refusal(
        &self,
        e: &UpstreamError,
        connect: &ConnectOptions,
        mid_call: bool,
    ) -> Option<CallError> {
        let (challenge, more_scope) = match e {
            UpstreamError::Challenged {
                challenge,
                insufficient_scope,
            } => (challenge.as_str(), *insufficient_scope),
            UpstreamError::Unauthorized(_) => ("", false),
            _ => return None,
        };
        let (Some(ctx), Transport::Http(http)) = (&connect.oauth, &self.spec.transport) else {
            return None;
        };
        // A per-end-user server's shared connection only lists tools. Listing with an end
        // user's grant that was refused: the next start lists with another (or, an OAuth
        // server, with its own authorization, below, which an operator gives).
        if self.spec.end_user_credentials.is_some() && self.state().discovery_grant.take().is_some()
        {
            return None;
        }
        let name = &self.spec.name;
        let refused = self.redact(&e.to_string(), None);
        // Servers with fixed credentials (or none) have nothing to do here.
        let oauth = http.oauth.as_ref()?;
        if !matches!(oauth, OAuthSpec::AuthorizationCode { .. }) {
            if more_scope && mid_call {
                return Some(CallError::new(
                    ErrorKind::AuthUnavailable,
                    format!("server {name}: {refused}; grant its client the scope this tool needs"),
                ));
            }
            // Refused after a renewal: only new credentials help, so stop trying until then.
            self.refuse(format!(
                "{refused}; the credentials were refused and cannot be renewed: give the server new credentials"
            ))
            .await;
            return Some(self.waiting_for_authorization());
        }
        if more_scope && let Some(scopes) = challenge_scopes(challenge) {
            // Kept with the tokens, so the next authorization (here or `auth login`) asks
            // for them too.
            if let Err(e) = ctx.want_scopes(&self.spec, scopes).await {
                tracing::warn!(server = %name, "cannot keep the wanted scopes: {e}");
            }
        }
        let begun = ctx
            .flows
            .begin(&self.spec, &http.url, Some(challenge), &connect.http, ctx)
            .await;
        if more_scope && mid_call {
            // The other tools keep working; the URL for more scope is shown with the status.
            if let Ok(url) = begun {
                let mut state = self.state();
                state.authorize_url = Some(url);
                state.authorize_since = Some(tokio::time::Instant::now());
            }
            return Some(CallError::new(
                ErrorKind::AuthUnavailable,
                format!(
                    "server {name}: {refused}; this tool needs more scope: {}",
                    how_to_authorize(name.as_str())
                ),
            ));
        }
        match begun {
            Ok(url) => {
                tracing::warn!(server = %name, "waiting for authorization: {url}");
                let dead = {
                    let mut state = self.state();
                    state.set_status(ServerStatus::Authenticating);
                    state.authorize_url = Some(url);
                    state.authorize_since = Some(tokio::time::Instant::now());
                    state.last_error = Some(format!("{refused}; waiting for authorization"));
                    state.connection.take()
                };
                if let Some(dead) = dead {
                    dead.close().await;
                }
            }
            // The authorization server may be down for a moment: back off and try again.
            Err(why) => {
                self.state().auth_refused = true;
                self.failed(format!(
                    "{refused}; {}",
                    self.redact(&why.to_string(), None)
                ));
            }
        }
        Some(self.waiting_for_authorization())
    }

    /// Stops using credentials that were refused and cannot be renewed: `error` until the
    /// server is refreshed or given new credentials; calls fail at once.
    async fn refuse(&self, message: String) {
        let dead = self.state().refuse(message);
        if let Some(dead) = dead {
            dead.close().await;
        }
    }

    /// What a call gets while the server cannot be used without a person. The authorize URL
    /// itself is not in it: whoever opens it links their account to the server, so it is
    /// shown to operators (status, dashboard), not to agents.
    pub(crate) fn waiting_for_authorization(&self) -> CallError {
        let state = self.state();
        let name = &self.spec.name;
        let message = match state.status() {
            ServerStatus::Authenticating if self.spec.end_user_credentials.is_none() => format!(
                "server {name} is waiting for authorization: {}",
                how_to_authorize(name.as_str())
            ),
            _ => format!(
                "server {name}: {}",
                state.last_error.clone().unwrap_or_default()
            ),
        };
        CallError::new(ErrorKind::AuthUnavailable, message)
    }
}

/// The scopes a `WWW-Authenticate` challenge asks for (`scope="a b"`).
fn challenge_scopes(challenge: &str) -> Option<Vec<String>> {
    let start = challenge.find("scope=\"")? + "scope=\"".len();
    let end = challenge[start..].find('"')? + start;
    let scopes: Vec<String> = challenge[start..end]
        .split_whitespace()
        .map(String::from)
        .collect();
    Some(scopes).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    #[test]
    fn challenge_scopes_are_read_from_the_scope_parameter() {
        let challenge = r#"Bearer error="insufficient_scope", scope="read write", resource_metadata="https://x/.well-known/oauth-protected-resource""#;
        assert_eq!(
            super::challenge_scopes(challenge),
            Some(vec!["read".to_string(), "write".to_string()])
        );
        assert_eq!(
            super::challenge_scopes(r#"Bearer error="invalid_token""#),
            None
        );
        assert_eq!(super::challenge_scopes(r#"Bearer scope="""#), None);
    }
}
