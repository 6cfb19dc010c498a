//! Why a presented token is refused: one enum, classified once into the HTTP answer
//! (`invalid_token` or `insufficient_scope`), the log line and the metric's reason.

/// A presented token the gateway does not accept. Messages name the problem and the fix and
/// never hold the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("the token is {0} bytes long; at most 16384 are accepted")]
    TooLarge(usize),
    #[error("the token is not a well-formed JWT ({0})")]
    Malformed(String),
    #[error(
        "the token's issuer {0:?} is not configured: add it to [[identity.issuers]] (its exact `iss`)"
    )]
    UnknownIssuer(String),
    #[error(
        "the token is signed with {0}, which this issuer is not allowed to use (algorithms = …)"
    )]
    Algorithm(String),
    #[error("not an access token: {0}")]
    NotAccessToken(&'static str),
    #[error("the token has expired: get a new one from the issuer")]
    Expired,
    #[error("the token is not valid yet ({0}): check the clocks of this machine and of the issuer")]
    NotYetValid(&'static str),
    #[error(
        "the token's audience {found} is not this endpoint's resource {expected}: ask the issuer for a token with resource={expected} (RFC 8707), or list its audience in the issuer's `audiences`"
    )]
    Audience { found: String, expected: String },
    #[error("the token's signature does not verify with its issuer's keys")]
    Signature,
    #[error(
        "the token names key {0:?}, which its issuer does not publish (keys fetched again at most once a minute)"
    )]
    UnknownKey(String),
    #[error("the token lacks the claim {0}")]
    MissingClaim(String),
    #[error("the issuer's keys cannot be fetched now: {0}")]
    IssuerUnavailable(String),
    #[error("the token lacks the scope {missing} this endpoint needs")]
    InsufficientScope {
        missing: String,
        needed: Vec<String>,
    },
    #[error("{0}")]
    Forbidden(String),
    #[error(
        "the issuer says this token is not active (revoked, expired or never issued): get a new one"
    )]
    Inactive,
    #[error("the issuer's introspection cannot vouch for this token: {0}")]
    Introspection(String),
}

impl TokenError {
    /// The `error` of the `WWW-Authenticate` answer (RFC 6750).
    pub fn oauth_error(&self) -> &'static str {
        match self {
            TokenError::InsufficientScope { .. } | TokenError::Forbidden(_) => "insufficient_scope",
            _ => "invalid_token",
        }
    }

    /// The HTTP status: 403 for a valid token that may not do this, 401 otherwise.
    pub fn status(&self) -> u16 {
        match self.oauth_error() {
            "insufficient_scope" => 403,
            _ => 401,
        }
    }

    /// A short, fixed label for logs and `/metrics`.
    pub fn reason(&self) -> &'static str {
        match self {
            TokenError::TooLarge(_) => "too_large",
            TokenError::Malformed(_) => "malformed",
            TokenError::UnknownIssuer(_) => "unknown_issuer",
            TokenError::Algorithm(_) => "algorithm",
            TokenError::NotAccessToken(_) => "not_access_token",
            TokenError::Expired => "expired",
            TokenError::NotYetValid(_) => "not_yet_valid",
            TokenError::Audience { .. } => "audience",
            TokenError::Signature => "signature",
            TokenError::UnknownKey(_) => "unknown_key",
            TokenError::MissingClaim(_) => "missing_claim",
            TokenError::IssuerUnavailable(_) => "issuer_unavailable",
            TokenError::InsufficientScope { .. } => "insufficient_scope",
            TokenError::Forbidden(_) => "forbidden",
            TokenError::Inactive => "inactive",
            TokenError::Introspection(_) => "introspection",
        }
    }

    /// Every reason [`TokenError::reason`] gives, for metrics made in advance.
    pub const REASONS: [&'static str; 16] = [
        "too_large",
        "malformed",
        "unknown_issuer",
        "algorithm",
        "not_access_token",
        "expired",
        "not_yet_valid",
        "audience",
        "signature",
        "unknown_key",
        "missing_claim",
        "issuer_unavailable",
        "insufficient_scope",
        "forbidden",
        "inactive",
        "introspection",
    ];
}
