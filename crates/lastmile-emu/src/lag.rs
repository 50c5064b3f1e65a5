//! How far behind the wall clock the simulation ran: each event's lateness (the wall time
//! it was processed minus the simulated time it was due), kept as a count of late events,
//! the maximum and a log-linear histogram for percentiles; and the *stalls*: maximal runs
//! of consecutive late events (one stall of the loop makes every event due during it
//! late), counted, with the worst few kept (when, how late) so that a late run can be
//! laid beside what else the machine was doing.
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
/// How many of the worst stalls are kept.
pub const WORST_STALLS: usize = 5;

/// A run of consecutive events late by more than `LATE`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stall {
    /// When its first late event was due (seconds since the run started).
    pub at_s: f64,
    /// Its latest event's lateness.
    pub lag_s: f64,
    /// Its events.
    pub events: u64,
}

/// The lateness of every event of a run.
#[derive(Clone, Debug)]
pub struct LagStats {
    counts: Vec<u64>,
    events: u64,
    late: u64,
    max_ns: u64,
    stalls: u64,
    /// The stall going on (its last event was late), if any.
    current: Option<Stall>,
    /// The worst stalls ended so far, worst first.
    worst: Vec<Stall>,
}

impl Default for LagStats {
    fn default() -> Self {
        LagStats {
            counts: vec![0; BUCKETS],
            events: 0,
            late: 0,
            max_ns: 0,
            stalls: 0,
            current: None,
            worst: Vec::new(),
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
    /// One event, due at `due` (since the run started), processed `lag` after it.
    pub fn record(&mut self, due: Duration, lag: Duration) {
        let ns = u64::try_from(lag.as_nanos()).unwrap_or(u64::MAX);
        self.counts[bucket(ns)] += 1;
        self.events += 1;
        self.max_ns = self.max_ns.max(ns);
        if lag <= LATE {
            self.end_stall();
            return;
        }
        self.late += 1;
        let stall = self.current.get_or_insert(Stall {
            at_s: due.as_secs_f64(),
            lag_s: 0.0,
            events: 0,
        });
        stall.lag_s = stall.lag_s.max(lag.as_secs_f64());
        stall.events += 1;
    }

    fn end_stall(&mut self) {
        let Some(stall) = self.current.take() else {
            return;
        };
        self.stalls += 1;
        let at = self.worst.partition_point(|w| w.lag_s >= stall.lag_s);
        if at < WORST_STALLS {
            self.worst.insert(at, stall);
            self.worst.truncate(WORST_STALLS);
        }
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
        let mut ended = self.clone();
        ended.end_stall();
        LagSummary {
            stalls: ended.stalls,
            worst_stalls: ended.worst,
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
#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// Runs of consecutive late events, and the worst `WORST_STALLS` of them, worst
    /// first.
    pub stalls: u64,
    pub worst_stalls: Vec<Stall>,
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
        for i in 0..980 {
            lag.record(Duration::from_millis(i), Duration::from_micros(50));
        }
        for i in 0..20 {
            lag.record(Duration::from_millis(980 + i), Duration::from_millis(3));
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
            lag.record(
                Duration::from_millis(i),
                if late {
                    Duration::from_millis(5)
                } else {
                    Duration::from_micros(20)
                },
            );
        }
        let s = lag.summary();
        assert_eq!(s.late_events, 10);
        assert!(s.kept_up, "p99 {}", s.p99_s);
        assert_eq!(s.stalls, 10, "each late event is a stall of its own");
    }

    #[test]
    fn consecutive_late_events_are_one_stall_and_the_worst_are_kept_worst_first() {
        let mut lag = LagStats::default();
        let on_time = Duration::from_micros(30);
        // Stalls at 100 ms (3 events, up to 4 ms), 200 ms (1 event, 9 ms) and, still
        // going when the run ends, 300 ms (2 events, 2 ms).
        let script: &[(u64, u64)] = &[
            (90, 30),
            (100, 2_000),
            (101, 4_000),
            (102, 1_500),
            (110, 30),
            (200, 9_000),
            (210, 30),
            (300, 2_000),
            (301, 1_200),
        ];
        for &(due_ms, lag_us) in script {
            let lateness = Duration::from_micros(lag_us);
            lag.record(Duration::from_millis(due_ms), lateness.max(on_time));
        }
        let s = lag.summary();
        assert_eq!((s.late_events, s.stalls), (6, 3));
        let seen: Vec<(f64, f64, u64)> = s
            .worst_stalls
            .iter()
            .map(|w| (w.at_s, w.lag_s, w.events))
            .collect();
        assert_eq!(seen, [(0.2, 0.009, 1), (0.1, 0.004, 3), (0.3, 0.002, 2)]);
    }

    #[test]
    fn only_the_worst_stalls_are_kept() {
        let mut lag = LagStats::default();
        for i in 0..20u64 {
            let due = Duration::from_millis(10 * i);
            lag.record(due, Duration::from_millis(2 + i % 7));
            lag.record(due + Duration::from_millis(1), Duration::from_micros(10));
        }
        let s = lag.summary();
        assert_eq!(s.stalls, 20);
        let worst: Vec<f64> = s.worst_stalls.iter().map(|w| w.lag_s).collect();
        assert_eq!(worst, [0.008, 0.008, 0.007, 0.007, 0.007]);
    }
}
