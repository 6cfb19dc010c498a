//! Whether a sandboxed server may reach `host:port`: its `sandbox.net` list, then the egress
//! guard on every address the name resolves to, then never the gateway's own addresses.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use switchboard_core::NetGrant;
use switchboard_egress::{EgressError, EgressPolicy, Lookup};

/// Why the proxy refused a target. Each message names the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProxyRefusal {
    #[error(
        "{host}:{port} is not on this server's sandbox.net list; add \"{host}:{port}\" to its entry's sandbox = {{ net = [...] }}"
    )]
    NotListed { host: String, port: u16 },
    #[error(
        "{host}:{port}: sandbox.net lists {host} for other ports only (a host without a port means 80 and 443); add \"{host}:{port}\""
    )]
    Port { host: String, port: u16 },
    #[error("{host}:{port}: {error}")]
    Egress {
        host: String,
        port: u16,
        error: EgressError,
    },
    #[error(
        "{host}:{port} reaches {addr}, the gateway's own listen address or database; a sandboxed server never reaches those"
    )]
    Gateway {
        host: String,
        port: u16,
        addr: SocketAddr,
    },
    #[error("{0}")]
    BadRequest(String),
}

impl ProxyRefusal {
    /// A short, bounded name for `/metrics` and the audit.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::NotListed { .. } => "not_listed",
            Self::Port { .. } => "port",
            Self::Egress { .. } => "egress",
            Self::Gateway { .. } => "gateway",
            Self::BadRequest(_) => "bad_request",
        }
    }

    /// `host:port` the server asked for (empty for a request that named none).
    pub fn target(&self) -> String {
        match self {
            Self::NotListed { host, port }
            | Self::Port { host, port }
            | Self::Egress { host, port, .. }
            | Self::Gateway { host, port, .. } => format!("{host}:{port}"),
            Self::BadRequest(_) => String::new(),
        }
    }
}

/// What stops a target: a refusal (audited), or a failure on the way (no answer for the name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denial {
    Refused(ProxyRefusal),
    Failed(String),
}

impl From<ProxyRefusal> for Denial {
    fn from(r: ProxyRefusal) -> Self {
        Self::Refused(r)
    }
}

/// One sandboxed server's way out.
pub struct Gate {
    grants: Vec<NetGrant>,
    /// The operator's egress policy without `--dev`'s loopback allowance: a loopback or
    /// private target is reachable only when the list names it.
    policy: EgressPolicy,
    /// The gateway's own listen addresses and its database (an unspecified address stands for
    /// every address at that port).
    forbidden: Vec<SocketAddr>,
    lookup: Arc<dyn Lookup>,
}

impl Gate {
    /// `net` as the config wrote it (entries that do not parse were refused at load).
    pub fn new(
        net: &[String],
        policy: &EgressPolicy,
        forbidden: Vec<SocketAddr>,
        lookup: Arc<dyn Lookup>,
    ) -> Self {
        let mut policy = policy.clone();
        policy.dev = false;
        Self {
            grants: net.iter().filter_map(|n| NetGrant::parse(n).ok()).collect(),
            policy,
            forbidden,
            lookup,
        }
    }

    /// The addresses to connect to for `host:port`, every one checked, or why not.
    pub async fn check(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, Denial> {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_ascii_lowercase();
        let (listed, owned) = (host.clone(), port);
        if !self.grants.iter().any(|g| g.covers(&host, port)) {
            return Err(match self.grants.iter().any(|g| g.names(&host)) {
                true => ProxyRefusal::Port { host, port },
                false => ProxyRefusal::NotListed { host, port },
            }
            .into());
        }
        let egress = |error: EgressError| ProxyRefusal::Egress {
            host: listed.clone(),
            port: owned,
            error,
        };
        let ips = match host.parse::<IpAddr>() {
            Ok(ip) => {
                // Listed by address: only what is never reachable stays refused.
                if let Some(switchboard_egress::Refusal::CloudMetadata) =
                    switchboard_egress::classify(ip)
                {
                    let reason = switchboard_egress::Refusal::CloudMetadata;
                    return Err(egress(EgressError::Literal { ip, reason }).into());
                }
                vec![ip]
            }
            Err(_) => {
                // Listed by its exact name: as if the operator had allowed it (cloud metadata
                // stays refused whatever it is called or resolves to). A name matched by a
                // `*.suffix` entry is one the server picked: the guard applies as it is.
                let mut policy = self.policy.clone();
                if self.grants.iter().any(|g| g.host == host) {
                    policy.allow_hosts.push(host.clone());
                }
                policy.check_name(&host).map_err(egress)?;
                let ips = (self.lookup.lookup(&host).await)
                    .map_err(|e| Denial::Failed(format!("cannot resolve {host}: {e}")))?;
                policy.check_resolved(&host, &ips).map_err(egress)?;
                ips
            }
        };
        let addrs: Vec<SocketAddr> = ips.into_iter().map(|ip| (ip, port).into()).collect();
        if let Some(addr) = addrs.iter().find(|a| self.is_gateways_own(a)) {
            return Err(ProxyRefusal::Gateway {
                host,
                port,
                addr: *addr,
            }
            .into());
        }
        Ok(addrs)
    }

    fn is_gateways_own(&self, addr: &SocketAddr) -> bool {
        (self.forbidden.iter()).any(|f| {
            let (own, asked) = (f.ip().to_canonical(), addr.ip().to_canonical());
            f.port() == addr.port() && (own == asked || own.is_unspecified())
        })
    }
}

#[cfg(test)]
mod tests;
