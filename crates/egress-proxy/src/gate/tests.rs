use super::*;
use switchboard_egress::StaticLookup;

fn make(net: &[&str], forbidden: Vec<SocketAddr>) -> (Gate, StaticLookup) {
    let lookup = StaticLookup::default();
    let net: Vec<String> = net.iter().map(|s| s.to_string()).collect();
    let gate = Gate::new(
        &net,
        &EgressPolicy::dev(),
        forbidden,
        Arc::new(lookup.clone()),
    );
    (gate, lookup)
}

fn refused(result: Result<Vec<SocketAddr>, Denial>) -> ProxyRefusal {
    match result {
        Err(Denial::Refused(r)) => r,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn only_listed_hosts_and_ports_pass_even_with_dev() {
    let (gate, lookup) = make(&["api.example.com", "localhost:8080"], Vec::new());
    lookup.set("api.example.com", vec!["93.184.215.14".parse().unwrap()]);
    lookup.set("localhost", vec!["127.0.0.1".parse().unwrap()]);
    lookup.set("other.example.com", vec!["93.184.215.15".parse().unwrap()]);
    let ok = gate.check("API.example.com.", 443).await.unwrap();
    assert_eq!(ok, vec!["93.184.215.14:443".parse().unwrap()]);
    // A listed loopback name reaches loopback, at its port only.
    let ok = gate.check("localhost", 8080).await.unwrap();
    assert_eq!(ok, vec!["127.0.0.1:8080".parse().unwrap()]);
    let r = refused(gate.check("localhost", 8081).await);
    assert_eq!(r.reason(), "port");
    assert!(r.to_string().contains("add \"localhost:8081\""), "{r}");
    let r = refused(gate.check("api.example.com", 8443).await);
    assert_eq!(r.reason(), "port");
    // Not listed: refused whatever it resolves to, and --dev does not let loopback through.
    let r = refused(gate.check("other.example.com", 443).await);
    assert_eq!(r.reason(), "not_listed");
    assert_eq!(r.target(), "other.example.com:443");
    let r = refused(gate.check("127.0.0.1", 8080).await);
    assert_eq!(r.reason(), "not_listed", "an address is listed by itself");
}

#[tokio::test]
async fn a_listed_name_resolving_to_cloud_metadata_is_refused() {
    let (gate, lookup) = make(
        &["innocent.example.com", "metadata.google.internal"],
        Vec::new(),
    );
    lookup.set(
        "innocent.example.com",
        vec!["169.254.169.254".parse().unwrap()],
    );
    let r = refused(gate.check("innocent.example.com", 80).await);
    assert_eq!(r.reason(), "egress");
    assert!(r.to_string().contains("169.254.169.254"), "{r}");
    let r = refused(gate.check("metadata.google.internal", 80).await);
    assert_eq!(r.reason(), "egress");
    let (gate, _) = make(&["169.254.169.254:80"], Vec::new());
    let r = refused(gate.check("169.254.169.254", 80).await);
    assert_eq!(r.reason(), "egress");
}

#[tokio::test]
async fn the_gateways_own_addresses_are_never_reached() {
    let own: SocketAddr = "127.0.0.1:8765".parse().unwrap();
    let any_db: SocketAddr = "0.0.0.0:5432".parse().unwrap();
    let (gate, lookup) = make(
        &["localhost:8765", "db.internal:5432", "[::1]:8766"],
        vec![own, any_db],
    );
    lookup.set("localhost", vec!["127.0.0.1".parse().unwrap()]);
    lookup.set("db.internal", vec!["10.1.2.3".parse().unwrap()]);
    let r = refused(gate.check("localhost", 8765).await);
    assert_eq!(r.reason(), "gateway");
    let r = refused(gate.check("db.internal", 5432).await);
    assert_eq!(
        r.reason(),
        "gateway",
        "an unspecified listen address covers every address"
    );
    let ok = gate.check("[::1]", 8766).await.unwrap();
    assert_eq!(ok, vec!["[::1]:8766".parse().unwrap()]);
    // The gateway's address in IPv4-mapped IPv6 form is the gateway's address.
    let (gate, lookup) = make(&["mapped.test:8765"], vec![own]);
    lookup.set("mapped.test", vec!["::ffff:127.0.0.1".parse().unwrap()]);
    let r = refused(gate.check("mapped.test", 8765).await);
    assert_eq!(r.reason(), "gateway");
}

#[tokio::test]
async fn a_name_without_answers_is_a_failure_not_a_refusal() {
    let (gate, _) = make(&["nowhere.example.com"], Vec::new());
    match gate.check("nowhere.example.com", 443).await {
        Err(Denial::Failed(why)) => assert!(why.contains("cannot resolve"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_wildcard_entry_does_not_open_loopback_or_private_addresses() {
    let (gate, lookup) = make(&["*.example.com", "exact.example.com"], Vec::new());
    lookup.set("picked.example.com", vec!["10.0.0.7".parse().unwrap()]);
    lookup.set("exact.example.com", vec!["10.0.0.8".parse().unwrap()]);
    lookup.set("public.example.com", vec!["93.184.215.14".parse().unwrap()]);
    let r = refused(gate.check("picked.example.com", 443).await);
    assert_eq!(r.reason(), "egress", "{r}");
    assert!(gate.check("exact.example.com", 443).await.is_ok());
    assert!(gate.check("public.example.com", 443).await.is_ok());
}
