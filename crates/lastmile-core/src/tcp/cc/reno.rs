//! Reno's window rule, RFC 5681 §3.1, in bytes:
//! * slow start while cwnd < ssthresh: cwnd += min(N, SMSS) per ACK of N new bytes (2);
//! * congestion avoidance otherwise: cwnd += SMSS·SMSS/cwnd per ACK, at least one byte (3);
//! * with appropriate byte counting (RFC 3465, `abc` = L of 1 or 2): slow start adds
//!   min(N, L·SMSS) per ACK, but L = 1 in the slow start that follows a timeout (§2.3);
//!   congestion avoidance counts the bytes acknowledged and adds one SMSS each time they
//!   reach cwnd, keeping the remainder (§2.1), and starting afresh when cwnd is cut.
//!   `abc = 0` is the RFC 5681 rule above;
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

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::spec::{CcOptions, CcSettings};
use super::{window_pacing_rate, AckSample, CongestionControl, CongestionWindow};

/// Reno's window rule has no constants of its own: RFC 5681 fixes them (slow start by
/// min(N, SMSS), congestion avoidance by SMSS·SMSS/cwnd, ssthresh = FlightSize/2). What
/// varies it are TCP-wide knobs: `tcp.abc`, `tcp.pacing`, `tcp.ssthresh_rule`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenoConfig {}

impl CcSettings for RenoConfig {
    type Controller = Reno;
    const KIND: &'static str = "reno";
    fn build(&self, options: CcOptions) -> Reno {
        Reno::new(options)
    }
}

/// RFC 5681 §3.1 slow start and congestion avoidance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reno {
    options: CcOptions,
    /// The pacing rate computed on the last ACK (with `options.pacing`).
    pacing_rate: Option<u64>,
    /// RFC 3465 §2.1 `bytes_acked` in congestion avoidance.
    bytes_acked: u64,
    /// In the slow start after a timeout (RFC 3465 §2.3: L = 1 there).
    after_rto: bool,
}

impl Reno {
    pub fn new(options: CcOptions) -> Self {
        Reno {
            options,
            pacing_rate: None,
            bytes_acked: 0,
            after_rto: false,
        }
    }

    /// RFC 3465 §2.1–2.3: byte counting with limit L = `options.abc`.
    #[inline(never)]
    fn grow_by_bytes(&mut self, w: &mut CongestionWindow, acked: u64, mss: u64) {
        if w.in_slow_start() {
            let l = if self.after_rto {
                1
            } else {
                u64::from(self.options.abc)
            };
            w.cwnd += acked.min(l * mss);
            return;
        }
        self.after_rto = false;
        self.bytes_acked += acked;
        if self.bytes_acked >= w.cwnd {
            self.bytes_acked -= w.cwnd;
            w.cwnd += mss;
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
            if self.options.abc > 0 {
                self.grow_by_bytes(w, ack.acked_bytes, ack.mss);
            } else if w.in_slow_start() {
                // RFC 5681 (2).
                w.cwnd += ack.acked_bytes.min(ack.mss);
            } else {
                // RFC 5681 (3), rounded up to one byte when the quotient is zero.
                w.cwnd += (ack.mss * ack.mss / w.cwnd.max(1)).max(1);
            }
        }
        if self.options.pacing {
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
        self.bytes_acked = 0;
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
        self.after_rto = true;
        self.bytes_acked = 0;
    }

    fn on_ecn_echo(&mut self, _now: SimTime, w: &mut CongestionWindow, flight: u64, mss: u64) {
        self.bytes_acked = 0;
        w.ssthresh = Self::ssthresh(flight, mss);
        w.cwnd = w.ssthresh;
    }

    #[inline]
    fn pacing_rate(&self) -> Option<u64> {
        self.pacing_rate
    }
}
