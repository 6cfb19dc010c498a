//! Classifying one IP address: public, or which non-public range it belongs to.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address (or URL) may not be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    CloudMetadata,
    Loopback,
    Private,
    SharedAddressSpace,
    LinkLocal,
    UniqueLocal,
    Unspecified,
    Multicast,
    Broadcast,
    Benchmark,
    Documentation,
    Reserved,
}

impl Refusal {
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::CloudMetadata => "a cloud metadata address",
            Refusal::Loopback => "a loopback address",
            Refusal::Private => "a private (RFC 1918) address",
            Refusal::SharedAddressSpace => "a carrier-grade NAT (100.64.0.0/10) address",
            Refusal::LinkLocal => "a link-local address",
            Refusal::UniqueLocal => "a unique-local (fc00::/7) address",
            Refusal::Unspecified => "the unspecified address",
            Refusal::Multicast => "a multicast address",
            Refusal::Broadcast => "the broadcast address",
            Refusal::Benchmark => "a benchmarking (198.18.0.0/15) address",
            Refusal::Documentation => "a documentation-only address",
            Refusal::Reserved => "a reserved address",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

const METADATA_V4: [Ipv4Addr; 4] = [
    Ipv4Addr::new(169, 254, 169, 254), // AWS, GCP, Azure, OpenStack, ...
    Ipv4Addr::new(169, 254, 170, 2),   // AWS ECS task metadata
    Ipv4Addr::new(100, 100, 100, 200), // Alibaba Cloud
    Ipv4Addr::new(192, 0, 0, 192),     // Oracle Cloud
];
const METADATA_V6: [Ipv6Addr; 1] = [Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)];

/// The IPv4 address an IPv6 address carries: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo
/// (`2001::/32`, the client address inverted).
pub fn embedded_ipv4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = v6.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    if s[..6] == [0, 0, 0, 0, 0, 0] && !(s[6] == 0 && s[7] <= 1) {
        return Some(tail); // IPv4-compatible (but not :: or ::1)
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1) {
        return Some(tail);
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    if s[0] == 0x2001 && s[1] == 0 {
        return Some(Ipv4Addr::from(!u32::from(tail)));
    }
    None
}

/// `None` when the address is public; otherwise the range it falls in.
pub fn classify(ip: IpAddr) -> Option<Refusal> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => match embedded_ipv4(v6) {
            Some(v4) => classify_v4(v4),
            None => classify_v6(v6),
        },
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<Refusal> {
    let [a, b, c, _] = ip.octets();
    if METADATA_V4.contains(&ip) {
        return Some(Refusal::CloudMetadata);
    }
    Some(match (a, b, c) {
        (0, 0, 0) if ip.is_unspecified() => Refusal::Unspecified,
        (0, _, _) => Refusal::Reserved, // "this network"
        (127, _, _) => Refusal::Loopback,
        (10, _, _) => Refusal::Private,
        (172, 16..=31, _) => Refusal::Private,
        (192, 168, _) => Refusal::Private,
        (100, 64..=127, _) => Refusal::SharedAddressSpace,
        (169, 254, _) => Refusal::LinkLocal,
        (198, 18..=19, _) => Refusal::Benchmark,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => Refusal::Documentation,
        (192, 0, 0) => Refusal::Reserved, // IETF protocol assignments
        (224..=239, _, _) => Refusal::Multicast,
        (255, 255, 255) if ip.is_broadcast() => Refusal::Broadcast,
        (240..=255, _, _) => Refusal::Reserved,
        _ => return None,
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<Refusal> {
    let s = ip.segments();
    if METADATA_V6.contains(&ip) {
        return Some(Refusal::CloudMetadata);
    }
    if ip.is_unspecified() {
        return Some(Refusal::Unspecified);
    }
    if ip.is_loopback() {
        return Some(Refusal::Loopback);
    }
    Some(match s[0] {
        0xfe80..=0xfebf => Refusal::LinkLocal,
        0xfec0..=0xfeff => Refusal::Reserved, // deprecated site-local
        0xfc00..=0xfdff => Refusal::UniqueLocal,
        0xff00..=0xffff => Refusal::Multicast,
        0x2001 if s[1] == 0x0db8 => Refusal::Documentation,
        0x3fff if s[1] <= 0x0fff => Refusal::Documentation,
        0x2001 if s[1] == 0x0002 && s[2] == 0 => Refusal::Benchmark,
        0x0100 if s[1..4] == [0, 0, 0] => Refusal::Reserved, // discard-only
        // Only global unicast (2000::/3) is public.
        0x2000..=0x3fff => return None,
        _ => Refusal::Reserved,
    })
}
