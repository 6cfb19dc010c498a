//! A table of URLs and addresses, allowed and refused, with the reason asserted. Pure checks:
//! nothing here sends a packet.

use std::net::IpAddr;
use std::sync::Arc;
use switchboard_egress::{EgressError, EgressPolicy, GuardedResolver, Refusal, StaticLookup};

use Refusal::*;

/// Expected outcome of a URL check.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Allow,
    Addr(Refusal),
    Name(Refusal),
    Scheme,
    TooLong,
    Userinfo,
    Invalid,
}

fn outcome(r: Result<url::Url, EgressError>) -> Want {
    match r {
        Ok(_) => Want::Allow,
        Err(EgressError::Address { reason, .. } | EgressError::Literal { reason, .. }) => {
            Want::Addr(reason)
        }
        Err(EgressError::Name { reason, .. }) => Want::Name(reason),
        Err(EgressError::Scheme { .. }) => Want::Scheme,
        Err(EgressError::UrlTooLong { .. }) => Want::TooLong,
        Err(EgressError::Userinfo) => Want::Userinfo,
        Err(EgressError::InvalidUrl(_)) => Want::Invalid,
        Err(other) => panic!("unexpected {other}"),
    }
}

#[test]
fn urls_in_every_form_are_normalised_and_judged() {
    let long = format!("https://example.com/{}", "a".repeat(2100));
    let cases: Vec<(&str, Want)> = vec![
        // Public, allowed.
        ("https://example.com/mcp", Want::Allow),
        ("https://mcp.example.com:8443/v1/mcp?x=1", Want::Allow),
        ("https://93.184.216.34/mcp", Want::Allow),
        ("https://[2606:4700:4700::1111]/mcp", Want::Allow),
        ("https://8.8.8.8/", Want::Allow),
        ("https://example.com./mcp", Want::Allow),
        // Loopback in every spelling.
        ("https://127.0.0.1/", Want::Addr(Loopback)),
        ("https://127.1/", Want::Addr(Loopback)),
        ("https://2130706433/", Want::Addr(Loopback)),
        ("https://0x7f000001/", Want::Addr(Loopback)),
        ("https://0x7f.0.0.1/", Want::Addr(Loopback)),
        ("https://0177.0.0.1/", Want::Addr(Loopback)),
        ("https://017700000001/", Want::Addr(Loopback)),
        ("https://127.0.0.1./", Want::Addr(Loopback)),
        ("https://127.255.255.254/", Want::Addr(Loopback)),
        ("https://[::1]/", Want::Addr(Loopback)),
        ("https://[::ffff:127.0.0.1]/", Want::Addr(Loopback)),
        ("https://[::ffff:7f00:1]/", Want::Addr(Loopback)),
        ("https://[::127.0.0.1]/", Want::Addr(Loopback)),
        ("https://[64:ff9b::127.0.0.1]/", Want::Addr(Loopback)),
        ("https://[64:ff9b:1::7f00:1]/", Want::Addr(Loopback)),
        ("https://[2002:7f00:1::]/", Want::Addr(Loopback)),
        ("https://localhost/", Want::Name(Loopback)),
        ("https://LOCALHOST./", Want::Name(Loopback)),
        ("https://api.localhost/", Want::Name(Loopback)),
        // Private and shared ranges.
        ("https://10.0.0.1/", Want::Addr(Private)),
        ("https://10.255.255.255/", Want::Addr(Private)),
        ("https://172.16.0.1/", Want::Addr(Private)),
        ("https://172.31.255.255/", Want::Addr(Private)),
        ("https://172.32.0.1/", Want::Allow),
        ("https://192.168.1.1/", Want::Addr(Private)),
        ("https://0xc0a80101/", Want::Addr(Private)),
        ("https://[::ffff:10.0.0.1]/", Want::Addr(Private)),
        ("https://[::ffff:a00:1]/", Want::Addr(Private)),
        ("https://[64:ff9b::192.168.0.1]/", Want::Addr(Private)),
        ("https://100.64.0.1/", Want::Addr(SharedAddressSpace)),
        ("https://100.127.255.255/", Want::Addr(SharedAddressSpace)),
        ("https://100.128.0.1/", Want::Allow),
        // Link-local, unique-local, unspecified, multicast, reserved, benchmark.
        ("https://169.254.1.1/", Want::Addr(LinkLocal)),
        ("https://[fe80::1]/", Want::Addr(LinkLocal)),
        ("https://[fc00::1]/", Want::Addr(UniqueLocal)),
        ("https://[fd12:3456::1]/", Want::Addr(UniqueLocal)),
        ("https://0.0.0.0/", Want::Addr(Unspecified)),
        ("https://0/", Want::Addr(Unspecified)),
        ("https://[::]/", Want::Addr(Unspecified)),
        ("https://0.1.2.3/", Want::Addr(Reserved)),
        ("https://224.0.0.1/", Want::Addr(Multicast)),
        ("https://239.255.255.250/", Want::Addr(Multicast)),
        ("https://[ff02::1]/", Want::Addr(Multicast)),
        ("https://240.0.0.1/", Want::Addr(Reserved)),
        ("https://255.255.255.255/", Want::Addr(Broadcast)),
        ("https://198.18.0.1/", Want::Addr(Benchmark)),
        ("https://198.19.255.255/", Want::Addr(Benchmark)),
        ("https://192.0.2.10/", Want::Addr(Documentation)),
        ("https://[2001:db8::1]/", Want::Addr(Documentation)),
        ("https://[fec0::1]/", Want::Addr(Reserved)),
        // Cloud metadata, by address and by name.
        (
            "https://169.254.169.254/latest/meta-data/",
            Want::Addr(CloudMetadata),
        ),
        ("https://0xa9fea9fe/", Want::Addr(CloudMetadata)),
        (
            "https://[::ffff:169.254.169.254]/",
            Want::Addr(CloudMetadata),
        ),
        ("https://[fd00:ec2::254]/", Want::Addr(CloudMetadata)),
        ("https://100.100.100.200/", Want::Addr(CloudMetadata)),
        (
            "https://169.254.170.2/v2/credentials",
            Want::Addr(CloudMetadata),
        ),
        (
            "https://metadata.google.internal/computeMetadata/v1/",
            Want::Name(CloudMetadata),
        ),
        (
            "https://METADATA.GOOGLE.INTERNAL./",
            Want::Name(CloudMetadata),
        ),
        ("https://metadata/", Want::Name(CloudMetadata)),
        // Teredo embeds an inverted client address.
        (
            "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
            Want::Addr(Loopback),
        ),
        // Form.
        ("http://example.com/mcp", Want::Scheme),
        ("ftp://example.com/", Want::Scheme),
        ("file:///etc/passwd", Want::Scheme),
        ("https://user:pw@example.com/", Want::Userinfo),
        ("https://token@example.com/", Want::Userinfo),
        ("not a url", Want::Invalid),
        ("https://", Want::Invalid),
        (long.as_str(), Want::TooLong),
    ];
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let policy = EgressPolicy::default();
    let mut failures = Vec::new();
    for (url, want) in &cases {
        let got = outcome(policy.check_url(url));
        if got != *want {
            failures.push(format!("{url}: want {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dev_allows_loopback_and_http_to_it_only() {
    let dev = EgressPolicy::dev();
    for url in [
        "http://127.0.0.1:3000/mcp",
        "http://localhost:3000/mcp",
        "http://[::1]:3000/",
        "https://127.1/",
    ] {
        assert_eq!(outcome(dev.check_url(url)), Want::Allow, "{url}");
    }
    assert_eq!(outcome(dev.check_url("http://example.com/")), Want::Scheme);
    assert_eq!(
        outcome(dev.check_url("https://10.0.0.1/")),
        Want::Addr(Private)
    );
    assert_eq!(
        outcome(dev.check_url("https://169.254.169.254/")),
        Want::Addr(CloudMetadata)
    );
}

#[test]
fn the_operator_allowlist_opens_named_hosts_and_ranges_but_never_metadata() {
    let policy = EgressPolicy {
        allow_hosts: vec!["mcp.corp.internal".into(), "*.svc.cluster.local".into()],
        allow_cidrs: vec![
            "10.20.0.0/16".parse().unwrap(),
            "169.254.0.0/16".parse().unwrap(),
        ],
        ..EgressPolicy::default()
    };
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    assert!(
        policy
            .check_resolved("mcp.corp.internal", &[ip("10.1.2.3")])
            .is_ok()
    );
    assert!(
        policy
            .check_resolved("billing.svc.cluster.local", &[ip("192.168.5.5")])
            .is_ok()
    );
    assert!(
        policy
            .check_resolved("svc.cluster.local", &[ip("192.168.5.5")])
            .is_err()
    );
    assert!(
        policy
            .check_resolved("other.example", &[ip("10.20.3.4")])
            .is_ok()
    );
    assert!(
        policy
            .check_resolved("other.example", &[ip("10.21.3.4")])
            .is_err()
    );
    assert_eq!(outcome(policy.check_url("https://10.20.0.9/")), Want::Allow);
    assert_eq!(
        outcome(policy.check_url("https://169.254.169.254/")),
        Want::Addr(CloudMetadata)
    );
    assert!(
        policy
            .check_resolved("mcp.corp.internal", &[ip("169.254.169.254")])
            .is_err()
    );
}

#[test]
fn one_bad_answer_among_good_ones_refuses_the_name() {
    let policy = EgressPolicy::default();
    let answers: Vec<IpAddr> = vec![
        "93.184.216.34".parse().unwrap(),
        "10.0.0.5".parse().unwrap(),
    ];
    let err = policy
        .check_resolved("rebind.example", &answers)
        .unwrap_err();
    assert!(
        matches!(
            err,
            EgressError::Address {
                reason: Private,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("allow_hosts"),
        "the message names the fix: {err}"
    );
    assert!(matches!(
        policy.check_resolved("empty.example", &[]),
        Err(EgressError::NoAddresses { .. })
    ));
}

#[tokio::test]
async fn the_resolver_checks_every_answer_and_sees_changed_answers() {
    let lookup = StaticLookup::default();
    let resolver =
        GuardedResolver::new(Arc::new(EgressPolicy::default()), Arc::new(lookup.clone()));
    lookup.set("flip.example", vec!["93.184.216.34".parse().unwrap()]);
    assert_eq!(
        resolver
            .resolve_checked("flip.example")
            .await
            .unwrap()
            .len(),
        1
    );
    lookup.set("flip.example", vec!["127.0.0.1".parse().unwrap()]);
    let err = resolver.resolve_checked("flip.example.").await.unwrap_err();
    assert!(
        matches!(
            err,
            EgressError::Address {
                reason: Loopback,
                ..
            }
        ),
        "{err}"
    );
    assert!(matches!(
        resolver.resolve_checked("metadata.google.internal").await,
        Err(EgressError::Name {
            reason: CloudMetadata,
            ..
        })
    ));
    assert!(matches!(
        resolver.resolve_checked("unknown.example").await,
        Err(EgressError::Resolve { .. })
    ));
}
