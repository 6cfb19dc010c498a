use super::*;
use std::time::Duration;
use switchboard_core::{Caller, ErrorKind, Verdict};

fn record(
    server: Option<&str>,
    outcome: Result<(), ErrorKind>,
    upstream: Option<u64>,
) -> CallRecord {
    CallRecord {
        caller: Caller::default(),
        end_user_id: Some("end-user-never-a-label".into()),
        action_id: match server {
            Some(s) => format!("mcp.{s}.echo"),
            None => "mcp.unknown.whatever_the_caller_typed".into(),
        },
        server: server.map(String::from),
        server_org: None,
        outcome,
        duration: Duration::from_millis(3),
        upstream: upstream.map(Duration::from_millis),
        request_bytes: 0,
        response_bytes: 0,
        verdicts: vec![Verdict::new("rate_limit", Effect::Limit)],
    }
}

fn parse(text: &str) -> prometheus_parse::Scrape {
    let lines = text.lines().map(|l| Ok(l.to_string()));
    prometheus_parse::Scrape::parse(lines).expect("Prometheus text")
}

fn value(scrape: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    scrape
        .samples
        .iter()
        .find(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(v)))
        .map(|s| match &s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => *v,
            other => panic!("{name}: {other:?}"),
        })
}

#[test]
fn calls_count_by_bounded_labels_and_split_their_time() {
    let metrics = Metrics::new();
    metrics.observe(record(Some("billing"), Ok(()), Some(2)));
    metrics.observe(record(Some("billing"), Err(ErrorKind::Timeout), None));
    metrics.observe(record(None, Err(ErrorKind::ToolNotFound), None));
    let text = metrics.render(&Snapshot::default());
    assert!(
        !text.contains("end-user-never-a-label") && !text.contains("whatever_the_caller_typed")
    );
    let scrape = parse(&text);
    let calls = "switchboard_tool_calls_total";
    let ok = [
        ("server", "billing"),
        ("action", "mcp.billing.echo"),
        ("outcome", "ok"),
    ];
    assert_eq!(value(&scrape, calls, &ok), Some(1.0));
    assert_eq!(value(&scrape, calls, &[("outcome", "timeout")]), Some(1.0));
    assert_eq!(
        value(&scrape, calls, &[("action", "mcp.unknown")]),
        Some(1.0)
    );
    assert_eq!(
        value(
            &scrape,
            "switchboard_policy_verdicts_total",
            &[("stage", "rate_limit"), ("effect", "limit")]
        ),
        Some(3.0)
    );
    // 2 ms upstream of a 3 ms call: the gateway's 1 ms lands at or under the 1.6 ms bucket.
    let histogram = scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == "switchboard_tool_call_gateway_duration_seconds"
                && s.labels.get("server") == Some("billing")
        })
        .expect("gateway histogram");
    let prometheus_parse::Value::Histogram(buckets) = &histogram.value else {
        panic!("{:?}", histogram.value)
    };
    let at = |le: f64| {
        buckets
            .iter()
            .find(|b| (b.less_than - le).abs() < 1e-9)
            .unwrap()
            .count
    };
    assert_eq!(at(0.0008), 0.0);
    assert_eq!(at(0.0016), 1.0, "the ok call's 1 ms");
    assert_eq!(
        at(0.0032),
        2.0,
        "the timed-out call never reached upstream: all 3 ms are the gateway's"
    );
}

#[test]
fn scrape_time_gauges_hold_only_the_servers_there_now() {
    let metrics = Metrics::new();
    let server = |name: &str, status| ServerGauges {
        server: name.into(),
        org: String::new(),
        status,
        in_flight: 2,
        queued: 1,
        capability_sessions: 0,
        end_user_sessions: 0,
    };
    let mut now = Snapshot {
        servers: vec![server("a", "ready"), server("b", "error")],
        sessions: 7,
        audit_written: 10,
        ..Snapshot::default()
    };
    let scrape = parse(&metrics.render(&now));
    assert_eq!(
        value(
            &scrape,
            "switchboard_server_status",
            &[("server", "b"), ("status", "error")]
        ),
        Some(1.0)
    );
    assert_eq!(
        value(
            &scrape,
            "switchboard_server_status",
            &[("server", "b"), ("status", "ready")]
        ),
        Some(0.0)
    );
    assert_eq!(
        value(&scrape, "switchboard_downstream_sessions", &[]),
        Some(7.0)
    );
    now.servers.remove(1);
    now.audit_written = 15;
    let scrape = parse(&metrics.render(&now));
    assert_eq!(
        value(&scrape, "switchboard_calls_in_flight", &[("server", "b")]),
        None
    );
    assert_eq!(
        value(&scrape, "switchboard_audit_rows_written_total", &[]),
        Some(15.0)
    );
}

#[test]
fn transitions_count_restarts_and_time_connects() {
    let metrics = Metrics::new();
    metrics.transition(
        "",
        "a",
        "connecting",
        "ready",
        Some(Duration::from_millis(40)),
    );
    metrics.transition("", "a", "ready", "connecting", None);
    metrics.transition(
        "",
        "a",
        "connecting",
        "error",
        Some(Duration::from_secs(15)),
    );
    let scrape = parse(&metrics.render(&Snapshot::default()));
    assert_eq!(
        value(
            &scrape,
            "switchboard_server_restarts_total",
            &[("server", "a")]
        ),
        Some(1.0)
    );
    assert_eq!(
        value(
            &scrape,
            "switchboard_server_transitions_total",
            &[("to", "ready")]
        ),
        Some(1.0)
    );
    assert!(scrape.samples.iter().any(|s| s.metric
        == "switchboard_server_connect_duration_seconds"
        && s.labels.get("outcome") == Some("error")));
}

#[test]
fn two_orgs_servers_of_one_slug_are_two_series() {
    let metrics = Metrics::new();
    for org in ["acme", "globex", "globex"] {
        let mut call = record(Some("billing"), Ok(()), Some(1));
        call.server_org = Some(org.into());
        metrics.observe(call);
    }
    metrics.observe(record(Some("billing"), Ok(()), Some(1)));
    metrics.transition("acme", "billing", "connecting", "ready", None);
    let scrape = parse(&metrics.render(&Snapshot::default()));
    let calls = "switchboard_tool_calls_total";
    for (org, expected) in [("acme", 1.0), ("globex", 2.0), ("", 1.0)] {
        let labels = [("server", "billing"), ("org", org)];
        assert_eq!(
            value(&scrape, calls, &labels),
            Some(expected),
            "org {org:?}"
        );
    }
    let entered = [("server", "billing"), ("org", "acme"), ("to", "ready")];
    let transitions = "switchboard_server_transitions_total";
    assert_eq!(value(&scrape, transitions, &entered), Some(1.0));
}
