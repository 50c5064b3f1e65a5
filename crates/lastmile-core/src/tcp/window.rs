//! The window rule: how cwnd grows on ACKs and where ssthresh goes after a loss, kept apart
//! from loss recovery (ns-3's `TcpCongestionOps` / `TcpRecoveryOps` split), so that a later
//! rule (CUBIC, Westwood+, Vegas, ...) plugs in as another `AnyWindowRule` variant while
//! Tahoe / Reno / NewReno recovery stays as it is.
//!
//! `Rfc5681` is RFC 5681 §3.1 in bytes:
//! * slow start while cwnd < ssthresh: cwnd += min(N, SMSS) per ACK of N new bytes (2),
//!   with no byte counting beyond that (RFC 3465 ABC with L = 1 SMSS);
//! * congestion avoidance otherwise: cwnd += SMSS·SMSS/cwnd per ACK, at least one byte (3);
//! * on loss: ssthresh = max(FlightSize/2, 2·SMSS) (4).
//!
//! Left out: RFC 7661 congestion window validation, a cwnd cap, and cwnd reduction after an
//! idle period (RFC 5681 §4.1); the recovery variants set cwnd itself during recovery.

use crate::engine::SimDuration;

/// The congestion state shared by the window rule and loss recovery, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CongestionWindow {
    pub cwnd: u64,
    /// `u64::MAX` means unlimited (RFC 5681 §3.1: "arbitrarily high").
    pub ssthresh: u64,
}

impl CongestionWindow {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// RFC 5681 §3.1 slow start and congestion avoidance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rfc5681;

/// The closed set of window rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyWindowRule {
    Rfc5681(Rfc5681),
}

impl Default for AnyWindowRule {
    fn default() -> Self {
        AnyWindowRule::Rfc5681(Rfc5681)
    }
}

impl AnyWindowRule {
    /// An ACK of `acked` new bytes arrived outside fast recovery.
    pub fn on_ack(&mut self, w: &mut CongestionWindow, acked: u64, mss: u64) {
        match self {
            AnyWindowRule::Rfc5681(rule) => rule.on_ack(w, acked, mss),
        }
    }

    /// The ssthresh to use after a loss is detected with `flight` bytes outstanding.
    pub fn ssthresh_on_loss(&mut self, w: &CongestionWindow, flight: u64, mss: u64) -> u64 {
        match self {
            AnyWindowRule::Rfc5681(rule) => rule.ssthresh_on_loss(w, flight, mss),
        }
    }

    /// An RTT sample was taken (for delay-based rules; RFC 5681 ignores it).
    pub fn on_rtt_sample(&mut self, sample: SimDuration) {
        match self {
            AnyWindowRule::Rfc5681(_) => {
                let _ = sample;
            }
        }
    }
}

impl Rfc5681 {
    fn on_ack(&mut self, w: &mut CongestionWindow, acked: u64, mss: u64) {
        if w.in_slow_start() {
            // RFC 5681 (2).
            w.cwnd += acked.min(mss);
        } else {
            // RFC 5681 (3), rounded up to one byte when the quotient is zero.
            w.cwnd += (mss * mss / w.cwnd.max(1)).max(1);
        }
    }

    fn ssthresh_on_loss(&mut self, _w: &CongestionWindow, flight: u64, mss: u64) -> u64 {
        // RFC 5681 (4): FlightSize, not cwnd.
        (flight / 2).max(2 * mss)
    }
}
