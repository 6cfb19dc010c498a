//! Call figures per server over a window, from the audit log: counts and errors per time slot
//! and call-time percentiles from latency histograms the database builds (every replica's
//! calls, whatever their rate), never from a sample of rows.

use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Upper bounds (µs, exclusive) of the latency buckets: ten per decade from 10 µs to 100 s,
/// so a percentile read from them (interpolated inside its bucket) is within one bucket,
/// 26 %, of the true value. The last bucket is open.
pub static LATENCY_BOUNDS_US: LazyLock<Vec<i64>> = LazyLock::new(|| {
    (0..=70)
        .map(|k| 10f64.powf(1.0 + f64::from(k) / 10.0).round() as i64)
        .collect()
});

/// Outcomes that are not failures: a result, a question back to the caller, a task begun.
const NOT_ERRORS: &str = "'ok', 'input_required', 'task'";

/// The grouped query: one row per (server, slot, latency bucket). Calls are `mcp.` actions
/// with a server; a task's end (`task_completed`…) is a second row of one call, not counted.
/// A call the policy refused (verdict `denied`) is bucket -1: counted, and an error, but its
/// near-zero time would pull the percentiles of calls that ran down.
pub(crate) static STATS_SQL: LazyLock<String> = LazyLock::new(|| {
    let bucket = format!(
        "CASE WHEN verdict = 'denied' THEN -1 ELSE {} END",
        bucket_search(0, LATENCY_BOUNDS_US.len())
    );
    format!(
        "SELECT server, CAST((at - $1) / $2 AS BIGINT) AS slot, CAST({bucket} AS BIGINT) AS bucket, \
         CAST(COUNT(*) AS BIGINT) AS calls, \
         CAST(SUM(CASE WHEN outcome IN ({NOT_ERRORS}) THEN 0 ELSE 1 END) AS BIGINT) AS errors \
         FROM audit WHERE org_id = $3 AND at >= $4 AND action_id LIKE 'mcp.%' \
         AND server IS NOT NULL AND outcome NOT LIKE 'task\\_%' ESCAPE '\\' \
         GROUP BY server, slot, bucket"
    )
});

/// The bucket of `duration_us` among buckets `low..=high` as nested CASEs that halve the range:
/// seven comparisons a row instead of up to 71 in a flat CASE (a third of the query's time).
fn bucket_search(low: usize, high: usize) -> String {
    if low == high {
        return low.to_string();
    }
    let middle = (low + high) / 2;
    format!(
        "CASE WHEN duration_us < {} THEN {} ELSE {} END",
        LATENCY_BOUNDS_US[middle],
        bucket_search(low, middle),
        bucket_search(middle + 1, high)
    )
}

/// One row of the grouped query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsCell {
    pub server: String,
    pub slot: i64,
    /// The latency bucket; `None` for calls the policy refused.
    pub bucket: Option<usize>,
    pub calls: i64,
    pub errors: i64,
}

/// Calls, errors and call-time percentiles (of the calls that ran) of one slot or of the
/// whole window.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Figures {
    pub calls: i64,
    pub errors: i64,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

/// One time slot of a server's series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slot {
    pub at_ms: i64,
    #[serde(flatten)]
    pub figures: Figures,
}

/// A server's figures over the window and per slot (every slot, empty ones included).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerFigures {
    pub server: String,
    #[serde(flatten)]
    pub total: Figures,
    pub calls_per_s: f64,
    pub series: Vec<Slot>,
}

/// The window asked for: from `since_ms`, `slots` slots of `step_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub since_ms: i64,
    pub step_ms: i64,
    pub slots: usize,
}

#[derive(Default, Clone)]
struct Histogram {
    counts: BTreeMap<usize, i64>,
    refused: i64,
    errors: i64,
}

impl Histogram {
    fn add(&mut self, cell: &StatsCell) {
        match cell.bucket {
            Some(bucket) => *self.counts.entry(bucket).or_default() += cell.calls,
            None => self.refused += cell.calls,
        }
        self.errors += cell.errors;
    }

    fn merge(&mut self, other: &Histogram) {
        for (bucket, count) in &other.counts {
            *self.counts.entry(*bucket).or_default() += count;
        }
        self.refused += other.refused;
        self.errors += other.errors;
    }

    fn figures(&self) -> Figures {
        Figures {
            calls: self.counts.values().sum::<i64>() + self.refused,
            errors: self.errors,
            p50_ms: self.percentile(0.50),
            p99_ms: self.percentile(0.99),
        }
    }

    /// The `p` quantile, interpolated linearly inside its bucket, in milliseconds.
    fn percentile(&self, p: f64) -> Option<f64> {
        let total: i64 = self.counts.values().sum();
        if total == 0 {
            return None;
        }
        let rank = (p * total as f64).ceil().max(1.0);
        let mut below = 0i64;
        for (&bucket, &count) in &self.counts {
            if (below + count) as f64 >= rank {
                let bounds = &*LATENCY_BOUNDS_US;
                let low = if bucket == 0 { 0 } else { bounds[bucket - 1] };
                let Some(&high) = bounds.get(bucket) else {
                    return Some(low as f64 / 1000.0);
                };
                let within = (rank - below as f64) / count as f64;
                return Some((low as f64 + within * (high - low) as f64) / 1000.0);
            }
            below += count;
        }
        None
    }
}

/// The database's cells as each server's figures, sorted by server.
pub fn summarize(cells: &[StatsCell], window: Window) -> Vec<ServerFigures> {
    let mut by_server: BTreeMap<&str, Vec<Histogram>> = BTreeMap::new();
    for cell in cells {
        let slots = by_server
            .entry(&cell.server)
            .or_insert_with(|| vec![Histogram::default(); window.slots]);
        // A row stamped a little ahead of this replica's clock lands in the last slot.
        let slot = (cell.slot.max(0) as usize).min(window.slots.saturating_sub(1));
        if let Some(histogram) = slots.get_mut(slot) {
            histogram.add(cell);
        }
    }
    let seconds = (window.step_ms * window.slots as i64) as f64 / 1000.0;
    by_server
        .into_iter()
        .map(|(server, slots)| {
            let mut whole = Histogram::default();
            for slot in &slots {
                whole.merge(slot);
            }
            let total = whole.figures();
            ServerFigures {
                server: server.to_string(),
                calls_per_s: if seconds > 0.0 {
                    total.calls as f64 / seconds
                } else {
                    0.0
                },
                total,
                series: slots
                    .iter()
                    .enumerate()
                    .map(|(i, h)| Slot {
                        at_ms: window.since_ms + i as i64 * window.step_ms,
                        figures: h.figures(),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The bucket a call of `duration_us` falls in, as the query's CASE decides it.
pub fn bucket_of(duration_us: i64) -> usize {
    LATENCY_BOUNDS_US
        .iter()
        .position(|&bound| duration_us < bound)
        .unwrap_or(LATENCY_BOUNDS_US.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(server: &str, slot: i64, durations_us: &[i64], failed: usize) -> Vec<StatsCell> {
        let mut by_bucket: BTreeMap<usize, (i64, i64)> = BTreeMap::new();
        for (i, d) in durations_us.iter().enumerate() {
            let entry = by_bucket.entry(bucket_of(*d)).or_default();
            entry.0 += 1;
            entry.1 += i64::from(i < failed);
        }
        by_bucket
            .into_iter()
            .map(|(bucket, (calls, errors))| StatsCell {
                server: server.into(),
                slot,
                bucket: Some(bucket),
                calls,
                errors,
            })
            .collect()
    }

    #[test]
    fn bounds_climb_ten_per_decade() {
        let bounds = &*LATENCY_BOUNDS_US;
        assert_eq!(bounds.first(), Some(&10));
        assert_eq!(bounds[10], 100);
        assert_eq!(bounds.last(), Some(&100_000_000));
        assert!(bounds.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(bucket_of(5), 0);
        assert_eq!(bucket_of(200_000_000), bounds.len());
    }

    #[test]
    fn percentiles_are_within_a_bucket_of_the_true_value() {
        // 1,000 calls from 1 ms to 1,000 ms: p50 is 500 ms, p99 990 ms.
        let durations: Vec<i64> = (1..=1000).map(|ms| ms * 1000).collect();
        let window = Window {
            since_ms: 0,
            step_ms: 10_000,
            slots: 30,
        };
        let figures = summarize(&cells("a", 3, &durations, 7), window);
        let a = &figures[0];
        assert_eq!((a.total.calls, a.total.errors), (1000, 7));
        let p50 = a.total.p50_ms.unwrap();
        let p99 = a.total.p99_ms.unwrap();
        assert!((p50 - 500.0).abs() / 500.0 < 0.26, "{p50}");
        assert!((p99 - 990.0).abs() / 990.0 < 0.26, "{p99}");
        assert_eq!(a.series.len(), 30);
        assert_eq!(a.series[3].figures.calls, 1000);
        assert_eq!(a.series[3].at_ms, 30_000);
        assert_eq!(a.series[4].figures, Figures::default());
        assert!((a.calls_per_s - 1000.0 / 300.0).abs() < 1e-9);
    }

    #[test]
    fn servers_are_apart_and_late_rows_land_in_the_last_slot() {
        let window = Window {
            since_ms: 0,
            step_ms: 1000,
            slots: 5,
        };
        let mut all = cells("b", 9, &[300, 300], 0);
        all.extend(cells("a", 0, &[50], 1));
        // Two calls of `a` the policy refused: counted and errors, not in its call times.
        all.push(StatsCell {
            server: "a".into(),
            slot: 0,
            bucket: None,
            calls: 2,
            errors: 2,
        });
        let figures = summarize(&all, window);
        assert_eq!(figures[0].server, "a");
        assert_eq!((figures[0].total.calls, figures[0].total.errors), (3, 3));
        // Its one call that ran, 50 µs, in the bucket [50, 63) µs: the refused ones add nothing.
        let p99 = figures[0].total.p99_ms.unwrap();
        assert!((p99 - 0.063).abs() < 1e-9, "{p99}");
        assert_eq!(figures[1].series[4].figures.calls, 2);
        assert_eq!(summarize(&[], window), Vec::new());
    }
}
