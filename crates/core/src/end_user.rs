//! Servers that act as each end user upstream: how a user's credential is sent, who may pick
//! one, the key a grant is kept under, and where the registry finds grants.

use crate::{Caller, EndUserSource, GuardFuture, Owner};
use std::fmt;
use std::sync::Arc;

/// The role an API token needs to assert end users that per-end-user servers trust.
pub const ASSERT_ROLE: &str = "end_users:assert";

/// How a per-end-user server sends each user's own secret (`credentials = "per_end_user"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndUserCredentials {
    /// The request header it goes in (`Authorization` for a bearer token); for a stdio
    /// server, the environment variable of the end user's own process (`end_user_env`).
    pub header: String,
    /// Written before it (`Bearer ` for a bearer token).
    pub prefix: String,
    /// Whether an end user asserted by a caller that may assert end users picks a
    /// credential (`trust_asserted_end_users`); one from the caller's access token always does.
    pub trust_asserted: bool,
    /// `credentials = "token_exchange"`: the end user's upstream token is the caller's own
    /// access token exchanged at its issuer (RFC 8693), never a stored secret.
    pub exchange: bool,
    /// `auth.type = "authorizationCode"`: each end user authorizes the server in their own
    /// browser (from a consent link); their tokens are kept under their grant key and
    /// refreshed per user. The header and prefix are then `Authorization: Bearer `.
    pub oauth: bool,
}

/// Which grant a call to a per-end-user server uses: the caller's org, the server (its
/// owner and name) and the end user.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GrantKey {
    /// The caller's org id, or `operator`.
    pub org: String,
    /// The server's owner key (`operator` or `org:<id>`).
    pub owner: String,
    pub server: String,
    pub end_user: String,
}

impl GrantKey {
    /// The key for a call from `caller` for `end_user` to `server` of `owner`.
    pub fn for_call(caller: &Caller, end_user: &str, owner: &Owner, server: &str) -> Self {
        Self {
            org: caller.org_id.clone().unwrap_or_else(|| "operator".into()),
            owner: owner.key(),
            server: server.to_string(),
            end_user: end_user.to_string(),
        }
    }

    /// `eu:{org}|{owner}|{server}|{end user}`, the end user percent-encoded (so `|` in it
    /// cannot reach another user's key): where the sealed secret is kept.
    pub fn store_key(&self) -> String {
        let user: String = url::form_urlencoded::byte_serialize(self.end_user.as_bytes()).collect();
        format!("eu:{}|{}|{}|{user}", self.org, self.owner, self.server)
    }
}

impl GrantKey {
    /// The key a store key names (`None` when it is not one).
    pub fn parse(store_key: &str) -> Option<Self> {
        let mut parts = store_key.strip_prefix("eu:")?.splitn(4, '|');
        let (org, owner, server) = (parts.next()?, parts.next()?, parts.next()?);
        let end_user = url::form_urlencoded::parse(format!("u={}", parts.next()?).as_bytes())
            .next()?
            .1
            .into_owned();
        Some(Self {
            org: org.into(),
            owner: owner.into(),
            server: server.into(),
            end_user,
        })
    }
}

/// An end user's credential for one server.
#[derive(Clone, PartialEq, Eq)]
pub struct Grant {
    /// Its id (on the call's audit row; never the secret).
    pub id: String,
    /// What is sent after the server's prefix.
    pub secret: String,
}

impl fmt::Debug for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grant").field("id", &self.id).finish()
    }
}

/// A grant with the store key it is kept under.
pub type KeyedGrant = (String, Arc<Grant>);

/// A caller's own access token, kept for a token exchange (never logged: Debug hides it).
#[derive(Clone, PartialEq, Eq)]
pub struct InboundToken {
    /// The issuer that minted it (one of the operator's, with `token_exchange` set).
    pub issuer: String,
    pub token: String,
    /// Its `exp`, in seconds since the epoch: an exchanged token is kept no longer.
    pub expires_at: u64,
}

impl fmt::Debug for InboundToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (f.debug_struct("InboundToken").field("issuer", &self.issuer))
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// Trades a caller's access token for an upstream token (RFC 8693) at the issuer that minted
/// it, for the upstream `resource`; the gateway's identity crate, cached per `store_key`.
pub trait TokenExchange: Send + Sync + 'static {
    fn exchange<'a>(
        &'a self,
        store_key: &'a str,
        inbound: &'a InboundToken,
        resource: &'a str,
    ) -> GuardFuture<'a, Result<Arc<Grant>, String>>;
}

/// Where the registry reads grants (the gateway's store, sealed; memory in tests).
pub trait EndUserGrants: Send + Sync + 'static {
    /// The grant kept under `store_key` ([`GrantKey::store_key`]), if there is one.
    fn grant<'a>(
        &'a self,
        store_key: &'a str,
    ) -> GuardFuture<'a, Result<Option<Arc<Grant>>, String>>;

    /// The most recently used grant for `server` of `owner` held by an end user of the
    /// owner itself (an org's own users for its server; the operator's callers for a
    /// config-file server, never another org's): how a server with no discovery credential
    /// lists its tools. Its store key beside it.
    fn any_for_server<'a>(
        &'a self,
        owner: &'a Owner,
        server: &'a str,
    ) -> GuardFuture<'a, Result<Option<KeyedGrant>, String>>;

    /// The upstream refused the grant kept under `store_key` for good (an OAuth refresh the
    /// authorization server turned down): it is removed, audited with `why` and told to the
    /// other replicas, so the end user's next call asks for consent.
    /// `grant_id` is the grant the refused call used: a newer grant under the same key (the
    /// end user authorized again meanwhile) stays.
    fn refused<'a>(
        &'a self,
        _store_key: &'a str,
        _grant_id: &'a str,
        _why: &'a str,
    ) -> GuardFuture<'a, Result<(), String>> {
        Box::pin(async { Ok(()) })
    }

    /// A grant changed elsewhere (another replica, the CLI): read `store_key` (every key,
    /// when `None`) from the store again at its next use.
    fn forget(&self, _store_key: Option<&str>) {}

    /// A consent link where the end user `key` names can give their credential (see
    /// `crate::consent`), signing in through `issuer` (the caller's token's) where it can;
    /// `None` where nobody could open one (no public URL or sign-in).
    fn ask_consent<'a>(
        &'a self,
        _key: &'a GrantKey,
        _issuer: Option<&'a str>,
    ) -> GuardFuture<'a, Result<Option<crate::ConsentLink>, String>> {
        Box::pin(async { Ok(None) })
    }

    /// The store key of the grant the live consent `id` asks for (`None`: unknown, used or
    /// expired): how a replica that did not make the link waits for it.
    fn consent_key<'a>(&'a self, _id: &'a str) -> GuardFuture<'a, Result<Option<String>, String>> {
        Box::pin(async { Ok(None) })
    }
}

/// Why a call to a per-end-user server has no end user whose credential it may use, with
/// the fix; `None` when it has one.
pub fn untrusted_end_user(
    server: &str,
    spec: &EndUserCredentials,
    caller: &Caller,
    end_user: Option<&str>,
) -> Option<String> {
    let Some(user) = end_user else {
        return Some(format!(
            "server {server} acts upstream as each end user with their own credential, and this call names no end user: call with an access token whose claims name the end user, or assert it (_meta.bound_end_user_id over MCP, end_user_id over REST) as the operator or with an API token holding the role {ASSERT_ROLE}"
        ));
    };
    match caller.end_user_source {
        Some(EndUserSource::Token) if spec.exchange && caller.inbound.is_none() => Some(format!(
            "server {server} exchanges the caller's own access token for the end user's upstream token, and this call came with none the gateway may exchange (an issuer with token_exchange set): call with the end user's access token"
        )),
        Some(EndUserSource::Token) => None,
        _ if spec.exchange => Some(format!(
            "server {server} exchanges the caller's own access token for {user:?}'s upstream token, and this call's end user was asserted, with no token of theirs: call with the end user's access token"
        )),
        _ if !caller.asserts_end_users => Some(format!(
            "server {server} uses each end user's own credential, and the end user {user:?} was asserted by a caller that may not assert end users: give the API token the role {ASSERT_ROLE} (switchboard token create --role {ASSERT_ROLE}), or call with the end user's access token"
        )),
        _ if !spec.trust_asserted => Some(format!(
            "server {server} uses each end user's own credential and does not trust asserted end users: set trust_asserted_end_users = true on the server, or call with the end user's access token"
        )),
        _ => None,
    }
}

impl fmt::Debug for dyn EndUserGrants {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EndUserGrants")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_key_keeps_every_end_user_apart_and_reads_back() {
        let key = |user: &str| GrantKey {
            org: "org_1".into(),
            owner: "operator".into(),
            server: "billing".into(),
            end_user: user.into(),
        };
        for user in ["alice", "a|b", "x y+z&", "ü@example.com", "eu:op|"] {
            let stored = key(user).store_key();
            assert_eq!(stored.matches('|').count(), 3, "{stored}");
            assert_eq!(GrantKey::parse(&stored), Some(key(user)), "{stored}");
        }
        assert_ne!(key("a|b").store_key(), key("a%7Cb").store_key());
        assert_eq!(GrantKey::parse("identity:org:x"), None);
    }
}
