//! How far behind the wall clock the simulation ran: each event's lateness (the wall time
//! it was processed minus the simulated time it was due), kept as a count of late events,
//! the maximum and a log-linear histogram for percentiles.
//!
//! The histogram has 16 linear sub-buckets per power of two of nanoseconds, so a
//! percentile is reported as the upper edge of its bucket: at most 1/16 (6.25 %) above the
//! true value, never below it.

use std::time::Duration;

use serde::Serialize;

/// Events later than this are "late" (the 1 ms).
pub const LATE: Duration = Duration::from_millis(1);

const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
/// Powers of two up to 2^40 ns (about 18 minutes).
const BUCKETS: usize = 41 * SUB;

/// The lateness of every event of a run.
#[derive(Clone, Debug)]
pub struct LagStats {
    counts: Vec<u64>,
    events: u64,
    late: u64,
    max_ns: u64,
}

impl Default for LagStats {
    fn default() -> Self {
        LagStats {
            counts: vec![0; BUCKETS],
            events: 0,
            late: 0,
            max_ns: 0,
        }
    }
}

/// The bucket of `ns`: exact below 16 ns, then 16 sub-buckets per power of two.
fn bucket(ns: u64) -> usize {
    if ns < SUB as u64 {
        return ns as usize;
    }
    let power = 63 - ns.leading_zeros(); // >= SUB_BITS
    let sub = (ns >> (power - SUB_BITS)) as usize & (SUB - 1);
    (((power - SUB_BITS + 1) as usize) * SUB + sub).min(BUCKETS - 1)
}

/// The largest value in bucket `b`.
fn upper_edge(b: usize) -> u64 {
    if b < SUB {
        return b as u64;
    }
    let power = (b / SUB) as u32 + SUB_BITS - 1;
    let sub = (b % SUB) as u64;
    let width = 1u64 << (power - SUB_BITS);
    (1u64 << power) + (sub + 1) * width - 1
}

impl LagStats {
    /// One event processed `lag` after it was due.
    pub fn record(&mut self, lag: Duration) {
        let ns = u64::try_from(lag.as_nanos()).unwrap_or(u64::MAX);
        self.counts[bucket(ns)] += 1;
        self.events += 1;
        self.late += u64::from(lag > LATE);
        self.max_ns = self.max_ns.max(ns);
    }

    /// The `q`-quantile (0..=1) of the lateness, as its bucket's upper edge (module
    /// notes), capped at the maximum seen.
    pub fn quantile(&self, q: f64) -> Duration {
        if self.events == 0 {
            return Duration::ZERO;
        }
        let rank = ((q * self.events as f64).ceil() as u64).clamp(1, self.events);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Duration::from_nanos(upper_edge(b).min(self.max_ns));
            }
        }
        Duration::from_nanos(self.max_ns)
    }

    pub fn summary(&self) -> LagSummary {
        LagSummary {
            events: self.events,
            late_events: self.late,
            late_threshold_s: LATE.as_secs_f64(),
            max_s: self.max_ns as f64 * 1e-9,
            p50_s: self.quantile(0.50).as_secs_f64(),
            p99_s: self.quantile(0.99).as_secs_f64(),
            p999_s: self.quantile(0.999).as_secs_f64(),
            kept_up: self.quantile(0.99) <= LATE,
        }
    }
}

/// The lateness of a run's events, for its summary.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LagSummary {
    /// Events processed.
    pub events: u64,
    /// Events processed more than `late_threshold_s` after they were due.
    pub late_events: u64,
    pub late_threshold_s: f64,
    pub max_s: f64,
    pub p50_s: f64,
    /// The 99th percentile (upper edge of a bucket of 1/16 of its power of two).
    pub p99_s: f64,
    pub p999_s: f64,
    /// The 99th percentile is within `late_threshold_s`.
    pub kept_up: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_ordered_and_their_edges_bound_their_values() {
        let mut last = 0;
        for ns in (0..200_000u64).chain([1 << 20, (1 << 30) + 12_345, 1 << 39]) {
            let b = bucket(ns);
            assert!(b >= last, "monotone at {ns}");
            last = b;
            assert!(upper_edge(b) >= ns, "{ns} in bucket {b}");
            assert!(upper_edge(b) as f64 <= ns as f64 * (1.0 + 1.0 / 16.0) + 1.0);
        }
    }

    #[test]
    fn percentiles_count_late_events_and_never_understate() {
        let mut lag = LagStats::default();
        for _ in 0..980 {
            lag.record(Duration::from_micros(50));
        }
        for _ in 0..20 {
            lag.record(Duration::from_millis(3));
        }
        let s = lag.summary();
        assert_eq!((s.events, s.late_events), (1000, 20));
        assert!(s.p50_s >= 50e-6 && s.p50_s < 54e-6, "{}", s.p50_s);
        assert!(s.p99_s >= 3e-3 && s.p99_s <= 3e-3 * 1.0625, "{}", s.p99_s);
        assert!(!s.kept_up);
        assert!((s.max_s - 3e-3).abs() < 1e-12);
    }

    #[test]
    fn a_run_with_one_percent_late_keeps_up() {
        let mut lag = LagStats::default();
        for i in 0..1000 {
            let late = i % 100 == 0;
            lag.record(if late {
                Duration::from_millis(5)
            } else {
                Duration::from_micros(20)
            });
        }
        let s = lag.summary();
        assert_eq!(s.late_events, 10);
        assert!(s.kept_up, "p99 {}", s.p99_s);
    }
}
