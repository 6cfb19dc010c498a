//! The gateway's public URL and the issuers whose access tokens `serve` accepts, from
//! `[gateway] public_url`, `anonymous_loopback` and `[[identity.issuers]]`.

use crate::args::Global;
use std::net::SocketAddr;
use switchboard_config::Config;
use switchboard_identity::{Fetcher, Issuers};
use switchboard_server::ResourceServer;

/// The resource server `serve` runs as, listening on `bound`: without `public_url` only a
/// loopback address is its own origin.
pub(crate) fn resource_server(
    global: &Global,
    config: &Config,
    bound: SocketAddr,
) -> anyhow::Result<ResourceServer> {
    let g = &config.gateway;
    let specs = g.issuers.clone().unwrap_or_default();
    let public_url = match &g.public_url {
        Some(url) => url.clone(),
        None if bound.ip().is_loopback() => format!("http://{bound}"),
        None if specs.is_empty() => format!("http://{bound}"),
        None => anyhow::bail!(
            "[[identity.issuers]] bind tokens to the gateway's public address, and listening on {bound} (not loopback) it cannot be guessed: set [gateway] public_url = \"https://…\" to the address clients reach this gateway at"
        ),
    };
    let issuers = Issuers::new(specs, fetcher(global, config)).map_err(anyhow::Error::msg)?;
    // Off loopback nobody is anonymous, whatever the setting says.
    let anonymous = g.anonymous_loopback.unwrap_or(true) && bound.ip().is_loopback();
    Ok(ResourceServer::new(&public_url, issuers).with_anonymous_loopback(anonymous))
}

/// Issuers' metadata and keys are fetched through the same egress guard as upstreams.
pub(crate) fn fetcher(global: &Global, config: &Config) -> Fetcher {
    Fetcher::new(crate::setup::egress(global, config))
}

/// Fetches every issuer's keys in the background, naming each that cannot be reached (the
/// gateway serves meanwhile: static tokens keep working).
pub(crate) fn warm(resource: &ResourceServer) {
    let issuers = resource.issuers().clone();
    if issuers.is_empty() {
        return;
    }
    tokio::spawn(async move {
        for (issuer, why) in issuers.warm().await {
            tracing::warn!(%issuer, "issuer unreachable; its tokens are refused until its keys can be fetched: {why}");
        }
    });
}
