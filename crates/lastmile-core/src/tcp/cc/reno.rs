//! Reno's window rule, RFC 5681 §3.1, in bytes:
//! * slow start while cwnd < ssthresh: cwnd += min(N, SMSS) per ACK of N new bytes (2),
//!   with no byte counting beyond that (RFC 3465 ABC with L = 1 SMSS);
//! * congestion avoidance otherwise: cwnd += SMSS·SMSS/cwnd per ACK, at least one byte (3);
//! * on a loss: ssthresh = max(FlightSize/2, 2·SMSS) (4);
//! * on a timeout: the same ssthresh unless the segment timed out before (§3.1), and
//!   cwnd = 1 SMSS, the loss window (5);
//! * on an ECN echo: ssthresh as on a loss and cwnd = ssthresh (RFC 3168 §6.1.2).
//!
//! With `pacing` it paces at Linux's ratios of cwnd/SRTT (`super::window_pacing_rate`).
//!
//! Left out: RFC 7661 congestion window validation, a cwnd cap, and cwnd reduction after an
//! idle period (RFC 5681 §4.1); the recovery variants set cwnd themselves during recovery.

use crate::engine::SimTime;

use super::{window_pacing_rate, AckSample, CcSettings, CongestionControl, CongestionWindow};

/// RFC 5681 §3.1 slow start and congestion avoidance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reno {
    settings: CcSettings,
    /// The pacing rate computed on the last ACK (with `settings.pacing`).
    pacing_rate: Option<u64>,
}

impl Reno {
    pub fn new(settings: CcSettings) -> Self {
        Reno {
            settings,
            pacing_rate: None,
        }
    }

    fn ssthresh(flight: u64, mss: u64) -> u64 {
        // RFC 5681 (4): FlightSize, not cwnd.
        (flight / 2).max(2 * mss)
    }
}

impl CongestionControl for Reno {
    #[inline]
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        if ack.may_grow && ack.acked_bytes > 0 {
            if w.in_slow_start() {
                // RFC 5681 (2).
                w.cwnd += ack.acked_bytes.min(ack.mss);
            } else {
                // RFC 5681 (3), rounded up to one byte when the quotient is zero.
                w.cwnd += (ack.mss * ack.mss / w.cwnd.max(1)).max(1);
            }
        }
        if self.settings.pacing {
            self.pacing_rate = window_pacing_rate(w, ack.in_flight, ack.srtt);
        }
    }

    fn ssthresh_on_loss(
        &mut self,
        _now: SimTime,
        _w: &CongestionWindow,
        flight: u64,
        mss: u64,
    ) -> u64 {
        Self::ssthresh(flight, mss)
    }

    fn on_rto(
        &mut self,
        _now: SimTime,
        w: &mut CongestionWindow,
        flight: u64,
        mss: u64,
        first: bool,
    ) {
        if first {
            w.ssthresh = Self::ssthresh(flight, mss);
        }
        // RFC 5681 (5): the loss window.
        w.cwnd = mss;
    }

    fn on_ecn_echo(&mut self, _now: SimTime, w: &mut CongestionWindow, flight: u64, mss: u64) {
        w.ssthresh = Self::ssthresh(flight, mss);
        w.cwnd = w.ssthresh;
    }

    #[inline]
    fn pacing_rate(&self) -> Option<u64> {
        self.pacing_rate
    }
}
