//! Upstream OAuth through the registry: finishing a browser authorization, recording a
//! failed one, and starting over.

use super::Registry;
use crate::entry::ServerInfo;
use switchboard_core::ServerStatus;

impl Registry {
    /// Token store, pending authorizations and redirect base, when OAuth servers are served.
    pub fn oauth(&self) -> Option<&switchboard_upstream::auth::OAuthContext> {
        self.inner.connect.oauth.as_ref()
    }

    /// Finishes the authorization flow `state` belongs to (the browser came back with `code`):
    /// the tokens are saved; the caller reconnects the server it names.
    pub async fn complete_authorization(
        &self,
        state: &str,
        code: &str,
        issuer: Option<&str>,
    ) -> Result<switchboard_upstream::auth::AuthorizationDone, switchboard_upstream::auth::FlowError>
    {
        let connect = &self.inner.connect;
        let Some(ctx) = &connect.oauth else {
            return Err(switchboard_upstream::auth::FlowError::NoOAuth);
        };
        ctx.flows
            .complete(state, code, issuer, &connect.http, ctx)
            .await
    }

    /// Begins the authorization of the per-end-user OAuth server `name` for the end user whose
    /// grant is kept under `store_key` (their consent page): the URL their browser goes to.
    /// Their tokens are kept under that key when the callback finishes it.
    pub async fn begin_end_user_authorization(
        &self,
        name: &str,
        store_key: &str,
    ) -> Result<String, String> {
        let connect = &self.inner.connect;
        let entry =
            (self.entry(name)).ok_or_else(|| format!("server {name} is not served here"))?;
        let oauth = (entry.spec.end_user_credentials.as_ref()).is_some_and(|each| each.oauth);
        let (Some(ctx), true, switchboard_core::Transport::Http(http)) =
            (&connect.oauth, oauth, &entry.spec.transport)
        else {
            return Err(format!(
                "server {name} is not authorized per end user in the browser"
            ));
        };
        let spec = entry.spec.as_end_user(store_key, "");
        (ctx.flows
            .begin(&spec, &http.url, None, &connect.http, ctx)
            .await)
            .map_err(|e| entry.redact(&e.to_string(), None))
    }

    /// Whether each end user authorizes the server `name` in their browser (a per-end-user
    /// OAuth server).
    pub fn authorized_per_end_user(&self, name: &str) -> bool {
        (self.entry(name))
            .is_some_and(|e| (e.spec.end_user_credentials.as_ref()).is_some_and(|each| each.oauth))
    }

    /// The OAuth record kept under `key` (an end user's grant key), if readable.
    pub async fn oauth_record(&self, key: &str) -> Option<switchboard_upstream::auth::TokenRecord> {
        let ctx = self.inner.connect.oauth.as_ref()?;
        match ctx.tokens.load(key).await {
            Ok(record) => record,
            Err(e) => {
                tracing::warn!("cannot read the tokens kept as {key}: {e}");
                None
            }
        }
    }

    /// Records that the authorization `name` waits for (the one whose link carries `flow`,
    /// its `state` value) did not finish (refused, failed exchange): it leaves
    /// `authenticating` for `error` with the reason. Any other callback (an old link, a
    /// made-up one) changes nothing.
    pub fn authorization_failed(&self, name: &str, flow: &str, why: &str) {
        let Some(entry) = self.entry(name) else {
            return;
        };
        {
            let mut state = entry.state();
            let this_flow = state.authorize_url.as_deref().is_some_and(|url| {
                url::Url::parse(url)
                    .is_ok_and(|u| u.query_pairs().any(|(k, v)| k == "state" && v == flow))
            });
            if state.status() != ServerStatus::Authenticating || !this_flow {
                return;
            }
            // (No connection is open while it waits.)
            let _ = state.refuse(format!(
                "the authorization did not finish: {why}; reauthorize to try again"
            ));
        }
        self.publish(&entry);
    }

    /// Starts a new authorization for a server with the authorization code flow (its
    /// connection is closed and it waits in `authenticating` with the URL to open). The error
    /// says why not: no such server, or no flow to run.
    pub async fn reauthorize(&self, name: &str) -> Result<ServerInfo, String> {
        let entry = self
            .entry(name)
            .ok_or_else(|| format!("no server {name}"))?;
        let has_flow = matches!(
            &entry.spec.transport,
            switchboard_core::Transport::Http(http)
                if matches!(http.oauth, Some(switchboard_core::OAuthSpec::AuthorizationCode { .. }))
        );
        if !has_flow || self.inner.connect.oauth.is_none() {
            return Err(format!(
                "server {name} has no authorization flow to run again (only auth type authorizationCode has one); change its credentials instead"
            ));
        }
        let asked = switchboard_upstream::UpstreamError::Unauthorized(
            "a new authorization was requested".into(),
        );
        entry.authorize(&asked, &self.inner.connect, false).await;
        Ok(self.publish(&entry))
    }
}
