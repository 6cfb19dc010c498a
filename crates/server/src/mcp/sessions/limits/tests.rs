//! The session ledger's counting: caps per client, per token and in all, and room given back.

use super::*;

fn limits(total: usize, per_client: usize, per_token: usize) -> Arc<SessionLimits> {
    Arc::new(SessionLimits::new(SessionCaps {
        total,
        per_client,
        per_token,
        in_memory: 10,
        expire_after: Duration::from_secs(3600),
    }))
}

fn owner(ip: &str, token: Option<&str>) -> Owner {
    Owner::new(Some(ip.parse().unwrap()), token)
}

/// Session `id` of `who` on the `mcp` endpoint, admitted and created.
fn open(limits: &Arc<SessionLimits>, who: Owner, id: &str) {
    limits.admit(who).unwrap().created(&"mcp".into(), id.into());
}

#[test]
fn one_client_at_its_cap_leaves_room_for_another() {
    let limits = limits(10, 2, 10);
    let scope: Arc<str> = "mcp".into();
    let a = owner("127.0.0.1", None);
    open(&limits, a, "s1");
    open(&limits, a, "s2");
    assert_eq!(limits.admit(a).err(), Some(Full::Client));
    // A second client address is not held back by the first one's sessions.
    limits.admit(owner("127.0.0.2", None)).unwrap();
    // Closing one gives its room back.
    limits.forget(&scope, &"s1".into());
    assert!(limits.admit(a).is_ok());
    assert_eq!(limits.refusals()[1], ("max_sessions_per_client", 1));
}

#[test]
fn a_token_is_counted_across_addresses_and_the_total_across_all() {
    let limits = limits(3, 10, 1);
    let _one = limits.admit(owner("127.0.0.1", Some("t1"))).unwrap();
    assert_eq!(
        limits.admit(owner("127.0.0.2", Some("t1"))).err(),
        Some(Full::Token)
    );
    let _two = limits.admit(owner("127.0.0.2", Some("t2"))).unwrap();
    let _three = limits.admit(owner("127.0.0.3", None)).unwrap();
    assert_eq!(
        limits.admit(owner("127.0.0.4", None)).err(),
        Some(Full::Sessions)
    );
}

#[test]
fn an_admission_that_made_no_session_gives_its_room_back() {
    let limits = limits(1, 1, 1);
    let a = owner("::1", Some("t"));
    drop(limits.admit(a).unwrap());
    limits.admit(a).unwrap();
}

#[test]
fn an_ipv6_client_is_counted_by_its_64_and_a_mapped_ipv4_as_ipv4() {
    let a = owner("2001:db8:1:2::1", None);
    let b = owner("2001:db8:1:2:ffff::9", None);
    let c = owner("2001:db8:1:3::1", None);
    assert_eq!(a.client, b.client);
    assert_ne!(a.client, c.client);
    assert_eq!(
        owner("::ffff:127.0.0.1", None).client,
        owner("127.0.0.1", None).client
    );
}

#[test]
fn parked_sessions_expire_after_their_unused_time() {
    let limits = limits(10, 10, 10);
    let scope: Arc<str> = "mcp".into();
    let a = owner("127.0.0.1", None);
    for id in ["old", "new", "live"] {
        open(&limits, a, id);
    }
    limits.parked(&scope, &"old".into(), Duration::from_secs(3600));
    limits.parked(&scope, &"new".into(), Duration::from_secs(10));
    assert_eq!(limits.expire(&"agent/x".into()), 0, "another endpoint's");
    assert_eq!(limits.expire(&scope), 1);
    assert_eq!(limits.counts().0, 2);
}
