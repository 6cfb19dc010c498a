//! The one shared outbound HTTP client every upstream connection uses (redirects never followed).

use crate::UpstreamError;
use std::time::Duration;

/// What upstream URLs may be used. Later work adds address checks here, in one place.
#[derive(Debug, Clone, Default)]
pub struct HttpPolicy {
    /// `--dev`: allow `http://` and loopback hosts.
    pub dev: bool,
}

/// The shared, injectable outbound HTTP client.
#[derive(Debug, Clone)]
pub struct UpstreamHttp {
    client: reqwest::Client,
    policy: HttpPolicy,
}

impl UpstreamHttp {
    pub fn new(policy: HttpPolicy) -> Self {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(10))
            .pool_idle_timeout(Duration::from_secs(90))
            .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        Self { client, policy }
    }

    /// Wraps a client the embedder built (it must not follow redirects).
    pub fn with_client(client: reqwest::Client, policy: HttpPolicy) -> Self {
        Self { client, policy }
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    pub fn policy(&self) -> &HttpPolicy {
        &self.policy
    }

    /// Refuses URLs the policy does not allow, naming the reason and the fix.
    pub fn check_url(&self, url: &str) -> Result<reqwest::Url, UpstreamError> {
        let refuse = |reason: &str| UpstreamError::UrlRefused {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        if url.len() > 2048 {
            return Err(refuse("longer than 2048 characters"));
        }
        let parsed = reqwest::Url::parse(url).map_err(|e| refuse(&format!("not a URL ({e})")))?;
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(refuse(
                "credentials in the URL are not allowed; use headers or auth",
            ));
        }
        let host = parsed.host_str().unwrap_or_default();
        let loopback = is_loopback_host(host);
        match parsed.scheme() {
            "https" => {}
            "http" if self.policy.dev && loopback => {}
            "http" if loopback => {
                return Err(refuse("http:// to loopback is only allowed with --dev"));
            }
            "http" => return Err(refuse("only https:// upstream URLs are allowed")),
            _ => return Err(refuse("only https:// upstream URLs are allowed")),
        }
        if loopback && !self.policy.dev {
            return Err(refuse("loopback addresses are only allowed with --dev"));
        }
        Ok(parsed)
    }
}

fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheme_and_loopback_rules() {
        let prod = UpstreamHttp::new(HttpPolicy { dev: false });
        let dev = UpstreamHttp::new(HttpPolicy { dev: true });
        assert!(prod.check_url("https://mcp.example.test/mcp").is_ok());
        assert!(prod.check_url("http://mcp.example.test/mcp").is_err());
        assert!(prod.check_url("http://127.0.0.1:3000/mcp").is_err());
        assert!(prod.check_url("https://localhost/mcp").is_err());
        assert!(dev.check_url("http://127.0.0.1:3000/mcp").is_ok());
        assert!(dev.check_url("http://[::1]:3000/mcp").is_ok());
        assert!(dev.check_url("http://mcp.example.test/mcp").is_err());
        assert!(dev.check_url("https://user:pw@mcp.example.test/").is_err());
        assert!(
            dev.check_url(&format!("https://a.test/{}", "x".repeat(2050)))
                .is_err()
        );
    }
}
