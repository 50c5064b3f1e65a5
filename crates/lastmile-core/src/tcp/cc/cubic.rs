//! CUBIC (RFC 9438, "CUBIC for Fast and Long-Distance Networks", 2023), in bytes:
//!
//! * **Window function** (§4.2): W_cubic(t) = C·(t − K)³ + W_max segments, t the time
//!   since the current congestion-avoidance stage began and K = ∛((W_max − cwnd_epoch)/C).
//!   On every new ACK in congestion avoidance, target = W_cubic(t + RTT) (RTT = SRTT)
//!   clamped to [cwnd, 1.5·cwnd], and cwnd grows by (target − cwnd)/cwnd per segment
//!   acknowledged (§4.4, §4.5).
//! * **Reno-friendly region** (§4.3): W_est starts at cwnd_epoch and grows by
//!   α_cubic·segments_acked/cwnd, α_cubic = 3(1 − β_cubic)/(1 + β_cubic), becoming 1 once
//!   W_est ≥ cwnd_prior; when W_cubic(t) < W_est, cwnd = W_est.
//! * **Multiplicative decrease** (§4.6): ssthresh = max(flight_size·β_cubic, 2 segments),
//!   cwnd_prior = cwnd; loss recovery then sets cwnd from ssthresh. On an ECN echo,
//!   cwnd = max(ssthresh, 1 segment).
//! * **Fast convergence** (§4.7): W_max = cwnd·(1 + β_cubic)/2 when cwnd < the previous
//!   W_max, else W_max = cwnd.
//! * **Timeout** (§4.8): ssthresh as on a loss, cwnd = 1 segment (Reno), and the first
//!   congestion-avoidance stage after it uses K = 0 and W_max = cwnd at its start.
//! * **Slow start** (§4.10): the initial slow start runs HyStart++ (RFC 9406,
//!   `hystart.rs`), which §4.10 allows and which Linux and ns-3 ship on by default in the
//!   form of the original HyStart; leaving it without a loss starts the first stage with
//!   K = 0 and W_max = cwnd. With `hystart = false`, and for every later slow start, Reno's
//!   (RFC 5681: min(N, SMSS) per ACK).
//!
//! Constants C = 0.4 segments/s³ and β_cubic = 0.7 (§4.1, §5), fast convergence on: each a
//! setting. A stage begins at the first ACK that may grow the window with cwnd ≥ ssthresh
//! after a reduction (or the first slow-start exit). Departures (see
//! `docs/congestion-control.md`): Linux computes ssthresh from cwnd, has no switch of
//! α_cubic to 1 and uses HyStart; ns-3 keeps W_max across a timeout and uses HyStart (with
//! a far larger delay threshold). Left out: spurious-loss undo (§4.9), the
//! application-limited exclusion of §4.2 (t counts idle time too).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::SimTime;

use super::hystart::HyStartPp;
use super::spec::{CcOptions, CcSettings, OutOfRange};
use super::{AckSample, CcMetrics, CongestionControl, CongestionWindow};

/// CUBIC's constants.
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CubicConfig {
    /// C, segments per second³. Default 0.4 (RFC 9438 §5).
    #[serde(default = "default_c")]
    pub c: f64,
    /// β_cubic, the multiplicative decrease factor. Default 0.7 (RFC 9438 §4.6).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Fast convergence (§4.7). Default true ("SHOULD be implemented").
    #[serde(default = "default_fast_convergence")]
    pub fast_convergence: bool,
    /// HyStart++ (RFC 9406) in the initial slow start: leave it when the round's smallest
    /// RTT rises by clamp(RTT/8, 4 ms, 16 ms), grow a quarter as fast for five rounds, then
    /// congestion avoidance. Default true (Linux and ns-3 ship HyStart on); false gives
    /// RFC 9438 §4.10's Reno slow start, which overshoots the path by up to a window.
    #[serde(default = "default_hystart")]
    pub hystart: bool,
}

fn default_c() -> f64 {
    0.4
}
fn default_beta() -> f64 {
    0.7
}
fn default_fast_convergence() -> bool {
    true
}
fn default_hystart() -> bool {
    true
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: default_c(),
            beta: default_beta(),
            fast_convergence: default_fast_convergence(),
            hystart: default_hystart(),
        }
    }
}

impl CcSettings for CubicConfig {
    type Controller = Cubic;
    const KIND: &'static str = "cubic";
    fn build(&self, options: CcOptions) -> Cubic {
        Cubic::new(*self, options.pacing)
    }
    /// The first setting out of range: (key, value, what is expected).
    fn check(&self) -> Result<(), OutOfRange> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(("c", self.c, "a number above 0"));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta", self.beta, "a number above 0 and below 1"));
        }
        Ok(())
    }
}

impl CubicConfig {
    /// α_cubic = 3(1 − β)/(1 + β) (§4.3).
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// The current congestion-avoidance stage.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Epoch {
    start: SimTime,
    /// K, seconds.
    k_s: f64,
    /// W_est, segments.
    w_est: f64,
}

/// CUBIC.
#[derive(Clone, Debug, PartialEq)]
pub struct Cubic {
    config: CubicConfig,
    /// W_max, segments (0 = none yet).
    w_max: f64,
    /// cwnd_prior, segments.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// The next stage follows a timeout (§4.8: K = 0, W_max = cwnd_epoch).
    after_timeout: bool,
    /// Fractional bytes of growth carried between ACKs.
    carry: f64,
    /// HyStart++ while the initial slow start lasts (with `hystart`).
    hystart: Option<HyStartPp>,
}

impl Cubic {
    /// CUBIC with `config`; `paced` when the sender paces (HyStart++'s L).
    pub fn new(config: CubicConfig, paced: bool) -> Self {
        Cubic {
            config,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            after_timeout: false,
            carry: 0.0,
            hystart: config.hystart.then(|| HyStartPp::new(paced)),
        }
    }

    /// HyStart++'s state, while it runs.
    pub fn hystart(&self) -> Option<&HyStartPp> {
        self.hystart.as_ref().filter(|h| h.is_active())
    }

    /// W_cubic(t) in segments for the current stage.
    pub fn w_cubic(&self, t_s: f64) -> Option<f64> {
        let e = self.epoch?;
        Some(self.config.c * (t_s - e.k_s).powi(3) + self.w_max)
    }

    /// K of the current stage, seconds.
    pub fn k_s(&self) -> Option<f64> {
        self.epoch.map(|e| e.k_s)
    }

    /// A congestion-avoidance stage begins now with cwnd_epoch = `cwnd` segments.
    fn begin_epoch(&mut self, now: SimTime, cwnd: f64) {
        if self.after_timeout || self.w_max <= 0.0 {
            // §4.8, §4.10: K = 0 and W_max = cwnd_epoch.
            self.w_max = cwnd;
            self.after_timeout = false;
        }
        let k_s = libm::cbrt((self.w_max - cwnd).max(0.0) / self.config.c);
        self.epoch = Some(Epoch {
            start: now,
            k_s,
            w_est: cwnd,
        });
    }

    /// §4.6 and §4.7: W_max, cwnd_prior; the new ssthresh in bytes.
    fn reduce(&mut self, cwnd: u64, flight: u64, mss: u64) -> u64 {
        let cwnd_seg = cwnd as f64 / mss as f64;
        self.w_max = if self.config.fast_convergence && cwnd_seg < self.w_max {
            cwnd_seg * (1.0 + self.config.beta) / 2.0
        } else {
            cwnd_seg
        };
        self.cwnd_prior = cwnd_seg;
        self.epoch = None;
        self.carry = 0.0;
        if let Some(h) = self.hystart.as_mut() {
            h.finish();
        }
        ((flight as f64 * self.config.beta) as u64).max(2 * mss)
    }

    /// §4.2–4.5 on a new ACK in congestion avoidance.
    fn avoid_congestion(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        let mss = ack.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        if self.epoch.is_none() {
            self.begin_epoch(ack.now, cwnd);
        }
        let e = self.epoch.as_mut().expect("an epoch was just begun");
        let acked = ack.acked_bytes as f64 / mss;
        let alpha = if e.w_est >= self.cwnd_prior {
            1.0
        } else {
            self.config.alpha()
        };
        e.w_est += alpha * acked / cwnd;
        let w_est = e.w_est;
        let t = ack.now.saturating_since(e.start).as_secs_f64();
        let rtt = ack.srtt.map_or(0.0, |r| r.as_secs_f64());
        let w_cubic_now = self.w_cubic(t).expect("epoch set");
        let next = if w_cubic_now < w_est {
            // §4.3: the Reno-friendly region.
            w_est.max(cwnd)
        } else {
            let target = self
                .w_cubic(t + rtt)
                .expect("epoch set")
                .clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * acked
        };
        let add = (next - cwnd) * mss + self.carry;
        let whole = add.floor().max(0.0);
        self.carry = add - whole;
        w.cwnd += whole as u64;
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        if !ack.may_grow || ack.acked_bytes == 0 {
            return;
        }
        if w.in_slow_start() {
            match self.hystart.as_mut().filter(|h| h.is_active()) {
                Some(h) => h.on_ack(w, ack),
                None => w.cwnd += ack.acked_bytes.min(ack.mss),
            }
            return;
        }
        self.avoid_congestion(w, ack);
    }

    fn ssthresh_on_loss(
        &mut self,
        _now: SimTime,
        w: &CongestionWindow,
        flight: u64,
        mss: u64,
    ) -> u64 {
        self.reduce(w.cwnd, flight, mss)
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
            w.ssthresh = self.reduce(w.cwnd, flight, mss);
        }
        self.epoch = None;
        self.after_timeout = true;
        w.cwnd = mss;
    }

    fn on_ecn_echo(&mut self, _now: SimTime, w: &mut CongestionWindow, flight: u64, mss: u64) {
        w.ssthresh = self.reduce(w.cwnd, flight, mss);
        w.cwnd = w.ssthresh.max(mss);
    }

    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        CcMetrics {
            w_max_segments: (self.w_max > 0.0).then_some(self.w_max),
            ..CcMetrics::of_window(w, None)
        }
    }
}

#[cfg(test)]
mod tests;
