//! Random Early Detection, S. Floyd and V. Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993, §4 (Figure 2), with the optional
//! "gentle" region of Floyd's 2000 note and the ECN marking of RFC 3168 §5.
//!
//! On every arrival the average queue size is updated: avg ← (1 − w_q)·avg + w_q·q while the
//! queue holds packets, or, when the packet finds it empty, avg ← (1 − w_q)^m·avg with
//! m = (now − q_time)/s, the number of small packets (`mean_packet_size` at the line rate)
//! that could have been sent since it emptied at q_time. Then:
//!
//! * avg < min_th: the packet is queued, count = −1;
//! * min_th ≤ avg < max_th: count += 1, p_b = max_p·(avg − min_th)/(max_th − min_th),
//!   p_a = p_b/(1 − count·p_b) (so marks fall roughly uniformly, not in clusters); with
//!   probability p_a the packet is marked and count = 0;
//! * with `gentle`, max_th ≤ avg < 2·max_th: p_b rises linearly from max_p to 1, with the
//!   same count rule;
//! * beyond (avg ≥ max_th, or ≥ 2·max_th with `gentle`): every packet is marked, count = 0.
//!
//! A mark sets CE on an ECN-capable packet when `ecn` is on (RFC 3168 §5: a router marks
//! instead of dropping), and drops it otherwise. In the forced region beyond the
//! thresholds even an ECN-capable packet is dropped (as ns-2's `RED` and ns-3's
//! `UseHardDrop` do: marking could not stop the queue from growing there). A full buffer
//! (the link's `queue` limit) drops the arrival whatever avg says. Sizes are in packets.
//!
//! Defaults are the paper's simulations': min_th = 5, max_th = 15 packets, max_p = 1/50,
//! w_q = 0.002; `mean_packet_size` 500 bytes is ns-2's `mean_pktsize_` (the paper leaves s
//! open).
//!
//! Left out: byte mode (p_b scaled by size), the `wait` variant, adaptive RED.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{RngStream, SimDuration, SimTime};

/// Active queue management on a link (`aqm = { kind = "red", ... }`); without it a link's
/// queue is drop-tail.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmSpec {
    /// Random Early Detection (Floyd & Jacobson 1993), marking ECN-capable packets (RFC
    /// 3168) instead of dropping them.
    Red(RedSpec),
}

/// RED's parameters. Defaults are the paper's.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// min_th, packets: below it nothing is marked. Default 5 (Floyd & Jacobson §11).
    #[serde(default = "default_min_th")]
    pub min_th: f64,
    /// max_th, packets: at or beyond it every packet is marked. Default 15 (Floyd &
    /// Jacobson §11).
    #[serde(default = "default_max_th")]
    pub max_th: f64,
    /// max_p: the marking probability as avg reaches max_th. Default 0.02 (1/50, Floyd &
    /// Jacobson §11).
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    /// w_q: the weight of the average queue's exponential moving average. Default 0.002
    /// (Floyd & Jacobson §6).
    #[serde(default = "default_w_q")]
    pub w_q: f64,
    /// Gentle RED (Floyd 2000): between max_th and 2·max_th the probability rises from max_p
    /// to 1 instead of jumping to 1. Default false (the paper's RED).
    #[serde(default)]
    pub gentle: bool,
    /// Mark ECN-capable packets with CE instead of dropping them (RFC 3168 §5). Default
    /// true.
    #[serde(default = "default_true")]
    pub ecn: bool,
    /// s: the size of a typical small packet, whose transmission time at the line rate
    /// counts the idle period in avg's decay. Default "500B" (ns-2's `mean_pktsize_`).
    #[serde(default = "default_mean_packet_size")]
    pub mean_packet_size: crate::units::ByteSize,
}

fn default_min_th() -> f64 {
    5.0
}
fn default_max_th() -> f64 {
    15.0
}
fn default_max_p() -> f64 {
    0.02
}
fn default_w_q() -> f64 {
    0.002
}
fn default_true() -> bool {
    true
}
fn default_mean_packet_size() -> crate::units::ByteSize {
    crate::units::ByteSize(500)
}

impl Default for RedSpec {
    fn default() -> Self {
        RedSpec {
            min_th: default_min_th(),
            max_th: default_max_th(),
            max_p: default_max_p(),
            w_q: default_w_q(),
            gentle: false,
            ecn: true,
            mean_packet_size: default_mean_packet_size(),
        }
    }
}

impl RedSpec {
    /// The first setting out of range: (field, value as written, what is expected).
    pub fn check(&self) -> Result<(), (&'static str, String, String)> {
        let finite = |v: f64| v.is_finite();
        if !finite(self.min_th) || self.min_th < 0.0 {
            return Err(("min_th", self.min_th.to_string(), "packets ≥ 0".into()));
        }
        if !finite(self.max_th) || self.max_th <= self.min_th {
            return Err((
                "max_th",
                self.max_th.to_string(),
                format!("more packets than min_th ({})", self.min_th),
            ));
        }
        if !finite(self.max_p) || self.max_p <= 0.0 || self.max_p > 1.0 {
            return Err((
                "max_p",
                self.max_p.to_string(),
                "a probability in (0, 1]".into(),
            ));
        }
        if !finite(self.w_q) || self.w_q <= 0.0 || self.w_q > 1.0 {
            return Err(("w_q", self.w_q.to_string(), "a weight in (0, 1]".into()));
        }
        if self.mean_packet_size.bytes() == 0 {
            return Err((
                "mean_packet_size",
                "\"0B\"".into(),
                "a size greater than zero".into(),
            ));
        }
        Ok(())
    }
}

/// What RED decided for an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue with CE set.
    Mark,
    Drop,
}

/// Counters of one RED queue.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    /// Packets marked with CE.
    pub marks: u64,
    /// Packets dropped by RED's decision (not by a full buffer).
    pub early_drops: u64,
}

/// One RED queue's state.
#[derive(Clone, Debug)]
pub struct Red {
    spec: RedSpec,
    /// The transmission time of a small packet (s).
    small_packet: SimDuration,
    avg: f64,
    count: i64,
    /// When the queue last became empty (q_time), if it is empty.
    idle_since: Option<SimTime>,
    rng: RngStream,
    pub stats: RedStats,
}

impl Red {
    pub fn new(spec: RedSpec, rate_bps: u64, rng: RngStream) -> Self {
        let bits = spec.mean_packet_size.bytes().saturating_mul(8);
        Red {
            small_packet: SimDuration::transmission(bits, rate_bps.max(1)),
            spec,
            avg: 0.0,
            count: -1,
            idle_since: Some(SimTime::ZERO),
            rng,
            stats: RedStats::default(),
        }
    }

    /// The average queue size, in packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// A packet arrives to find `queued` packets waiting; `ect` if it is ECN-capable.
    pub fn on_arrival(&mut self, now: SimTime, queued: usize, ect: bool) -> Verdict {
        self.update_average(now, queued);
        let mark = match self.probability() {
            None => {
                self.count = -1;
                return Verdict::Enqueue;
            }
            Some(Probability::Forced) => {
                self.count = 0;
                self.stats.early_drops += 1;
                return Verdict::Drop;
            }
            Some(Probability::Base(p_b)) => self.draw(p_b),
        };
        if !mark {
            return Verdict::Enqueue;
        }
        if self.spec.ecn && ect {
            self.stats.marks += 1;
            Verdict::Mark
        } else {
            self.stats.early_drops += 1;
            Verdict::Drop
        }
    }

    /// The queue has just become empty.
    pub fn on_empty(&mut self, now: SimTime) {
        self.idle_since = Some(now);
    }

    fn update_average(&mut self, now: SimTime, queued: usize) {
        let w = self.spec.w_q;
        match self.idle_since.take() {
            Some(since) if queued == 0 => {
                let idle = now.saturating_since(since).as_nanos() as f64;
                let m = idle / self.small_packet.as_nanos().max(1) as f64;
                self.avg *= libm::pow(1.0 - w, m);
            }
            _ => self.avg = (1.0 - w) * self.avg + w * queued as f64,
        }
    }

    fn probability(&self) -> Option<Probability> {
        let s = &self.spec;
        if self.avg < s.min_th {
            return None;
        }
        if self.avg < s.max_th {
            return Some(Probability::Base(
                s.max_p * (self.avg - s.min_th) / (s.max_th - s.min_th),
            ));
        }
        if s.gentle && self.avg < 2.0 * s.max_th {
            return Some(Probability::Base(
                s.max_p + (1.0 - s.max_p) * (self.avg - s.max_th) / s.max_th,
            ));
        }
        Some(Probability::Forced)
    }

    /// count += 1, p_a = p_b / (1 − count·p_b); true (and count = 0) on a mark.
    fn draw(&mut self, p_b: f64) -> bool {
        self.count += 1;
        let denominator = 1.0 - self.count as f64 * p_b;
        let p_a = if denominator <= 0.0 {
            1.0
        } else {
            (p_b / denominator).min(1.0)
        };
        let mark = self.rng.next_f64() < p_a;
        if mark {
            self.count = 0;
        }
        mark
    }
}

/// The marking probability of the region avg falls in.
enum Probability {
    /// p_b, before the count adjustment.
    Base(f64),
    /// Beyond the thresholds: every packet.
    Forced,
}

#[cfg(test)]
mod tests;
