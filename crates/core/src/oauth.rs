//! OAuth settings of a remote server: which grant gets its tokens, and what it starts from.

use std::fmt;

/// How a remote server's access tokens are obtained and renewed.
#[derive(Clone, PartialEq, Eq)]
pub enum OAuthSpec {
    /// Tokens handed over by a person or a platform (Halo's `oauth2` shape): sent as a bearer
    /// token, renewed with the refresh token shortly before expiry and after a 401.
    Tokens {
        access_token: String,
        refresh_token: Option<String>,
        /// The client the tokens were issued to (refresh needs it).
        client: Option<OAuthClient>,
        /// Where to refresh; discovered from the server's metadata when absent.
        token_url: Option<String>,
    },
    /// The client credentials grant: exchanged without a person, again before expiry.
    ClientCredentials {
        token_url: String,
        client: OAuthClient,
        scopes: Vec<String>,
    },
    /// OAuth 2.1 authorization code with PKCE: a person authorizes once in a browser; the
    /// tokens are kept and refreshed from then on.
    AuthorizationCode {
        /// Scopes to ask for; empty means the server's challenge or its metadata decides.
        scopes: Vec<String>,
        /// A client registered beforehand (else a client ID metadata document URL or dynamic
        /// client registration).
        client: Option<OAuthClient>,
        /// An HTTPS URL of a client ID metadata document, used as the client id where the
        /// authorization server supports it.
        client_metadata_url: Option<String>,
        /// Tokens to start from (e.g. migrated from another tool) before any authorization.
        seed: Option<(String, Option<String>)>,
    },
}

/// An OAuth client's id and, for confidential clients, its secret.
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthClient {
    pub id: String,
    pub secret: Option<String>,
}

impl OAuthSpec {
    /// Every secret value in the settings (for redaction).
    pub fn secrets(&self) -> Vec<String> {
        let client_secret = |c: &Option<OAuthClient>| c.as_ref().and_then(|c| c.secret.clone());
        match self {
            OAuthSpec::Tokens {
                access_token,
                refresh_token,
                client,
                ..
            } => [
                Some(access_token.clone()),
                refresh_token.clone(),
                client_secret(client),
            ]
            .into_iter()
            .flatten()
            .collect(),
            OAuthSpec::ClientCredentials { client, .. } => client.secret.iter().cloned().collect(),
            OAuthSpec::AuthorizationCode { client, seed, .. } => {
                let mut out: Vec<String> = client_secret(client).into_iter().collect();
                if let Some((access, refresh)) = seed {
                    out.push(access.clone());
                    out.extend(refresh.clone());
                }
                out
            }
        }
    }
}

impl fmt::Debug for OAuthSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Tokens and secrets never appear in logs.
        match self {
            OAuthSpec::Tokens {
                refresh_token,
                client,
                token_url,
                ..
            } => f
                .debug_struct("Tokens")
                .field(
                    "refresh_token",
                    &refresh_token.as_ref().map(|_| "<redacted>"),
                )
                .field("client", client)
                .field("token_url", token_url)
                .finish_non_exhaustive(),
            OAuthSpec::ClientCredentials {
                token_url,
                client,
                scopes,
            } => f
                .debug_struct("ClientCredentials")
                .field("token_url", token_url)
                .field("client", client)
                .field("scopes", scopes)
                .finish(),
            OAuthSpec::AuthorizationCode {
                scopes,
                client,
                client_metadata_url,
                seed,
            } => f
                .debug_struct("AuthorizationCode")
                .field("scopes", scopes)
                .field("client", client)
                .field("client_metadata_url", client_metadata_url)
                .field("seed", &seed.as_ref().map(|_| "<redacted>"))
                .finish(),
        }
    }
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClient")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}
