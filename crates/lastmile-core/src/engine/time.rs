//! Simulation time: integer nanoseconds, never floating point inside the core.
//!
//! `SimTime` is an instant since the start of the run, `SimDuration` a span. Conversions to
//! and from `f64` seconds exist only for the edges (scenario parsing, reports). Following
//! nexosim and smoltcp's `netsim`, integer time makes event ordering exact and runs
//! bit-identical on every machine.

use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SimTime(u64);

/// A span of simulated time, in nanoseconds.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SimDuration(u64);

const NANOS_PER_SEC: u64 = 1_000_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(nanos: u64) -> Self {
        SimTime(nanos)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds as `f64`, for reports only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// The time elapsed since `earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
    pub fn saturating_add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
    /// Rounds up to the next multiple of `tick` (a coarse BSD-style timer clock).
    pub fn ceil_to(self, tick: SimDuration) -> SimTime {
        if tick.0 <= 1 {
            return self;
        }
        SimTime(self.0.div_ceil(tick.0).saturating_mul(tick.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn from_nanos(nanos: u64) -> Self {
        SimDuration(nanos)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NANOS_PER_SEC)
    }
    /// From `f64` seconds, rounded to the nearest nanosecond (edges only).
    pub fn from_secs_f64(secs: f64) -> Self {
        if secs <= 0.0 || secs.is_nan() {
            return SimDuration::ZERO;
        }
        let nanos = secs * NANOS_PER_SEC as f64;
        if nanos >= u64::MAX as f64 {
            SimDuration::MAX
        } else {
            SimDuration(libm::round(nanos) as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
    /// The time to serialize `bits` at `rate_bps`, rounded up to a whole nanosecond.
    pub fn transmission(bits: u64, rate_bps: u64) -> Self {
        assert!(rate_bps > 0, "a link rate must be positive");
        // Every frame fits the u64 fast path; u128 only for absurd sizes.
        if let Some(scaled) = bits.checked_mul(NANOS_PER_SEC) {
            return SimDuration(scaled.div_ceil(rate_bps));
        }
        let nanos = (bits as u128 * NANOS_PER_SEC as u128).div_ceil(rate_bps as u128);
        SimDuration(nanos.min(u64::MAX as u128) as u64)
    }
    pub fn saturating_mul(self, k: u64) -> Self {
        SimDuration(self.0.saturating_mul(k))
    }
    pub fn saturating_sub(self, other: SimDuration) -> Self {
        SimDuration(self.0.saturating_sub(other.0))
    }
    /// Rounds up to a whole number of `tick`s.
    pub fn ceil_to(self, tick: SimDuration) -> SimDuration {
        if tick.0 <= 1 {
            return self;
        }
        SimDuration(self.0.div_ceil(tick.0).saturating_mul(tick.0))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.checked_add(d.0).expect("simulated time overflow"))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        *self = *self + d;
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    /// Panics if `rhs` is later: use `saturating_since` where that can happen.
    fn sub(self, rhs: SimTime) -> SimDuration {
        SimDuration(self.0.checked_sub(rhs.0).expect("negative time difference"))
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}
impl AddAssign for SimDuration {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.checked_sub(d.0).expect("negative duration"))
    }
}
impl Mul<u64> for SimDuration {
    type Output = SimDuration;
    fn mul(self, k: u64) -> SimDuration {
        self.saturating_mul(k)
    }
}
impl Div<u64> for SimDuration {
    type Output = SimDuration;
    fn div(self, k: u64) -> SimDuration {
        SimDuration(self.0 / k)
    }
}

fn fmt_nanos(n: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if n.is_multiple_of(NANOS_PER_SEC) {
        write!(f, "{}s", n / NANOS_PER_SEC)
    } else if n.is_multiple_of(1_000_000) {
        write!(f, "{}ms", n / 1_000_000)
    } else if n.is_multiple_of(1_000) {
        write!(f, "{}us", n / 1_000)
    } else {
        write!(f, "{n}ns")
    }
}

impl fmt::Debug for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t=")?;
        fmt_nanos(self.0, f)
    }
}
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Debug for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_nanos(self.0, f)
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_nanos(self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_rounds_up() {
        // 1440 bytes at 1 Mbps: 11.52 ms exactly.
        assert_eq!(
            SimDuration::transmission(1440 * 8, 1_000_000),
            SimDuration::from_micros(11_520)
        );
        // 1 bit at 3 bps: 333,333,333.3 ns rounds up.
        assert_eq!(SimDuration::transmission(1, 3).as_nanos(), 333_333_334);
    }

    #[test]
    fn ceil_to_tick_models_a_coarse_clock() {
        let tick = SimDuration::from_millis(500);
        assert_eq!(
            SimTime::from_nanos(1).ceil_to(tick),
            SimTime::ZERO + SimDuration::from_millis(500)
        );
        assert_eq!(SimTime::ZERO.ceil_to(tick), SimTime::ZERO);
        assert_eq!(
            SimDuration::from_millis(1200).ceil_to(tick),
            SimDuration::from_millis(1500)
        );
    }

    #[test]
    fn formats_with_units() {
        assert_eq!(SimDuration::from_millis(500).to_string(), "500ms");
        assert_eq!(SimDuration::from_secs(3).to_string(), "3s");
    }
}
