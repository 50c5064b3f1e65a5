//! TCP Illinois (S. Liu, T. Başar and R. Srikant, "TCP-Illinois: A Loss and Delay-Based
//! Congestion Control Algorithm for High-Speed Networks", VALUETOOLS 2006; Performance
//! Evaluation 65, 2008):
//!
//! * **Window**: per ACK in congestion avoidance w ← w + α/w (α segments per round trip);
//!   on a loss w ← w − β·w.
//! * **Delays**, updated once per round trip from a sample per ACK of new data (the newest
//!   segment's send time, as Linux's `tcp_illinois.c`): the base RTT (smallest sample),
//!   the maximum RTT; da = the round's average RTT − base (average queueing delay) and
//!   dm = max RTT − base (the largest queueing delay seen).
//! * **α = f1(da)**: α_max while da ≤ d1, else κ1/(κ2 + da) with κ1, κ2 chosen so that
//!   f1(d1) = α_max and f1(dm) = α_min. α returns to α_max only after da has stayed ≤ d1
//!   for θ = 5 consecutive round trips.
//! * **β = f2(da)**: β_min while da ≤ d2, β_max once da ≥ d3, linear in between.
//! * d1 = dm/100, d2 = dm/10, d3 = 8·dm/10; α_max = 10, α_min = 0.3, β_min = 1/8,
//!   β_max = 1/2 (the paper's recommended values).
//! * Small windows (below 15 segments, `win_thresh`) behave as Reno: α = 1, β = 1/2, as do
//!   windows before the first delay measurement; a timeout also resets α = 1, β = 1/2.
//! * Slow start and the timeout's window are Reno's (RFC 5681).
//!
//! The parameter update follows Linux's `tcp_illinois.c` (`update_params`, `alpha`,
//! `beta`), whose α formula is the paper's κ1/(κ2 + da) rewritten. Departures (see
//! `docs/congestion-control.md`): ns-3 measures delays from SRTT in whole milliseconds and
//! cuts from BytesInFlight; Linux never ages the maximum RTT, nor does this module.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::SimTime;

use super::estimators::{RoundRtt, Rounds};
use super::spec::{CcOptions, CcSettings, OutOfRange};
use super::{AckSample, CcMetrics, CongestionControl, CongestionWindow};

/// Illinois's parameters.
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IllinoisConfig {
    /// Largest additive increase, segments per round trip. Default 10 (the paper's recommended
    /// value).
    #[serde(default = "default_alpha_max")]
    pub alpha_max: f64,
    /// Smallest additive increase. Default 0.3 (the paper's).
    #[serde(default = "default_alpha_min")]
    pub alpha_min: f64,
    /// Smallest multiplicative decrease. Default 0.125 (the paper's 1/8).
    #[serde(default = "default_beta_min")]
    pub beta_min: f64,
    /// Largest multiplicative decrease. Default 0.5 (the paper's 1/2).
    #[serde(default = "default_beta_max")]
    pub beta_max: f64,
    /// Round trips with low delay before α returns to α_max. Default 5.
    #[serde(default = "default_theta")]
    pub theta: u32,
    /// Below this window (segments) Illinois behaves as Reno. Default 15 (Linux's
    /// `win_thresh`).
    #[serde(default = "default_win_thresh")]
    pub win_thresh: u32,
}

fn default_alpha_max() -> f64 {
    10.0
}
fn default_alpha_min() -> f64 {
    0.3
}
fn default_beta_min() -> f64 {
    0.125
}
fn default_beta_max() -> f64 {
    0.5
}
fn default_theta() -> u32 {
    5
}
fn default_win_thresh() -> u32 {
    15
}

impl Default for IllinoisConfig {
    fn default() -> Self {
        IllinoisConfig {
            alpha_max: default_alpha_max(),
            alpha_min: default_alpha_min(),
            beta_min: default_beta_min(),
            beta_max: default_beta_max(),
            theta: default_theta(),
            win_thresh: default_win_thresh(),
        }
    }
}

impl CcSettings for IllinoisConfig {
    type Controller = Illinois;
    const KIND: &'static str = "illinois";
    fn build(&self, _options: CcOptions) -> Illinois {
        Illinois::new(*self)
    }
    /// The first setting out of range: (key, value, what is expected).
    fn check(&self) -> Result<(), OutOfRange> {
        if !(self.alpha_min > 0.0 && self.alpha_min.is_finite()) {
            return Err(("alpha_min", self.alpha_min, "a number above 0"));
        }
        if !(self.alpha_max > self.alpha_min && self.alpha_max.is_finite()) {
            return Err(("alpha_max", self.alpha_max, "a number above alpha_min"));
        }
        if !(self.beta_min > 0.0 && self.beta_min < 1.0) {
            return Err(("beta_min", self.beta_min, "a number above 0 and below 1"));
        }
        if !(self.beta_max >= self.beta_min && self.beta_max < 1.0) {
            return Err((
                "beta_max",
                self.beta_max,
                "a number from beta_min to below 1",
            ));
        }
        Ok(())
    }
}

/// TCP Illinois.
#[derive(Clone, Debug, PartialEq)]
pub struct Illinois {
    config: IllinoisConfig,
    rounds: Rounds,
    rtt: RoundRtt,
    alpha: f64,
    beta: f64,
    /// The delay rose above d1 since α was last at α_max (Linux `rtt_above`).
    rtt_above: bool,
    /// Consecutive rounds with da ≤ d1 (Linux `rtt_low`).
    rtt_low: u32,
    /// Fractional window growth carried between ACKs, bytes.
    carry: f64,
}

impl Illinois {
    pub fn new(config: IllinoisConfig) -> Self {
        Illinois {
            config,
            rounds: Rounds::default(),
            rtt: RoundRtt::default(),
            alpha: 1.0,
            beta: 0.5,
            rtt_above: false,
            rtt_low: 0,
            carry: 0.0,
        }
    }

    /// α = f1(da) given the largest queueing delay dm (seconds).
    pub fn alpha_for(&mut self, da: f64, dm: f64) -> f64 {
        let c = &self.config;
        let d1 = dm / 100.0;
        if da <= d1 {
            if !self.rtt_above {
                return c.alpha_max;
            }
            self.rtt_low += 1;
            if self.rtt_low < c.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return c.alpha_max;
        }
        self.rtt_above = true;
        let (dm, da) = (dm - d1, da - d1);
        dm * c.alpha_max / (dm + da * (c.alpha_max - c.alpha_min) / c.alpha_min)
    }

    /// β = f2(da) given dm (seconds).
    pub fn beta_for(&self, da: f64, dm: f64) -> f64 {
        let c = &self.config;
        let (d2, d3) = (dm / 10.0, 8.0 * dm / 10.0);
        if da <= d2 {
            c.beta_min
        } else if da >= d3 || d3 <= d2 {
            c.beta_max
        } else {
            (c.beta_min * d3 - c.beta_max * d2 + (c.beta_max - c.beta_min) * da) / (d3 - d2)
        }
    }

    /// The once-per-round update (Linux `update_params`).
    fn end_round(&mut self, cwnd: u64, mss: u64) {
        let round = self.rtt.end_round();
        let (Some(round), Some(base), Some(max)) = (round, self.rtt.base, self.rtt.max) else {
            return;
        };
        if cwnd < u64::from(self.config.win_thresh) * mss {
            self.alpha = 1.0;
            self.beta = 0.5;
            return;
        }
        if round.count == 0 {
            // No sample this round: α and β stay.
            return;
        }
        let da = round.mean.saturating_sub(base).as_secs_f64();
        let dm = max.saturating_sub(base).as_secs_f64();
        self.alpha = self.alpha_for(da, dm);
        self.beta = self.beta_for(da, dm);
    }
}

impl CongestionControl for Illinois {
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        self.rtt.on_ack(ack);
        if !ack.may_grow || ack.acked_bytes == 0 {
            return;
        }
        if self.rounds.on_ack(ack) {
            self.end_round(w.cwnd, ack.mss);
        }
        if w.in_slow_start() {
            w.cwnd += ack.acked_bytes.min(ack.mss);
            return;
        }
        // w += α/w per segment acknowledged, in bytes: α·SMSS·acked/cwnd.
        let add = self.alpha * ack.mss as f64 * ack.acked_bytes.min(ack.mss) as f64
            / w.cwnd.max(1) as f64
            + self.carry;
        let whole = add.floor();
        self.carry = add - whole;
        w.cwnd += whole as u64;
    }

    fn ssthresh_on_loss(
        &mut self,
        _now: SimTime,
        w: &CongestionWindow,
        _flight: u64,
        mss: u64,
    ) -> u64 {
        ((w.cwnd as f64 * (1.0 - self.beta)) as u64).max(2 * mss)
    }

    fn on_rto(
        &mut self,
        _now: SimTime,
        w: &mut CongestionWindow,
        flight: u64,
        mss: u64,
        first: bool,
    ) {
        super::reno_timeout(w, flight, mss, first);
        self.alpha = 1.0;
        self.beta = 0.5;
        self.rtt_above = false;
        self.rtt_low = 0;
    }

    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        CcMetrics {
            min_rtt: self.rtt.base,
            alpha: Some(self.alpha),
            beta: Some(self.beta),
            ..CcMetrics::of_window(w, None)
        }
    }
}

#[cfg(test)]
mod tests;
