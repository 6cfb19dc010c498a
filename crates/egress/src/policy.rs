//! The operator's egress policy and the URL check every upstream connection goes through.

use crate::address::{Refusal, classify};
use ipnet::IpNet;
use std::net::IpAddr;
use url::{Host, Url};

/// Longest upstream URL accepted.
pub const MAX_URL_LEN: usize = 2048;

/// Host names that reach cloud metadata services whatever they resolve to.
const METADATA_NAMES: [&str; 6] = [
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.azure.internal",
];

/// Why an upstream URL or address is refused. Every message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EgressError {
    #[error("egress refused: the URL is {len} characters long; at most {MAX_URL_LEN} are allowed")]
    UrlTooLong { len: usize },
    #[error("egress refused: not a valid URL ({0})")]
    InvalidUrl(String),
    #[error("egress refused: credentials in the URL are not allowed; use headers or auth")]
    Userinfo,
    #[error("egress refused: {scheme}:// is not allowed; {hint}")]
    Scheme { scheme: String, hint: &'static str },
    #[error("egress refused: {host} is {reason}; {}", fix_for(*.reason))]
    Name { host: String, reason: Refusal },
    #[error("egress refused: {host} resolves to {ip}, {reason}; {}", fix_for(*.reason))]
    Address {
        host: String,
        ip: IpAddr,
        reason: Refusal,
    },
    #[error("egress refused: {ip} is {reason}; {}", fix_for(*.reason))]
    Literal { ip: IpAddr, reason: Refusal },
    #[error("cannot resolve {host}: {error}")]
    Resolve { host: String, error: String },
    #[error("{host} has no addresses")]
    NoAddresses { host: String },
}

fn fix_for(reason: Refusal) -> &'static str {
    match reason {
        Refusal::CloudMetadata => {
            "cloud metadata services are never reachable from upstream connections"
        }
        Refusal::Loopback => {
            "use --dev for a server on this machine, or add it to [egress] allow_hosts or allow_cidrs"
        }
        _ => "if it is an internal MCP server, add it to [egress] allow_hosts or allow_cidrs",
    }
}

/// What upstream traffic is allowed. The default is the production posture: https only, public
/// addresses only.
#[derive(Debug, Clone, Default)]
pub struct EgressPolicy {
    /// `--dev`: allow loopback hosts, and plain `http://` to them.
    pub dev: bool,
    /// Host names (exact, or `*.suffix`) the operator allows whatever they resolve to
    /// (cloud metadata addresses stay refused).
    pub allow_hosts: Vec<String>,
    /// Address ranges the operator allows (cloud metadata addresses stay refused).
    pub allow_cidrs: Vec<IpNet>,
}

fn normalize(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost" || host.ends_with(".localhost")
}

impl EgressPolicy {
    pub fn dev() -> Self {
        Self {
            dev: true,
            ..Self::default()
        }
    }

    /// Whether the operator allowed this host name explicitly.
    pub fn host_allowed(&self, host: &str) -> bool {
        let host = normalize(host);
        self.allow_hosts.iter().any(|pattern| {
            let pattern = normalize(pattern);
            match pattern.strip_prefix("*.") {
                Some(suffix) => host.ends_with(&format!(".{suffix}")),
                None => host == pattern,
            }
        })
    }

    /// Checks one address the connection would go to.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), Refusal> {
        match classify(ip) {
            None => Ok(()),
            Some(Refusal::CloudMetadata) => Err(Refusal::CloudMetadata),
            Some(_) if self.allow_cidrs.iter().any(|net| net.contains(&ip)) => Ok(()),
            Some(Refusal::Loopback) if self.dev => Ok(()),
            Some(reason) => Err(reason),
        }
    }

    /// Checks a host name before it is resolved (names that are refused whatever they resolve to).
    pub fn check_name(&self, host: &str) -> Result<(), EgressError> {
        let host = normalize(host);
        if METADATA_NAMES.contains(&host.as_str()) {
            return Err(EgressError::Name {
                host,
                reason: Refusal::CloudMetadata,
            });
        }
        if is_loopback_name(&host) && !self.dev && !self.host_allowed(&host) {
            return Err(EgressError::Name {
                host,
                reason: Refusal::Loopback,
            });
        }
        Ok(())
    }

    /// Checks the answers for `host`: all of them must be allowed.
    pub fn check_resolved(&self, host: &str, ips: &[IpAddr]) -> Result<(), EgressError> {
        if ips.is_empty() {
            return Err(EgressError::NoAddresses {
                host: host.to_string(),
            });
        }
        let allowed_name = self.host_allowed(host);
        for &ip in ips {
            match self.check_ip(ip) {
                Ok(()) => {}
                Err(reason) if allowed_name && reason != Refusal::CloudMetadata => {}
                Err(reason) => {
                    return Err(EgressError::Address {
                        host: host.to_string(),
                        ip,
                        reason,
                    });
                }
            }
        }
        Ok(())
    }

    /// Checks a URL's form, scheme and (for IP literals) address. Names are checked again with
    /// their resolved addresses by [`crate::GuardedResolver`].
    pub fn check_url(&self, raw: &str) -> Result<Url, EgressError> {
        if raw.len() > MAX_URL_LEN {
            return Err(EgressError::UrlTooLong { len: raw.len() });
        }
        let url = Url::parse(raw).map_err(|e| EgressError::InvalidUrl(e.to_string()))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(EgressError::Userinfo);
        }
        if !matches!(url.scheme(), "https" | "http") {
            return Err(EgressError::Scheme {
                scheme: url.scheme().to_string(),
                hint: "upstream MCP servers are reached over https://",
            });
        }
        let target = match url.host() {
            Some(Host::Ipv4(v4)) => Ok(IpAddr::V4(v4)),
            Some(Host::Ipv6(v6)) => Ok(IpAddr::V6(v6)),
            Some(Host::Domain(name)) => Err(normalize(name)),
            None => return Err(EgressError::InvalidUrl("the URL has no host".into())),
        };
        let loopback = match &target {
            Ok(ip) => classify(*ip) == Some(Refusal::Loopback),
            Err(name) => is_loopback_name(name),
        };
        if url.scheme() == "http" && !(self.dev && loopback) {
            return Err(EgressError::Scheme {
                scheme: "http".into(),
                hint: "use https:// (plain http is only allowed to loopback with --dev)",
            });
        }
        match target {
            Ok(ip) => self
                .check_ip(ip)
                .map_err(|reason| EgressError::Literal { ip, reason })?,
            Err(name) => self.check_name(&name)?,
        }
        Ok(url)
    }
}
