//! FAST TCP (D. X. Wei, C. Jin, S. H. Low and S. Hegde, "FAST TCP: Motivation,
//! Architecture, Algorithms, Performance", IEEE/ACM ToN 14(6), 2006, §IV):
//!
//! * **Window update**, once per round trip:
//!   w ← min{2w, (1 − γ)·w + γ·(baseRTT/avgRTT · w + α)}, in segments, with γ ∈ (0, 1]
//!   (default 0.5). At equilibrium each flow keeps α segments queued at the bottleneck
//!   (x·q = α), whatever the capacity.
//! * **Estimation**: baseRTT is the smallest RTT seen; avgRTT is an exponential average of
//!   the RTT samples with weight η = min(3/w, 1/4) per sample (the design notes' reading of
//!   the paper; the ns-2 module uses 1/256 or 3/w), a sample per ACK of new data from the
//!   newest segment's send time (`estimators`: never the retransmission timer's ticks).
//! * **Losses**: as Reno (RFC 5681 (4): ssthresh = FlightSize/2, the timeout's loss window);
//!   the window update resumes once recovery allows growth, so there is no separate slow
//!   start: the min{2w, ·} bound doubles the window per round trip while the queue is empty.
//!
//! Defaults: α = 100 segments and γ = 0.5, the ns-2 FAST module's (CUBIN lab) defaults,
//! which the LLE-TCP paper's FAST runs used ("all the configuration parameters are set to
//! their default values", §4.4). Left out: the prototype's pacing of increases over the
//! next round trip (the whole step is taken at the round's end), its every-other-RTT
//! update and its multiplicative-increase phase while the queueing delay is below
//! 0.75 ms; neither ns-3 nor Linux ships FAST.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::estimators::{RoundRtt, Rounds};
use super::spec::{CcOptions, CcSettings, OutOfRange};
use super::{AckSample, CcMetrics, CcPhase, CongestionControl, CongestionWindow};

/// FAST's parameters.
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FastConfig {
    /// Segments the flow keeps queued at equilibrium (α). Default 100 (the ns-2 FAST
    /// module's `alpha_`).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// The step γ ∈ (0, 1] towards the equilibrium window per update. Default 0.5 (the ns-2
    /// FAST module's `gamma_`).
    #[serde(default = "default_gamma")]
    pub gamma: f64,
}

fn default_alpha() -> f64 {
    100.0
}
fn default_gamma() -> f64 {
    0.5
}

impl Default for FastConfig {
    fn default() -> Self {
        FastConfig {
            alpha: default_alpha(),
            gamma: default_gamma(),
        }
    }
}

impl CcSettings for FastConfig {
    type Controller = Fast;
    const KIND: &'static str = "fast";
    fn build(&self, _options: CcOptions) -> Fast {
        Fast::new(*self)
    }
    /// The first setting out of range: (key, value, what is expected).
    fn check(&self) -> Result<(), OutOfRange> {
        if !(self.alpha > 0.0 && self.alpha.is_finite()) {
            return Err(("alpha", self.alpha, "a number of segments above 0"));
        }
        if !(self.gamma > 0.0 && self.gamma <= 1.0) {
            return Err(("gamma", self.gamma, "a number above 0 and at most 1"));
        }
        Ok(())
    }
}

/// FAST TCP.
#[derive(Clone, Debug, PartialEq)]
pub struct Fast {
    config: FastConfig,
    rounds: Rounds,
    rtt: RoundRtt,
    /// avgRTT in seconds.
    avg_rtt_s: Option<f64>,
    /// The backlog at the last update, in segments.
    backlog_segments: Option<f64>,
}

impl Fast {
    pub fn new(config: FastConfig) -> Self {
        Fast {
            config,
            rounds: Rounds::default(),
            rtt: RoundRtt::default(),
            avg_rtt_s: None,
            backlog_segments: None,
        }
    }

    fn on_rtt_sample(&mut self, rtt_s: f64, cwnd_segments: f64) {
        let eta = (3.0 / cwnd_segments.max(1.0)).min(0.25);
        self.avg_rtt_s = Some(match self.avg_rtt_s {
            None => rtt_s,
            Some(avg) => (1.0 - eta) * avg + eta * rtt_s,
        });
    }

    /// The window FAST moves to from `cwnd` bytes (§IV, the update law).
    pub fn next_window(&self, cwnd: u64, mss: u64) -> Option<u64> {
        let base = self.rtt.base?.as_secs_f64();
        let avg = self.avg_rtt_s?.max(base);
        let w = cwnd as f64 / mss as f64;
        let g = self.config.gamma;
        let target = (1.0 - g) * w + g * (base / avg * w + self.config.alpha);
        let next = target.min(2.0 * w).max(2.0);
        Some((next * mss as f64) as u64)
    }

    /// The backlog the flow keeps queued: w · (avgRTT − baseRTT) / avgRTT segments.
    fn backlog(&self, cwnd: u64, mss: u64) -> Option<f64> {
        let base = self.rtt.base?.as_secs_f64();
        let avg = self.avg_rtt_s?.max(base);
        Some(cwnd as f64 / mss as f64 * (avg - base) / avg)
    }
}

impl CongestionControl for Fast {
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        self.rtt.on_ack(ack);
        if let Some(rtt) = ack.latest_rtt {
            self.on_rtt_sample(rtt.as_secs_f64(), w.cwnd as f64 / ack.mss as f64);
        }
        if !ack.may_grow || ack.acked_bytes == 0 {
            return;
        }
        if self.rounds.on_ack(ack) {
            self.rtt.end_round();
            self.backlog_segments = self.backlog(w.cwnd, ack.mss);
            if let Some(next) = self.next_window(w.cwnd, ack.mss) {
                w.cwnd = next;
                return;
            }
        }
        if self.rtt.base.is_none() {
            // No RTT sample yet: slow start until there is one.
            w.cwnd += ack.acked_bytes.min(ack.mss);
        }
    }

    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        CcMetrics {
            phase: CcPhase::CongestionAvoidance,
            min_rtt: self.rtt.base,
            queue_segments: self.backlog_segments,
            ..CcMetrics::of_window(w, None)
        }
    }
}

#[cfg(test)]
mod tests;
