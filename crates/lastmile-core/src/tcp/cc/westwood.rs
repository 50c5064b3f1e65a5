//! TCP Westwood+ (S. Mascolo, C. Casetti, M. Gerla, M. Sanadidi and R. Wang, "TCP
//! Westwood: Bandwidth Estimation for Enhanced Transport over Wireless Links", MobiCom 2001;
//! the "+" per-RTT sampling of L. A. Grieco and S. Mascolo, "Performance evaluation and
//! comparison of Westwood+, New Reno, and Vegas TCP congestion control", ACM CCR 34(2), 2004):
//!
//! * **Bandwidth estimate** (BWE): once per round trip a sample b_k = D_k / T_k, the bytes
//!   acknowledged during the round over its length, is filtered as
//!   BWE_k = g · BWE_{k−1} + (1 − g) · b_k. A duplicate ACK counts one segment delivered;
//!   the cumulative ACK that follows is credited only with what the duplicates did not
//!   already count (as Linux's `westwood_acked_count`). The first sample seeds the filter
//!   (Linux; ns-3 starts from zero). Before the first estimate a loss gets Reno's
//!   ssthresh (ns-3 gives two segments).
//! * **After n duplicate ACKs** (MobiCom 2001 §3.1): ssthresh = BWE · RTTmin, at least two
//!   segments, and "if cwnd > ssthresh then cwnd = ssthresh". Loss recovery sets cwnd from
//!   the ssthresh it is given, so recovery gets min(BWE · RTTmin, cwnd) — the window never
//!   grows because of a loss — and ssthresh is raised to BWE · RTTmin on the first ACK
//!   after recovery that lets the window grow: a window the loss left below the estimate
//!   slow-starts up to it, as the paper's ssthresh above cwnd does.
//! * **After a timeout** (§3.2): ssthresh = max(2, BWE · RTTmin / seg) segments, cwnd = 1.
//! * **Growth** is Reno's (RFC 5681 §3.1).
//!
//! RTTmin is the smallest RTT sample seen, one per ACK of new data from the newest
//! segment's send time (Linux's `rtt_us`), never the retransmission timer's ticks.
//! Departures (see `docs/congestion-control.md`): Linux samples over max(RTT, 50 ms),
//! filters with two cascaded 7/8 EWMAs, and applies the
//! estimate when the window reduction completes (`CA_EVENT_COMPLETE_CWR`); ns-3 measures
//! over one SRTT after the first ACK of a window and gives 2 segments for a loss before the
//! first estimate. The filter gain g defaults to 0.9 (ns-3's value; the Westwood+ paper's
//! own constant could not be re-read when this was written). Left out: the original
//! Westwood's per-ACK samples with a Tustin filter and virtual null samples.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::SimTime;

use super::estimators::{RoundRtt, Rounds};
use super::spec::{CcOptions, CcSettings, OutOfRange};
use super::{AckSample, CcMetrics, CongestionControl, CongestionWindow};

/// Westwood+'s bandwidth filter.
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WestwoodConfig {
    /// Weight g of the previous estimate in BWE_k = g·BWE_{k−1} + (1 − g)·b_k, from 0 to
    /// below 1. Default 0.9 (ns-3's `TcpWestwoodPlus` EWMA).
    #[serde(default = "default_gain")]
    pub filter_gain: f64,
}

fn default_gain() -> f64 {
    0.9
}

impl Default for WestwoodConfig {
    fn default() -> Self {
        WestwoodConfig {
            filter_gain: default_gain(),
        }
    }
}

impl CcSettings for WestwoodConfig {
    type Controller = Westwood;
    const KIND: &'static str = "westwood_plus";
    fn build(&self, _options: CcOptions) -> Westwood {
        Westwood::new(*self)
    }
    /// The first setting out of range: (key, value, what is expected).
    fn check(&self) -> Result<(), OutOfRange> {
        if !(0.0..1.0).contains(&self.filter_gain) {
            return Err((
                "filter_gain",
                self.filter_gain,
                "a number from 0 to below 1",
            ));
        }
        Ok(())
    }
}

/// TCP Westwood+.
#[derive(Clone, Debug, PartialEq)]
pub struct Westwood {
    config: WestwoodConfig,
    rounds: Rounds,
    rtt: RoundRtt,
    /// Bytes delivered in the current round.
    delivered_in_round: u64,
    round_start: Option<SimTime>,
    /// Bytes credited for duplicate ACKs not yet covered by a cumulative ACK.
    accounted: u64,
    /// The bandwidth estimate, bytes per second.
    bwe_bytes_per_s: Option<f64>,
    /// BWE · RTTmin at the last loss, for ssthresh once recovery is over.
    ssthresh_after_recovery: Option<u64>,
}

impl Westwood {
    pub fn new(config: WestwoodConfig) -> Self {
        Westwood {
            config,
            rounds: Rounds::default(),
            rtt: RoundRtt::default(),
            delivered_in_round: 0,
            round_start: None,
            accounted: 0,
            bwe_bytes_per_s: None,
            ssthresh_after_recovery: None,
        }
    }

    /// The bytes this ACK tells were delivered (Linux `westwood_acked_count`).
    fn delivered(&mut self, ack: &AckSample) -> u64 {
        if ack.duplicate {
            self.accounted += ack.mss;
            return ack.mss;
        }
        let credit = ack.acked_bytes.saturating_sub(self.accounted);
        self.accounted = self.accounted.saturating_sub(ack.acked_bytes);
        credit
    }

    /// BWE · RTTmin in bytes, once both exist.
    fn bdp_bytes(&self) -> Option<u64> {
        let bwe = self.bwe_bytes_per_s?;
        let rtt_min = self.rtt.base?;
        Some((bwe * rtt_min.as_secs_f64()).round() as u64)
    }

    fn close_round(&mut self, now: SimTime) {
        if let Some(start) = self.round_start {
            let t = now.saturating_since(start);
            if !t.is_zero() {
                let b = self.delivered_in_round as f64 / t.as_secs_f64();
                let g = self.config.filter_gain;
                self.bwe_bytes_per_s = Some(match self.bwe_bytes_per_s {
                    None => b,
                    Some(prev) => g * prev + (1.0 - g) * b,
                });
            }
        }
        self.round_start = Some(now);
        self.delivered_in_round = 0;
    }
}

impl CongestionControl for Westwood {
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        self.rtt.on_ack(ack);
        let delivered = self.delivered(ack);
        if self.rounds.on_ack(ack) {
            self.close_round(ack.now);
        }
        self.delivered_in_round += delivered;
        if ack.may_grow && ack.acked_bytes > 0 {
            if let Some(ss) = self.ssthresh_after_recovery.take() {
                w.ssthresh = w.ssthresh.max(ss);
            }
        }
        super::reno_growth(w, ack);
    }

    fn ssthresh_on_loss(
        &mut self,
        _now: SimTime,
        w: &CongestionWindow,
        flight: u64,
        mss: u64,
    ) -> u64 {
        // §3.1: ssthresh = BWE·RTTmin; cwnd = min(cwnd, ssthresh). Before any estimate,
        // Reno's value.
        match self.bdp_bytes() {
            Some(bdp) => {
                let ss = bdp.max(2 * mss);
                self.ssthresh_after_recovery = Some(ss);
                ss.min(w.cwnd.max(2 * mss))
            }
            None => super::reno_ssthresh(flight, mss),
        }
    }

    fn on_rto(
        &mut self,
        _now: SimTime,
        w: &mut CongestionWindow,
        flight: u64,
        mss: u64,
        first: bool,
    ) {
        self.ssthresh_after_recovery = None;
        if first {
            // §3.2; before any estimate, Reno's value.
            w.ssthresh = match self.bdp_bytes() {
                Some(bdp) => bdp.max(2 * mss),
                None => super::reno_ssthresh(flight, mss),
            };
        }
        w.cwnd = mss;
    }

    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        CcMetrics {
            bandwidth_bytes_per_s: self.bwe_bytes_per_s.map(|b| b.round() as u64),
            min_rtt: self.rtt.base,
            ..CcMetrics::of_window(w, None)
        }
    }
}

#[cfg(test)]
mod tests;
