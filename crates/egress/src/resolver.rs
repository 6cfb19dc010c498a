//! Name resolution for the outbound HTTP client: every answer checked, checked answers used.

use crate::policy::{EgressError, EgressPolicy};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use switchboard_sync::RwLock;

type LookupFuture<'a> = Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'a>>;

/// Where answers come from (the system resolver, or a fixed table in tests).
pub trait Lookup: Send + Sync + 'static {
    /// All A and AAAA answers for `host`.
    fn lookup<'a>(&'a self, host: &'a str) -> LookupFuture<'a>;
}

/// The operating system's resolver (`getaddrinfo`: A and AAAA).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup<'a>(&'a self, host: &'a str) -> LookupFuture<'a> {
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((host, 0)).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        })
    }
}

/// Fixed answers that can be changed at run time (tests of rebinding).
#[derive(Debug, Default, Clone)]
pub struct StaticLookup(Arc<RwLock<HashMap<String, Vec<IpAddr>>>>);

impl StaticLookup {
    pub fn set(&self, host: &str, ips: Vec<IpAddr>) {
        self.0.write().insert(host.to_ascii_lowercase(), ips);
    }
}

impl Lookup for StaticLookup {
    fn lookup<'a>(&'a self, host: &'a str) -> LookupFuture<'a> {
        let answer = self.0.read().get(&host.to_ascii_lowercase()).cloned();
        Box::pin(async move {
            answer.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such host"))
        })
    }
}

/// The HTTP client's resolver: resolves, refuses the name if any answer is not allowed, and
/// returns only checked addresses so the connection goes exactly there.
#[derive(Clone)]
pub struct GuardedResolver {
    policy: Arc<EgressPolicy>,
    lookup: Arc<dyn Lookup>,
}

impl GuardedResolver {
    pub fn new(policy: Arc<EgressPolicy>, lookup: Arc<dyn Lookup>) -> Self {
        Self { policy, lookup }
    }

    /// Resolves and checks `host`.
    pub async fn resolve_checked(&self, host: &str) -> Result<Vec<IpAddr>, EgressError> {
        let host = host.trim_end_matches('.');
        self.policy.check_name(host)?;
        let ips = self
            .lookup
            .lookup(host)
            .await
            .map_err(|e| EgressError::Resolve {
                host: host.to_string(),
                error: e.to_string(),
            })?;
        self.policy.check_resolved(host, &ips)?;
        Ok(ips)
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        Box::pin(async move {
            match this.resolve_checked(name.as_str()).await {
                Ok(ips) => {
                    let addrs: Addrs = Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
                    Ok(addrs)
                }
                Err(e) => {
                    tracing::warn!("{e}");
                    Err(Box::new(e) as Box<dyn std::error::Error + Send + Sync>)
                }
            }
        })
    }
}
