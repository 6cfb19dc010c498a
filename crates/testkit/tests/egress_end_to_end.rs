//! Egress refusals end to end, with loopback servers only: names that resolve to loopback while
//! loopback is forbidden, a redirect, and a name whose answer changes between calls. Refused
//! addresses are refused before any connection is attempted.

use common::ECHO;
use serde_json::json;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;
use switchboard_core::{ErrorKind, ServerSlug, ServerSpec, ServerStatus, Transport};
use switchboard_egress::{EgressPolicy, StaticLookup};
use switchboard_registry::{CallOptions, Registry, RegistryOptions, UpstreamHttp};
use switchboard_testkit as kit;
use switchboard_upstream::Connection;

mod common;

fn http_spec(name: &str, url: &str) -> ServerSpec {
    ServerSpec::new(
        ServerSlug::parse(name).unwrap(),
        Transport::Http(switchboard_core::HttpSpec {
            url: url.to_string(),
            ..Default::default()
        }),
    )
}

fn registry(policy: EgressPolicy, lookup: &StaticLookup) -> Registry {
    let http = UpstreamHttp::with_lookup(policy, Arc::new(lookup.clone()));
    Registry::new(RegistryOptions::default().with_http(http))
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_name_resolving_to_loopback_is_refused_while_loopback_is_forbidden() {
    let upstream = kit::Served::start(Path::new(ECHO), &["--http", "127.0.0.1:0"]).await;
    let port = upstream.port();
    let lookup = StaticLookup::default();
    lookup.set("innocent.example", vec![ip("127.0.0.1")]);
    let registry = registry(EgressPolicy::default(), &lookup);

    let by_name = registry
        .add_server(http_spec(
            "named",
            &format!("https://innocent.example:{port}/mcp"),
        ))
        .await;
    assert_eq!(by_name.status, ServerStatus::Error);
    let error = by_name.last_error.unwrap();
    assert!(
        error.contains("innocent.example resolves to 127.0.0.1, a loopback address"),
        "{error}"
    );

    // The system resolver's own `localhost`, and loopback literals in any spelling.
    for url in [
        format!("https://localhost:{port}/mcp"),
        format!("https://2130706433:{port}/mcp"),
        format!("https://[::ffff:127.0.0.1]:{port}/mcp"),
    ] {
        let info = registry.add_server(http_spec("literal", &url)).await;
        assert_eq!(info.status, ServerStatus::Error, "{url}");
        assert!(
            info.last_error.as_deref().unwrap().contains("loopback"),
            "{url}: {info:?}"
        );
    }
    registry.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_is_a_transport_error_that_names_it() {
    // A loopback server (allowed with --dev) that redirects every request elsewhere on loopback.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let target = format!("http://127.0.0.1:{}/elsewhere", addr.port());
    let app = axum::Router::new().fallback(move || {
        let target = target.clone();
        async move { axum::response::Redirect::temporary(&target) }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });

    let spec = http_spec(
        "redirecting",
        &format!("http://127.0.0.1:{}/mcp", addr.port()),
    );
    let opts = common::dev_connect_options();
    let error = match Connection::connect(&spec, &opts).await {
        Ok(_) => panic!("a redirecting server must not connect"),
        Err(e) => e,
    };
    assert_eq!(error.kind(), ErrorKind::TransportError);
    let text = error.to_string();
    assert!(
        text.contains("307") && text.contains("/elsewhere"),
        "{text}"
    );
    assert!(text.contains("redirects are never followed"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_name_whose_answer_changes_is_checked_again_on_the_next_connection() {
    let upstream = kit::Served::start(
        Path::new(ECHO),
        &["--http", "127.0.0.1:0", "--close-connections"],
    )
    .await;
    let port = upstream.port();
    let lookup = StaticLookup::default();
    lookup.set("flip.localhost", vec![ip("127.0.0.1")]);
    let registry = registry(EgressPolicy::dev(), &lookup);
    let info = registry
        .add_server(http_spec(
            "flip",
            &format!("http://flip.localhost:{port}/mcp"),
        ))
        .await;
    assert_eq!(info.status, ServerStatus::Ready, "{info:?}");
    let ok = registry
        .call_tool(
            "flip__echo",
            Some(json!({"text": "first"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(ok.content[0].as_text().unwrap().text, "first");

    // The name now also answers with a private address: the next connection is refused
    // before anything is sent to it.
    lookup.set("flip.localhost", vec![ip("127.0.0.1"), ip("10.9.8.7")]);
    let err = registry
        .call_tool(
            "flip__echo",
            Some(json!({"text": "second"})),
            CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::PolicyDenied, "{err}");
    assert!(err.message.contains("10.9.8.7"), "{err}");
    registry.shutdown().await;
}
