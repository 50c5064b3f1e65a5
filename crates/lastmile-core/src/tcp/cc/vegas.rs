//! TCP Vegas's congestion avoidance and slow start (L. Brakmo and L. Peterson, "TCP Vegas:
//! End to End Congestion Avoidance on a Global Internet", IEEE JSAC 13(8), 1995, §3.2–3.3):
//!
//! * **BaseRTT** is the smallest RTT seen; **Expected** = cwnd / BaseRTT; **Actual** =
//!   cwnd / RTT, RTT measured once per round trip (the smallest sample of the round, or the
//!   latest one when the round took none). The samples are fine-grained (§3.1: the clock is
//!   read at every send): one per ACK of new data from the newest segment's send time
//!   (`AckSample::latest_rtt`, Karn's rule applied), never the retransmission timer's
//!   sample, which counts whole ticks of its coarse clock. **Diff** = (Expected − Actual) ·
//!   BaseRTT, the data this connection keeps queued in the network, here in segments
//!   (= cwnd · (RTT − BaseRTT) / RTT).
//! * **Congestion avoidance**, once per round trip: Diff < α → cwnd + 1 segment;
//!   Diff > β → cwnd − 1 segment (and ssthresh no higher, so the window stays in congestion
//!   avoidance, as Linux does); otherwise unchanged. Defaults α = 1, β = 3 ("Vegas-1,3").
//! * **Slow start** (§3.3): cwnd grows exponentially only every other round trip and holds
//!   in between "so that a valid comparison of the expected and actual rates can be made";
//!   when Diff, measured at the end of a round the window held, exceeds γ = 1 segment Vegas
//!   leaves slow start. The paper gives no size for
//!   the cut at that moment; as ns-2's Vegas (from the authors' group) does, cwnd loses an
//!   eighth and ssthresh is set to it.
//! * **Losses** (§3.1, with `fine_grained_retransmission`, the default): the sender's
//!   fine-grained timer (`sender/vegas.rs`) detects losses; the window is cut only for a
//!   segment sent after the last cut, to three quarters (to half if the segment had been
//!   retransmitted before, to two segments from three or fewer), the sizes of ns-2's
//!   `Agent/TCP/Vegas` (the authors' group's code; the paper could not be re-read here).
//!   Without it, Reno's response (RFC 5681 (4), ssthresh = FlightSize/2), as Linux. A
//!   timeout is Reno's (cwnd = 1 segment) either way.
//!
//! No Vegas decision is taken while loss recovery forbids growth (Linux disables Vegas
//! outside the Open state). Where others differ (see `docs/congestion-control.md`): Linux and
//! ns-3 default to α = 2, β = 4, grow every round trip in slow start and fall back to Reno
//! when a round had ≤ 2 RTT samples; ns-3 takes its minimum over SRTT values and answers a
//! loss with cwnd − 1 segment and has no fine-grained retransmission.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::SimTime;

use super::estimators::{RoundRtt, Rounds};
use super::spec::{CcOptions, CcSettings, OutOfRange};
use super::{AckSample, CcMetrics, CongestionControl, CongestionWindow};

/// Vegas's thresholds, in segments (the paper's "buffers").
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VegasConfig {
    /// Grow by a segment per round trip while fewer than α segments are queued. Default 1
    /// (Brakmo & Peterson §3.2, "Vegas-1,3").
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Shrink by a segment per round trip while more than β segments are queued. Default 3
    /// (§3.2, "Vegas-1,3").
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Leave slow start once more than γ segments are queued. Default 1 (§3.3: "one router
    /// buffer").
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// The fine-grained retransmission of Brakmo & Peterson §3.1 (with Tahoe, Reno or
    /// NewReno recovery): a duplicate ACK for a segment older than the fine-grained timeout
    /// resends it at once, so do the two new ACKs after a retransmission, and the window
    /// is cut only for segments sent after the last cut. Default true (the paper's Vegas);
    /// false gives Reno's fast retransmit and halving (Linux's and ns-3's Vegas).
    #[serde(default = "default_fine_grained")]
    pub fine_grained_retransmission: bool,
}

fn default_alpha() -> f64 {
    1.0
}
fn default_beta() -> f64 {
    3.0
}
fn default_gamma() -> f64 {
    1.0
}
fn default_fine_grained() -> bool {
    true
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: default_alpha(),
            beta: default_beta(),
            gamma: default_gamma(),
            fine_grained_retransmission: default_fine_grained(),
        }
    }
}

impl CcSettings for VegasConfig {
    type Controller = Vegas;
    const KIND: &'static str = "vegas";
    fn build(&self, _options: CcOptions) -> Vegas {
        Vegas::new(*self)
    }
    /// The first setting out of range: (key, value, what is expected).
    fn check(&self) -> Result<(), OutOfRange> {
        if !(self.alpha >= 0.0 && self.alpha.is_finite()) {
            return Err(("alpha", self.alpha, "a number of segments, 0 or more"));
        }
        if !(self.beta >= self.alpha && self.beta.is_finite()) {
            return Err((
                "beta",
                self.beta,
                "a number of segments no smaller than alpha",
            ));
        }
        if !(self.gamma >= 0.0 && self.gamma.is_finite()) {
            return Err(("gamma", self.gamma, "a number of segments, 0 or more"));
        }
        Ok(())
    }
}

/// TCP Vegas.
#[derive(Clone, Debug, PartialEq)]
pub struct Vegas {
    config: VegasConfig,
    rounds: Rounds,
    rtt: RoundRtt,
    /// Slow start grows only in every other round.
    grow_this_round: bool,
    /// Diff of the last round, in segments.
    diff_segments: Option<f64>,
    /// The segment to be declared lost: when it was last sent, how often.
    lost_segment: Option<(SimTime, u32)>,
    /// When the window was last cut.
    last_cut: Option<SimTime>,
}

impl Vegas {
    pub fn new(config: VegasConfig) -> Self {
        Vegas {
            config,
            rounds: Rounds::default(),
            rtt: RoundRtt::default(),
            grow_this_round: true,
            diff_segments: None,
            lost_segment: None,
            last_cut: None,
        }
    }

    /// §3.1 with ns-2's sizes: ssthresh (and so cwnd) for a loss of the segment noted by
    /// `note_lost_segment`, `cwnd` bytes now; unchanged if it was sent before the last cut.
    fn fine_grained_cut(&mut self, now: SimTime, cwnd: u64, mss: u64) -> u64 {
        let (sent, transmits) = self.lost_segment.take().unwrap_or((now, 1));
        if self.last_cut.is_some_and(|t| sent < t) {
            return cwnd.max(2 * mss);
        }
        self.last_cut = Some(now);
        if cwnd <= 3 * mss {
            2 * mss
        } else if transmits > 1 {
            cwnd / 2
        } else {
            cwnd - cwnd / 4
        }
    }

    /// Diff = cwnd · (RTT − BaseRTT) / RTT, in segments.
    fn diff(&self, cwnd: u64, mss: u64, rtt_ns: u64) -> Option<f64> {
        let base = self.rtt.base?.as_nanos() as f64;
        let rtt = rtt_ns.max(1) as f64;
        Some(cwnd as f64 / mss as f64 * (rtt - base).max(0.0) / rtt)
    }

    /// The once-per-round decision (§3.2, §3.3).
    fn end_round(&mut self, w: &mut CongestionWindow, mss: u64) {
        let Some(round) = self.rtt.end_round() else {
            return;
        };
        let Some(diff) = self.diff(w.cwnd, mss, round.min.as_nanos()) else {
            return;
        };
        self.diff_segments = Some(diff);
        if w.in_slow_start() {
            // The comparison is valid at the end of a round the window held still.
            if !self.grow_this_round && diff > self.config.gamma {
                w.cwnd = (w.cwnd - w.cwnd / 8).max(2 * mss);
                w.ssthresh = w.cwnd;
            }
            self.grow_this_round = !self.grow_this_round;
            return;
        }
        if diff < self.config.alpha {
            w.cwnd += mss;
        } else if diff > self.config.beta {
            w.cwnd = w.cwnd.saturating_sub(mss).max(2 * mss);
            // Still congestion avoidance: the decrease lowers ssthresh too (as Linux's
            // `tcp_vegas_ssthresh`), or slow start would undo it.
            w.ssthresh = w.ssthresh.min(w.cwnd);
        }
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        // The fine-grained samples (§3.1), not the retransmission timer's ticks.
        self.rtt.on_ack(ack);
        if !ack.may_grow || ack.acked_bytes == 0 {
            return;
        }
        if self.rounds.on_ack(ack) {
            self.end_round(w, ack.mss);
        }
        if w.in_slow_start() && self.grow_this_round {
            w.cwnd += ack.acked_bytes.min(ack.mss);
        }
    }

    fn ssthresh_on_loss(
        &mut self,
        now: SimTime,
        w: &CongestionWindow,
        flight: u64,
        mss: u64,
    ) -> u64 {
        if self.config.fine_grained_retransmission {
            self.fine_grained_cut(now, w.cwnd, mss)
        } else {
            super::reno_ssthresh(flight, mss)
        }
    }

    fn on_rto(
        &mut self,
        now: SimTime,
        w: &mut CongestionWindow,
        flight: u64,
        mss: u64,
        first: bool,
    ) {
        super::reno_timeout(w, flight, mss, first);
        self.grow_this_round = true;
        self.last_cut = Some(now);
        self.lost_segment = None;
    }

    fn fine_grained_retransmission(&self) -> bool {
        self.config.fine_grained_retransmission
    }

    fn note_lost_segment(&mut self, sent_at: SimTime, transmits: u32) {
        self.lost_segment = Some((sent_at, transmits));
    }

    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        CcMetrics {
            min_rtt: self.rtt.base,
            queue_segments: self.diff_segments,
            ..CcMetrics::of_window(w, None)
        }
    }
}

#[cfg(test)]
mod tests;
