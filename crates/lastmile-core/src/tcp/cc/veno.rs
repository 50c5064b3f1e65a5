//! TCP Veno (C. P. Fu and S. C. Liew, "TCP Veno: TCP Enhancement for Transmission Over
//! Wireless Access Networks", IEEE JSAC 21(2), 2003):
//!
//! * **Backlog**: Expected = cwnd / BaseRTT, Actual = cwnd / RTT, and
//!   N = Actual · (RTT − BaseRTT) = cwnd · (RTT − BaseRTT) / RTT segments queued, measured
//!   once per round trip (the round's smallest RTT sample, or the latest one; a sample per
//!   ACK of new data from the newest segment's send time, as Linux's `tcp_veno.c`, never the
//!   retransmission timer's tick-counted one).
//! * **Loss classification** with β = 3 segments: on a loss with N < β the loss is taken as
//!   random and ssthresh = cwnd · 4/5; with N ≥ β as congestive and ssthresh = cwnd / 2,
//!   at least two segments either way. Loss recovery then runs as Reno's.
//! * **Additive increase**: with N < β, Reno's (one segment per round trip); with N ≥ β,
//!   one segment every other round trip (the "congestive state" of the paper).
//! * **Slow start** and the **timeout** are Reno's (RFC 5681).
//!
//! Departures (see `docs/congestion-control.md`): Linux computes N on every ACK from the
//! smallest RTT since the last growth and uses cwnd as here; ns-3 cuts from BytesInFlight,
//! and resets its RTT count on every window increase, so its every-other-round branch never
//! runs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::SimTime;

use super::estimators::{RoundRtt, Rounds};
use super::spec::{CcOptions, CcSettings, OutOfRange};
use super::{AckSample, CcMetrics, CongestionControl, CongestionWindow};

/// Veno's backlog threshold.
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VenoConfig {
    /// Segments queued above which a loss is congestive and growth halves. Default 3 (Fu &
    /// Liew §II).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// The factor cwnd is cut by on a loss judged random. Default 0.8 (the paper's 4/5).
    #[serde(default = "default_random_loss_factor")]
    pub random_loss_factor: f64,
}

fn default_beta() -> f64 {
    3.0
}
fn default_random_loss_factor() -> f64 {
    0.8
}

impl Default for VenoConfig {
    fn default() -> Self {
        VenoConfig {
            beta: default_beta(),
            random_loss_factor: default_random_loss_factor(),
        }
    }
}

impl CcSettings for VenoConfig {
    type Controller = Veno;
    const KIND: &'static str = "veno";
    fn build(&self, _options: CcOptions) -> Veno {
        Veno::new(*self)
    }
    /// The first setting out of range: (key, value, what is expected).
    fn check(&self) -> Result<(), OutOfRange> {
        if !(self.beta >= 0.0 && self.beta.is_finite()) {
            return Err(("beta", self.beta, "a number of segments, 0 or more"));
        }
        if !(self.random_loss_factor > 0.0 && self.random_loss_factor <= 1.0) {
            return Err((
                "random_loss_factor",
                self.random_loss_factor,
                "a factor above 0 and at most 1",
            ));
        }
        Ok(())
    }
}

/// TCP Veno.
#[derive(Clone, Debug, PartialEq)]
pub struct Veno {
    config: VenoConfig,
    rounds: Rounds,
    rtt: RoundRtt,
    /// The backlog N of the last round, in segments.
    backlog_segments: Option<f64>,
    /// In the congestive state the window grows only in every other round.
    grow_this_round: bool,
}

impl Veno {
    pub fn new(config: VenoConfig) -> Self {
        Veno {
            config,
            rounds: Rounds::default(),
            rtt: RoundRtt::default(),
            backlog_segments: None,
            grow_this_round: true,
        }
    }

    fn is_congestive(&self) -> bool {
        self.backlog_segments.is_some_and(|n| n >= self.config.beta)
    }

    fn end_round(&mut self, cwnd: u64, mss: u64) {
        self.grow_this_round = !self.grow_this_round;
        let (Some(round), Some(base)) = (self.rtt.end_round(), self.rtt.base) else {
            return;
        };
        let rtt = round.min.as_nanos().max(1) as f64;
        let base = base.as_nanos() as f64;
        self.backlog_segments = Some(cwnd as f64 / mss as f64 * (rtt - base).max(0.0) / rtt);
    }
}

impl CongestionControl for Veno {
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        self.rtt.on_ack(ack);
        if !ack.may_grow || ack.acked_bytes == 0 {
            return;
        }
        if self.rounds.on_ack(ack) {
            self.end_round(w.cwnd, ack.mss);
        }
        if w.in_slow_start() || !self.is_congestive() || self.grow_this_round {
            super::reno_growth(w, ack);
        }
    }

    fn ssthresh_on_loss(
        &mut self,
        _now: SimTime,
        w: &CongestionWindow,
        _flight: u64,
        mss: u64,
    ) -> u64 {
        let factor = if self.is_congestive() {
            0.5
        } else {
            self.config.random_loss_factor
        };
        ((w.cwnd as f64 * factor) as u64).max(2 * mss)
    }

    fn on_ecn_echo(&mut self, _now: SimTime, w: &mut CongestionWindow, flight: u64, mss: u64) {
        w.ssthresh = super::reno_ssthresh(flight, mss);
        w.cwnd = w.ssthresh;
    }

    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        CcMetrics {
            min_rtt: self.rtt.base,
            queue_segments: self.backlog_segments,
            ..CcMetrics::of_window(w, None)
        }
    }
}

#[cfg(test)]
mod tests;
