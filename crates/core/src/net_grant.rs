//! One host a sandboxed server may reach through its egress proxy (`sandbox.net`).

/// `host`, `host:port`, `*.suffix[:port]`, an IP literal, or `[v6]:port`. Without a port,
/// ports 80 and 443.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetGrant {
    /// Lower case, no trailing dot, an IPv6 literal without its brackets.
    pub host: String,
    pub port: Option<u16>,
}

/// The ports a grant without one allows.
pub const DEFAULT_NET_PORTS: [u16; 2] = [80, 443];

impl NetGrant {
    /// Reads one `sandbox.net` entry; the error says what to write instead.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let s = raw.trim();
        if s.contains("://") || s.contains('/') {
            return Err(format!(
                "{raw:?} is a URL; write the host alone (\"api.example.com\" or \"api.example.com:8443\")"
            ));
        }
        let (host, port) = match s.strip_prefix('[') {
            Some(rest) => {
                let (host, after) = rest
                    .split_once(']')
                    .ok_or_else(|| format!("{raw:?} opens a [ it does not close"))?;
                match after {
                    "" => (host, None),
                    _ => {
                        let port = after.strip_prefix(':').ok_or_else(|| {
                            format!("{raw:?}: write [address]:port for an IPv6 address and port")
                        })?;
                        (host, Some(port))
                    }
                }
            }
            // A bare IPv6 address has colons of its own and no port.
            None if s.matches(':').count() > 1 => (s, None),
            None => match s.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (s, None),
            },
        };
        let port = match port {
            None => None,
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => Some(n),
                _ => return Err(format!("{raw:?}: {p:?} is not a port (1 to 65535)")),
            },
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        if host.is_empty() || host == "*." || host.chars().any(char::is_whitespace) {
            return Err(format!(
                "{raw:?} names no host; write \"api.example.com\" or \"api.example.com:8443\""
            ));
        }
        Ok(Self { host, port })
    }

    /// Whether this grant covers `host` (normalised as [`NetGrant::parse`] does) at `port`.
    pub fn covers(&self, host: &str, port: u16) -> bool {
        self.names(host) && self.allows_port(port)
    }

    /// Whether this grant names `host`, at whatever port.
    pub fn names(&self, host: &str) -> bool {
        match self.host.strip_prefix("*.") {
            Some(suffix) => host.len() > suffix.len() && host.ends_with(&format!(".{suffix}")),
            None => self.host == host,
        }
    }

    fn allows_port(&self, port: u16) -> bool {
        match self.port {
            Some(p) => p == port,
            None => DEFAULT_NET_PORTS.contains(&port),
        }
    }
}

impl std::fmt::Display for NetGrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let host = match self.host.contains(':') {
            true => format!("[{}]", self.host),
            false => self.host.clone(),
        };
        match self.port {
            Some(port) => write!(f, "{host}:{port}"),
            None => write!(f, "{host} (ports 80 and 443)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_as_written_and_mistakes_say_what_to_write() {
        let g = NetGrant::parse("API.Example.com.").unwrap();
        assert_eq!((g.host.as_str(), g.port), ("api.example.com", None));
        assert!(g.covers("api.example.com", 443) && g.covers("api.example.com", 80));
        assert!(!g.covers("api.example.com", 8443));
        assert!(g.names("api.example.com"));
        let g = NetGrant::parse("localhost:8080").unwrap();
        assert!(g.covers("localhost", 8080) && !g.covers("localhost", 443));
        let g = NetGrant::parse("[::1]:9000").unwrap();
        assert_eq!((g.host.as_str(), g.port), ("::1", Some(9000)));
        assert_eq!(g.to_string(), "[::1]:9000");
        let g = NetGrant::parse("::1").unwrap();
        assert_eq!((g.host.as_str(), g.port), ("::1", None));
        let g = NetGrant::parse("*.example.com").unwrap();
        assert!(g.covers("a.example.com", 443) && !g.covers("example.com", 443));
        for (bad, says) in [
            ("https://api.example.com", "write the host alone"),
            ("api.example.com:https", "not a port"),
            ("api.example.com:0", "not a port"),
            (":443", "names no host"),
            ("[::1", "does not close"),
            ("[::1]443", "[address]:port"),
        ] {
            let error = NetGrant::parse(bad).unwrap_err();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }
}
