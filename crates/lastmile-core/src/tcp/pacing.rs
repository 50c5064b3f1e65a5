//! Pacing: a release time per segment, as Linux's earliest-departure-time pacing
//! (net/ipv4/tcp_output.c, `tcp_update_skb_after_send`): a segment of L bytes (headers
//! included) sent at rate R moves the next release time to max(now, release) + L/R. The
//! sender holds a segment back until its release time and reports that time as a deadline,
//! so the connection's `poll_timeout` wakes it then.
//!
//! Pacing applies only while the congestion control gives a rate; without one the sender
//! never consults the pacer. A segment held back makes the pacer report its release time;
//! at that time the sender asks again. Left out: a send quantum (Linux paces TSO bursts of
//! up to ~1 ms), which has no meaning without segmentation offload.

use crate::engine::{SimDuration, SimTime};

/// The release time of the next segment.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    release: SimTime,
    /// A segment is waiting for `release`.
    holding: bool,
}

impl Pacer {
    /// True if a segment may leave at `now`; otherwise, if one is `waiting`, the pacer
    /// holds it and reports the release time as its deadline.
    #[inline]
    pub fn may_send(&mut self, now: SimTime, waiting: bool) -> bool {
        let early = now < self.release;
        self.holding = early && waiting;
        !early
    }

    /// A segment of `wire_bytes` left at `now` under `rate_bytes_per_s`.
    #[inline]
    pub fn on_sent(&mut self, now: SimTime, wire_bytes: u64, rate_bytes_per_s: u64) {
        let gap = SimDuration::transmission(8 * wire_bytes, 8 * rate_bytes_per_s.max(1));
        self.release = self.release.max(now) + gap;
    }

    /// When a held segment may leave.
    pub fn deadline(&self) -> Option<SimTime> {
        self.holding.then_some(self.release)
    }

    /// The deadline was reached: nothing is held any more (the sender asks again, and a
    /// window that closed meanwhile may leave it nothing to send).
    pub fn on_deadline(&mut self, now: SimTime) {
        if now >= self.release {
            self.holding = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_us(us: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_micros(us)
    }

    #[test]
    fn segments_leave_one_serialization_time_apart_at_the_pacing_rate() {
        let mut p = Pacer::default();
        // 1,000,000 B/s: a 1000-byte segment every millisecond.
        assert!(p.may_send(at_us(0), true));
        p.on_sent(at_us(0), 1000, 1_000_000);
        assert!(!p.may_send(at_us(999), true));
        assert_eq!(p.deadline(), Some(at_us(1000)));
        assert!(p.may_send(at_us(1000), true));
        assert_eq!(p.deadline(), None);
        p.on_sent(at_us(1000), 500, 1_000_000);
        assert!(!p.may_send(at_us(1000), true));
        assert_eq!(p.deadline(), Some(at_us(1500)));
    }

    #[test]
    fn nothing_waiting_sets_no_deadline() {
        let mut p = Pacer::default();
        p.on_sent(at_us(0), 1000, 1_000_000);
        assert!(!p.may_send(at_us(10), false));
        assert_eq!(p.deadline(), None);
    }

    #[test]
    fn an_idle_sender_does_not_bank_credit() {
        let mut p = Pacer::default();
        p.on_sent(at_us(0), 1000, 1_000_000);
        // Idle for 10 ms: the next segment goes at once, the one after 1 ms later.
        assert!(p.may_send(at_us(11_000), true));
        p.on_sent(at_us(11_000), 1000, 1_000_000);
        assert!(!p.may_send(at_us(11_500), true));
        assert_eq!(p.deadline(), Some(at_us(12_000)));
    }
}
