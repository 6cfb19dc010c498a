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
    // Off loopback nobody is anonymous, whatever the setting says; behind a proxy (a public
    // URL that is not loopback) nobody is by default either.
    let authority = public_url.split("://").nth(1).unwrap_or_default();
    let host = authority.split(['/', ':']).next().unwrap_or_default();
    let public_is_loopback =
        authority.starts_with("[::1]") || matches!(host, "127.0.0.1" | "localhost");
    let anonymous = g.anonymous_loopback.unwrap_or(public_is_loopback) && bound.ip().is_loopback();
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

/// `config check`'s look at the issuers: each one's metadata and keys fetched now, and one
/// that cannot be reached named with the file and line that declare it (a warning: the
/// gateway starts anyway and static tokens keep working).
pub(crate) async fn check(
    global: &Global,
    config: &Config,
    paths: &[std::path::PathBuf],
) -> Vec<switchboard_config::Problem> {
    let specs = config.gateway.issuers.clone().unwrap_or_default();
    if specs.is_empty() {
        return Vec::new();
    }
    let issuers = match Issuers::new(specs, fetcher(global, config)) {
        Ok(issuers) => issuers,
        Err(e) => return vec![problem(paths, "", e, "see docs/identity.md", true)],
    };
    let unreachable = issuers.warm().await;
    (unreachable.into_iter())
        .map(|(issuer, why)| {
            let fix = "check the issuer URL (its discovery document must name it exactly) and that this machine reaches it; an internal provider needs [egress] allow_hosts";
            problem(paths, &issuer, format!("issuer {issuer} is unreachable: {why}"), fix, false)
        })
        .collect()
}

/// A problem about `issuer`, at the first line of the files that names it.
fn problem(
    paths: &[std::path::PathBuf],
    issuer: &str,
    message: String,
    fix: &str,
    error: bool,
) -> switchboard_config::Problem {
    let found = (paths.iter()).find_map(|path| {
        let text = std::fs::read_to_string(path).ok()?;
        let line = (!issuer.is_empty())
            .then(|| text.lines().position(|l| l.contains(issuer)))
            .flatten()
            .map(|i| i + 1);
        (issuer.is_empty() || line.is_some()).then(|| (path.display().to_string(), line))
    });
    let (file, line) = found.unwrap_or_default();
    match error {
        true => switchboard_config::Problem::error(&file, line, "identity.issuers", message, fix),
        false => {
            switchboard_config::Problem::warning(&file, line, "identity.issuers", message, fix)
        }
    }
}
