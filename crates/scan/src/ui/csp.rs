//! What the scan says of an MCP Apps UI besides its text: a reduced text that was cut, and the
//! origins its content security policy opens that the gateway's egress guard refuses.

use super::UI_TEXT_CUT;
use crate::{Severity, Sink, rules};
use serde_json::Value;
use std::net::IpAddr;

/// The CSP keys of `_meta.ui.csp` that name origins.
const CSP_KEYS: [&str; 4] = [
    "connectDomains",
    "resourceDomains",
    "frameDomains",
    "baseUriDomains",
];

/// What the scan says of a UI besides its text: that its reduced text was cut (what followed
/// was not scanned), and the origins its content security policy (`_meta.ui.csp`) opens that
/// the gateway's egress guard refuses by default: loopback, private, link-local and metadata
/// addresses and names, plain `http://`, and wildcards that open every origin.
pub(crate) fn check_ui(ui: &Value, sink: &mut Sink) {
    let text = ui.get("text").and_then(Value::as_str);
    if text.is_some_and(|t| t.ends_with(UI_TEXT_CUT)) {
        let why = "the UI's text is over 256 KiB: what follows the first 256 KiB was not scanned";
        sink.add(rules::OVERSIZED, Severity::Medium, "uiResource.text", why);
    }
    let Some(csp) = ui.get("ui").and_then(|u| u.get("csp")) else {
        return;
    };
    for key in CSP_KEYS {
        let origins = csp.get(key).and_then(Value::as_array).into_iter().flatten();
        for origin in origins.filter_map(Value::as_str) {
            if let Some((severity, why)) = refused(origin) {
                let location = format!("uiResource.ui.csp.{key}");
                sink.add(
                    rules::UI_CSP_ORIGIN,
                    severity,
                    &location,
                    &format!("{origin}: {why}"),
                );
            }
        }
    }
}

/// Why the egress guard would not let the gateway reach `origin`, and how much that weighs.
/// The host is read as a browser reads it (WHATWG URL parsing: `127.1`, `2130706433` and
/// `0x7f000001` are 127.0.0.1).
fn refused(origin: &str) -> Option<(Severity, &'static str)> {
    let origin = origin.trim();
    if matches!(origin, "*" | "https:" | "http:" | "wss:" | "ws:") {
        return Some((Severity::Medium, "opens every origin"));
    }
    let (scheme, rest) = origin.split_once("://").unwrap_or(("https", origin));
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host == "*" || host.starts_with("*:") {
        return Some((Severity::Medium, "opens every origin"));
    }
    let url = url::Url::parse(&format!("{scheme}://{rest}")).ok()?;
    match url.host()? {
        url::Host::Ipv4(ip) => {
            if let Some(why) = internal_address(IpAddr::V4(ip)) {
                return Some((Severity::High, why));
            }
        }
        url::Host::Ipv6(ip) => {
            if let Some(why) = internal_address(IpAddr::V6(ip)) {
                return Some((Severity::High, why));
            }
        }
        url::Host::Domain(name) => {
            let name = name.trim_end_matches('.');
            if name == "localhost" || name.ends_with(".localhost") {
                return Some((Severity::High, "a loopback name"));
            }
            if name == "metadata.google.internal" || name == "metadata" {
                return Some((Severity::High, "a cloud metadata name"));
            }
        }
    }
    if matches!(scheme, "http" | "ws") {
        return Some((Severity::Medium, "plain http, never allowed upstream"));
    }
    None
}

/// Why an address is one the egress guard refuses (its default: public addresses only).
fn internal_address(ip: IpAddr) -> Option<&'static str> {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) if v4.octets()[..2] == [169, 254] => {
            Some("a link-local or metadata address")
        }
        IpAddr::V4(v4) if v4.is_loopback() => Some("a loopback address"),
        IpAddr::V4(v4)
            if v4.is_private() || (v4.octets()[0] == 100 && v4.octets()[1] & 0xc0 == 64) =>
        {
            Some("a private address")
        }
        IpAddr::V4(v4) if v4.is_unspecified() || v4.is_broadcast() || v4.is_multicast() => {
            Some("not a public address")
        }
        IpAddr::V6(v6) if v6.is_loopback() => Some("a loopback address"),
        IpAddr::V6(v6) if v6.segments()[0] & 0xfe00 == 0xfc00 => Some("a private address"),
        IpAddr::V6(v6) if v6.segments()[0] & 0xffc0 == 0xfe80 => Some("a link-local address"),
        IpAddr::V6(v6) if v6.is_unspecified() || v6.is_multicast() => Some("not a public address"),
        _ => None,
    }
}
