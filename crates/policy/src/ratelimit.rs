//! Rate limits: GCRA token buckets per org × action, org × server or server. Exact across
//! replicas on Postgres (one conditional upsert per call on the database clock); in-process
//! on SQLite, and as the fallback while the store is unreachable (`on_store_error = "local"`).

use crate::doc::{DocProblem, LimitScope, RateLimitDoc, parse_rate};
use crate::rules::Glob;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use switchboard_core::{CallContext, GuardFuture};
use switchboard_store::{Admit, PolicyStore};
use switchboard_sync::Mutex;

/// One bucket's shape: an emission interval and how far ahead a burst may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    pub interval_us: i64,
    pub tolerance_us: i64,
}

impl Quota {
    /// `count` calls per `period_us`, `burst` at once.
    pub fn new(count: u32, period_us: i64, burst: u32) -> Self {
        let interval_us = (period_us / i64::from(count.max(1))).max(1);
        Self {
            interval_us,
            tolerance_us: interval_us * i64::from(burst.max(1) - 1),
        }
    }

    /// The same limit shared by `n` processes that cannot talk: each gets 1/n.
    pub fn divided(self, n: u32) -> Self {
        // Rate ÷ n, burst ÷ n: the interval grows n-fold; tolerance = new interval × (burst/n - 1).
        let n = i64::from(n.max(1));
        Self {
            interval_us: self.interval_us * n,
            tolerance_us: (self.tolerance_us - self.interval_us * (n - 1)).max(0),
        }
    }
}

/// A compiled `[[policy.rate_limits]]` entry.
#[derive(Debug, Clone)]
pub struct LimitRule {
    pub name: String,
    pub scope: LimitScope,
    actions: Option<Vec<Glob>>,
    pub quota: Quota,
}

impl LimitRule {
    pub fn compile(docs: &[RateLimitDoc]) -> Result<Vec<Self>, Vec<DocProblem>> {
        let mut problems = Vec::new();
        let mut rules = Vec::new();
        for (i, doc) in docs.iter().enumerate() {
            let mut problem = |field: &str, message: String, fix: &str| {
                problems.push(DocProblem {
                    path: format!("rate_limits[{i}].{field}"),
                    message,
                    fix: fix.into(),
                })
            };
            let parsed = parse_rate(&doc.rate);
            if parsed.is_none() {
                problem(
                    "rate",
                    format!("{:?} is not a rate", doc.rate),
                    "write N/s, N/m or N/h with N a whole number above 0, e.g. \"60/m\"",
                );
            }
            if doc.burst == Some(0) {
                problem(
                    "burst",
                    "a burst of 0 admits nothing".into(),
                    "write 1 or more, or leave it out",
                );
            }
            let mut actions = None;
            if let Some(list) = &doc.actions {
                let mut globs = Vec::new();
                for (j, pattern) in list.iter().enumerate() {
                    match Glob::new(pattern) {
                        Ok(g) => globs.push(g),
                        Err(m) => problem(
                            &format!("actions[{j}]"),
                            m,
                            "write mcp.<server>.<tool> with * where anything goes",
                        ),
                    }
                }
                actions = Some(globs);
            }
            if let Some((count, period_us)) = parsed {
                rules.push(LimitRule {
                    name: doc
                        .name
                        .clone()
                        .unwrap_or_else(|| format!("rate_limits[{i}]")),
                    scope: doc.scope,
                    actions,
                    quota: Quota::new(count, period_us, doc.burst.unwrap_or(count)),
                });
            }
        }
        if problems.is_empty() {
            Ok(rules)
        } else {
            Err(problems)
        }
    }

    pub fn applies(&self, action: &str) -> bool {
        self.actions
            .as_ref()
            .is_none_or(|globs| globs.iter().any(|g| g.matches(action)))
    }

    /// The bucket this call counts against, under the rule set's `owner` key.
    pub fn key(&self, owner: &str, call: &CallContext<'_>) -> String {
        let org = call.caller.org_id.as_deref().unwrap_or("-");
        let server = format!("{}:{}", call.tool.owner.key(), call.tool.server);
        match self.scope {
            LimitScope::OrgAction => format!("rl|{owner}|{}|{org}|{}", self.name, call.tool.action),
            LimitScope::OrgServer => format!("rl|{owner}|{}|{org}|{server}", self.name),
            LimitScope::Server => format!("rl|{owner}|{}|{server}", self.name),
            LimitScope::EndUser => format!(
                "rl|{owner}|{}|{org}|u:{}",
                self.name,
                call.end_user.unwrap_or("-")
            ),
        }
    }
}

/// Where buckets live.
pub trait Limiter: Send + Sync + 'static {
    /// One GCRA step; `Err` when the bucket cannot be reached (the store is down).
    fn admit<'a>(&'a self, key: &'a str, quota: Quota) -> GuardFuture<'a, Result<Admit, String>>;
}

/// Buckets in this process (SQLite: one process serves everything).
#[derive(Debug)]
pub struct LocalLimiter {
    cells: Mutex<HashMap<String, i64>>,
    epoch: Instant,
}

impl Default for LocalLimiter {
    fn default() -> Self {
        Self {
            cells: Mutex::default(),
            epoch: Instant::now(),
        }
    }
}

impl LocalLimiter {
    pub fn admit_now(&self, key: &str, quota: Quota) -> Admit {
        let now = self.epoch.elapsed().as_micros() as i64;
        let mut cells = self.cells.lock();
        let tat = cells.get(key).copied().unwrap_or(now).max(now);
        if tat - now > quota.tolerance_us {
            return Admit::RetryAfterUs((tat - now - quota.tolerance_us) as u64);
        }
        match cells.get_mut(key) {
            Some(cell) => *cell = tat + quota.interval_us,
            None => {
                cells.insert(key.to_string(), tat + quota.interval_us);
            }
        }
        Admit::Yes
    }
}

impl Limiter for LocalLimiter {
    fn admit<'a>(&'a self, key: &'a str, quota: Quota) -> GuardFuture<'a, Result<Admit, String>> {
        Box::pin(async move { Ok(self.admit_now(key, quota)) })
    }
}

/// Buckets in the shared store (Postgres), exact across replicas.
pub struct StoreLimiter {
    store: Arc<dyn PolicyStore>,
    /// `on_store_error = "local"`: this process's share while the store is down.
    fallback: Option<(LocalLimiter, u32)>,
}

impl StoreLimiter {
    pub fn new(store: Arc<dyn PolicyStore>, local_fallback_replicas: Option<u32>) -> Self {
        Self {
            store,
            fallback: local_fallback_replicas.map(|n| (LocalLimiter::default(), n)),
        }
    }
}

impl Limiter for StoreLimiter {
    fn admit<'a>(&'a self, key: &'a str, quota: Quota) -> GuardFuture<'a, Result<Admit, String>> {
        Box::pin(async move {
            match self
                .store
                .rate_admit(key, quota.interval_us, quota.tolerance_us)
                .await
            {
                Ok(admit) => Ok(admit),
                Err(e) => match &self.fallback {
                    Some((local, replicas)) => {
                        tracing::warn!("rate limit store unreachable, limiting in-process: {e}");
                        Ok(local.admit_now(key, quota.divided(*replicas)))
                    }
                    None => Err(format!("the rate-limit store cannot be reached: {e}")),
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_and_bad_ones_are_named() {
        assert_eq!(parse_rate("10/s"), Some((10, 1_000_000)));
        assert_eq!(parse_rate(" 60 / m "), Some((60, 60_000_000)));
        assert_eq!(parse_rate("0/s"), None);
        assert_eq!(parse_rate("10/d"), None);
        assert_eq!(parse_rate("ten/s"), None);
    }

    #[test]
    fn a_local_bucket_admits_its_burst_then_refuses_with_a_retry_time() {
        let limiter = LocalLimiter::default();
        let quota = Quota::new(5, 3_600_000_000, 5);
        let admitted = (0..20)
            .filter(|_| limiter.admit_now("k", quota) == Admit::Yes)
            .count();
        assert_eq!(admitted, 5);
        match limiter.admit_now("k", quota) {
            Admit::RetryAfterUs(us) => assert!(us > 0 && us <= 720_000_000, "{us}"),
            Admit::Yes => panic!("admitted past the burst"),
        }
        assert_eq!(limiter.admit_now("other", quota), Admit::Yes);
    }

    #[test]
    fn a_divided_quota_gives_each_process_its_share() {
        let q = Quota::new(100, 60_000_000, 100).divided(4);
        let limiter = LocalLimiter::default();
        let admitted = (0..200)
            .filter(|_| limiter.admit_now("k", q) == Admit::Yes)
            .count();
        assert_eq!(admitted, 25);
    }
}
