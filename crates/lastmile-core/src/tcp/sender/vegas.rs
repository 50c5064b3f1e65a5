//! TCP Vegas's fine-grained retransmission (L. Brakmo and L. Peterson, "TCP Vegas: End to
//! End Congestion Avoidance on a Global Internet", IEEE JSAC 13(8), 1995, §3.1), with
//! Tahoe, Reno or NewReno loss recovery when `cc = "vegas"` and
//! `vegas.fine_grained_retransmission` (the default):
//!
//! * Every transmission's time is recorded, and a fine-grained timeout is kept from the
//!   RTT of every segment acknowledged that was sent once: RTT samples averaged with gain
//!   1/8, their mean deviation with gain 1/4, timeout = (SRTT + 2·mdev) · 17/16; the first
//!   sample gives 1.5 RTT.
//! * **On a duplicate ACK**: if the segment at SND.UNA was (last) sent longer than the
//!   timeout ago, it is retransmitted at once, without waiting for DupThresh duplicates:
//!   loss recovery starts as if the DupThresh-th had come (in recovery, the segment is just
//!   sent again). The timeout then backs off: doubled if the segment had been sent more
//!   than once, else up by an eighth.
//! * **On the first and second new ACKs after a retransmission**: if the segment now at
//!   SND.UNA was sent longer than the timeout ago, it is retransmitted too (no window
//!   change), which repairs a further loss of the same window without duplicate ACKs.
//! * **The window** is cut only for a segment sent after the last cut (the congestion
//!   control's `note_lost_segment`, `cc/vegas.rs`), so a further loss in a window a
//!   recovery already covered is retransmitted (at DupThresh duplicates or on expiry)
//!   without a second cut; only after a timeout do duplicates of data sent before it start
//!   nothing until SND.UNA passes the SND.MAX of the timeout (ns-2's `bug_fix_` guard,
//!   RFC 6582 §4).
//!
//! The constants (gains, the 17/16 and 9/8 factors, the doubling, "first and second") are
//! those of ns-2.35's `Agent/TCP/Vegas` (`tcp/tcp-vegas.cc`: `recv`, `vegas_expire`), the
//! authors' group's implementation; the paper itself could not be re-read when this was
//! written. Left out: SACK recovery (the checks run only with the classic recoveries).

use std::collections::VecDeque;

use crate::engine::{SimDuration, SimTime};

use super::{CongestionControl, Flight, Reaction, Sender};

/// One transmission of new data: its range, latest send time and how often it was sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Sent {
    start: u64,
    end: u64,
    last_sent: SimTime,
    transmits: u32,
}

/// The fine-grained timer's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FineGrained {
    sent: VecDeque<Sent>,
    /// SRTT and mean deviation of the fine-grained samples, seconds.
    srtt_s: Option<f64>,
    mdev_s: f64,
    timeout: SimDuration,
    /// New ACKs still to check after a retransmission (at most two).
    worried: u8,
    /// SND.MAX at the last retransmission timeout, until SND.UNA passes it.
    timeout_recover: Option<u64>,
    /// Retransmissions this timer made.
    pub retransmissions: u64,
}

impl FineGrained {
    /// A retransmission timeout with SND.MAX at `snd_max`.
    pub fn on_timeout(&mut self, snd_max: u64) {
        self.timeout_recover = Some(snd_max);
        self.worried = 0;
    }

    /// True while the duplicates of data sent before the last timeout arrive (SND.UNA not
    /// past its SND.MAX): those start no retransmission (ns-2's `bug_fix_` guard).
    fn after_timeout(&mut self, snd_una: u64) -> bool {
        if self.timeout_recover.is_some_and(|r| snd_una > r) {
            self.timeout_recover = None;
        }
        self.timeout_recover.is_some()
    }

    /// [start, end) left at `now`.
    pub fn on_sent(&mut self, now: SimTime, start: u64, end: u64, retransmission: bool) {
        if !retransmission {
            if end > start && self.sent.back().is_none_or(|s| s.end <= start) {
                self.sent.push_back(Sent {
                    start,
                    end,
                    last_sent: now,
                    transmits: 1,
                });
            }
            return;
        }
        let i = self.sent.partition_point(|s| s.end <= start);
        for s in self.sent.range_mut(i..).take_while(|s| s.start < end) {
            s.last_sent = now;
            s.transmits += 1;
        }
    }

    /// SND.UNA advanced to `snd_una` at `now`: the segments it covers leave, the newest of
    /// them gives a sample if it was sent once.
    pub fn on_new_ack(&mut self, now: SimTime, snd_una: u64) {
        let mut newest = None;
        while let Some(s) = self.sent.front().filter(|s| s.end <= snd_una).copied() {
            newest = Some(s);
            self.sent.pop_front();
        }
        if let Some(s) = newest.filter(|s| s.transmits == 1) {
            self.sample(now.saturating_since(s.last_sent).as_secs_f64());
        }
    }

    fn sample(&mut self, rtt_s: f64) {
        if rtt_s <= 0.0 {
            return;
        }
        let timeout_s = match self.srtt_s {
            None => {
                self.srtt_s = Some(rtt_s);
                self.mdev_s = rtt_s / 4.0;
                1.5 * rtt_s
            }
            Some(srtt) => {
                let err = rtt_s - srtt;
                let srtt = srtt + err / 8.0;
                self.srtt_s = Some(srtt);
                self.mdev_s += (err.abs() - self.mdev_s) / 4.0;
                (srtt + 2.0 * self.mdev_s) * 17.0 / 16.0
            }
        };
        self.timeout = SimDuration::from_secs_f64(timeout_s);
    }

    /// The fine-grained timeout (zero before the first sample).
    pub fn timeout(&self) -> SimDuration {
        self.timeout
    }

    /// The segment at `snd_una`: when it was last sent and how often.
    pub fn head(&self, snd_una: u64) -> Option<(SimTime, u32)> {
        self.sent
            .front()
            .filter(|s| s.start <= snd_una && snd_una < s.end)
            .map(|s| (s.last_sent, s.transmits))
    }

    /// True if the segment at `snd_una` has waited longer than the timeout.
    pub fn expired(&self, now: SimTime, snd_una: u64) -> bool {
        self.srtt_s.is_some()
            && self
                .head(snd_una)
                .is_some_and(|(t, _)| now.saturating_since(t) >= self.timeout)
    }

    /// A retransmission of the segment at `snd_una` was decided, with `outstanding`
    /// segments in flight: the timeout backs off and the next two new ACKs are checked.
    pub fn on_retransmission(&mut self, snd_una: u64, outstanding: u64) {
        let transmits = self.head(snd_una).map_or(1, |(_, n)| n);
        self.timeout = if transmits > 1 {
            self.timeout.saturating_mul(2)
        } else {
            SimDuration::from_nanos(self.timeout.as_nanos() + self.timeout.as_nanos() / 8)
        };
        self.worried = outstanding.min(2) as u8;
    }

    /// A new ACK: true if it is one of the two after a retransmission and the segment now
    /// at `snd_una` has expired (then it is to be sent again).
    pub fn check_after_new_ack(&mut self, now: SimTime, snd_una: u64) -> bool {
        if self.worried == 0 {
            return false;
        }
        self.worried -= 1;
        if self.expired(now, snd_una) {
            self.retransmissions += 1;
            true
        } else {
            self.worried = 0;
            false
        }
    }
}

impl Sender {
    /// A duplicate ACK with the fine-grained timer: the segment at SND.UNA, if expired, is
    /// retransmitted at once (starting recovery if none runs); the congestion control is
    /// told when that segment was sent, for its decrease rule.
    #[inline(never)]
    pub(super) fn fine_grained_dupack(&mut self, now: SimTime, flight: &Flight) -> Reaction {
        let una = self.snd_una;
        let Some(f) = self.fine_grained.as_deref_mut() else {
            return Reaction::default();
        };
        let after_timeout = f.after_timeout(una);
        let expired = f.expired(now, una) && !after_timeout;
        if let Some((sent, transmits)) = f.head(una) {
            self.cc.note_lost_segment(sent, transmits);
        }
        let in_recovery = self.recovery.in_recovery();
        if !in_recovery && !after_timeout {
            // Vegas repairs further losses of a window its last recovery covered (the
            // decrease rule then keeps the window): only a timeout's `recover` holds.
            self.recovery.lift_recover_guard(una);
        }
        let (w, cc) = (&mut self.window, &mut self.cc);
        let r = if expired && !in_recovery {
            self.recovery.fast_retransmit_now(now, w, cc, flight)
        } else {
            let r = self.recovery.on_dupack(now, w, cc, flight);
            if expired && in_recovery {
                self.recovery.name_for_retransmission(una);
            }
            r
        };
        if r.fast_retransmit || expired {
            let outstanding = flight.size().div_ceil(self.mss.max(1));
            if let Some(f) = self.fine_grained.as_deref_mut() {
                if expired {
                    f.retransmissions += 1;
                }
                f.on_retransmission(una, outstanding);
            }
        }
        r
    }

    /// A new ACK with the fine-grained timer: a sample, and the first two after a
    /// retransmission resend the segment at SND.UNA if it has expired.
    #[inline(never)]
    pub(super) fn fine_grained_after_new_ack(&mut self, now: SimTime) {
        let una = self.snd_una;
        let Some(f) = self.fine_grained.as_deref_mut() else {
            return;
        };
        f.on_new_ack(now, una);
        if una < self.snd_max && f.check_after_new_ack(now, una) {
            self.recovery.name_for_retransmission(una);
        }
    }

    /// Retransmissions the fine-grained timer decided (0 without it).
    pub fn fine_grained_retransmissions(&self) -> u64 {
        self.fine_grained.as_ref().map_or(0, |f| f.retransmissions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// ns-2's estimator: the first sample gives 1.5 RTT; steady 100 ms samples bring the
    /// timeout down towards 100 ms · 17/16 as the deviation decays.
    #[test]
    fn the_fine_grained_timeout_follows_the_samples() {
        let mut f = FineGrained::default();
        for k in 0..40 {
            f.on_sent(at_ms(k * 100), k * 1000, (k + 1) * 1000, false);
            f.on_new_ack(at_ms(k * 100 + 100), (k + 1) * 1000);
            if k == 0 {
                assert_eq!(f.timeout(), SimDuration::from_millis(150));
            }
        }
        let t = f.timeout().as_secs_f64();
        assert!((0.106..0.110).contains(&t), "{t}");
    }

    /// B&P §3.1: a duplicate ACK for a segment older than the timeout means it is lost.
    #[test]
    fn a_segment_older_than_the_timeout_has_expired() {
        let mut f = FineGrained::default();
        f.on_sent(at_ms(0), 0, 1000, false);
        f.on_new_ack(at_ms(100), 1000);
        f.on_sent(at_ms(100), 1000, 2000, false);
        assert!(!f.expired(at_ms(249), 1000));
        assert!(
            f.expired(at_ms(250), 1000),
            "1.5 × 100 ms after it was sent"
        );
        // Retransmitted at 250 ms: young again, and the timeout grew by an eighth.
        f.on_retransmission(1000, 1);
        f.on_sent(at_ms(250), 1000, 2000, true);
        assert!(!f.expired(at_ms(300), 1000));
        assert_eq!(f.timeout(), SimDuration::from_nanos(168_750_000));
    }

    /// After a retransmission the next two new ACKs look at the segment at SND.UNA.
    #[test]
    fn the_two_new_acks_after_a_retransmission_catch_a_second_loss() {
        let mut f = FineGrained::default();
        f.on_sent(at_ms(0), 0, 1000, false);
        f.on_new_ack(at_ms(100), 1000);
        for k in 1..5 {
            f.on_sent(at_ms(100), k * 1000, (k + 1) * 1000, false);
        }
        f.on_retransmission(1000, 4);
        f.on_sent(at_ms(260), 1000, 2000, true);
        // The retransmission's ACK at 360 ms covers 1000..2000; 2000..3000, sent at 100 ms,
        // was lost too and has expired.
        f.on_new_ack(at_ms(360), 2000);
        assert!(f.check_after_new_ack(at_ms(360), 2000));
    }
}
