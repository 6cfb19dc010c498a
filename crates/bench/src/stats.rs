//! Latency percentiles, throughput, CPU per call, and the gateway/direct comparison.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

pub(crate) struct Phase {
    pub target: &'static str,
    pub mode: &'static str,
    pub p50: Duration,
    pub p99: Duration,
    pub calls_per_sec: f64,
    /// CPU µs per call, per process.
    pub cpu_us_per_call: HashMap<&'static str, f64>,
}

impl Phase {
    pub(crate) fn new(
        target: &'static str,
        mode: &'static str,
        mut latencies: Vec<Duration>,
        wall: Duration,
        cpu: HashMap<&'static str, Duration>,
    ) -> Self {
        latencies.sort();
        let n = latencies.len().max(1);
        let pick = |q: f64| latencies[((n as f64 * q) as usize).min(n - 1)];
        Self {
            target,
            mode,
            p50: pick(0.50),
            p99: pick(0.99),
            calls_per_sec: n as f64 / wall.as_secs_f64(),
            cpu_us_per_call: cpu
                .into_iter()
                .map(|(k, v)| (k, v.as_secs_f64() * 1e6 / n as f64))
                .collect(),
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub(crate) struct Row {
    target: &'static str,
    mode: &'static str,
    p50_us: f64,
    p99_us: f64,
    calls_per_sec: f64,
    cpu: HashMap<&'static str, f64>,
}

pub(crate) struct Summary {
    rows: Vec<Row>,
}

impl Summary {
    pub(crate) fn from_phases(phases: &[Phase]) -> Self {
        let mut rows = Vec::new();
        for mode in ["sequential", "concurrent"] {
            for target in ["direct", "gateway", "no-audit", "policy"] {
                let of: Vec<&Phase> = phases
                    .iter()
                    .filter(|p| p.mode == mode && p.target == target)
                    .collect();
                let m = |f: &dyn Fn(&Phase) -> f64| median(of.iter().map(|p| f(p)).collect());
                let cpu = ["upstream", "gateway", "bench"]
                    .into_iter()
                    .map(|proc| {
                        (
                            proc,
                            m(&|p| p.cpu_us_per_call.get(proc).copied().unwrap_or(0.0)),
                        )
                    })
                    .collect();
                rows.push(Row {
                    target,
                    mode,
                    p50_us: m(&|p| p.p50.as_secs_f64() * 1e6),
                    p99_us: m(&|p| p.p99.as_secs_f64() * 1e6),
                    calls_per_sec: m(&|p| p.calls_per_sec),
                    cpu,
                });
            }
        }
        Self { rows }
    }

    fn row(&self, target: &str, mode: &str) -> &Row {
        self.rows
            .iter()
            .find(|r| r.target == target && r.mode == mode)
            .expect("row")
    }

    pub(crate) fn render(&self) -> String {
        let mut out = format!(
            "{:<11} {:<8} {:>9} {:>9} {:>10} {:>14} {:>14} {:>12}\n",
            "mode",
            "target",
            "p50 µs",
            "p99 µs",
            "calls/s",
            "upstream cpu",
            "gateway cpu",
            "bench cpu"
        );
        for r in &self.rows {
            out.push_str(&format!(
                "{:<11} {:<8} {:>9.0} {:>9.0} {:>10.0} {:>12.1}µs {:>12.1}µs {:>10.1}µs\n",
                r.mode,
                r.target,
                r.p50_us,
                r.p99_us,
                r.calls_per_sec,
                r.cpu["upstream"],
                r.cpu["gateway"],
                r.cpu["bench"]
            ));
        }
        for mode in ["sequential", "concurrent"] {
            let (d, g) = (self.row("direct", mode), self.row("gateway", mode));
            let u = self.row("no-audit", mode);
            out.push_str(&format!(
                "{mode}: gateway adds {:.0} µs at p50 ({:.0} µs at p99); throughput {:.0}% of direct; auditing adds {:+.1}% at p50 over the unaudited gateway\n",
                g.p50_us - d.p50_us,
                g.p99_us - d.p99_us,
                100.0 * g.calls_per_sec / d.calls_per_sec,
                100.0 * (g.p50_us - u.p50_us) / u.p50_us
            ));
            let p = self.row("policy", mode);
            out.push_str(&format!(
                "{mode}: a realistic policy (20 rules, a rate limit, IFC) adds {:+.0} µs at p50 and {:+.1} µs of gateway CPU per call over the empty policy; throughput {:.0}% of the empty policy's\n",
                p.p50_us - g.p50_us,
                p.cpu["gateway"] - g.cpu["gateway"],
                100.0 * p.calls_per_sec / g.calls_per_sec
            ));
        }
        out
    }

    pub(crate) fn to_json(&self) -> Value {
        Value::Array(
            self.rows
                .iter()
                .map(|r| {
                    json!({"mode": r.mode, "target": r.target, "p50_us": r.p50_us, "p99_us": r.p99_us,
                           "calls_per_sec": r.calls_per_sec, "cpu_us_per_call": r.cpu})
                })
                .collect(),
        )
    }
}
