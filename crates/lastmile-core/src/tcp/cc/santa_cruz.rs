//! TCP Santa Cruz's congestion control (C. Parsa and J. J. Garcia-Luna-Aceves, "Improving
//! TCP Congestion Control over Internets with Heterogeneous Transmission Media", ICNP 1999;
//! the survey's §2.4.3):
//!
//! * **Relative delay**: for packets i < j, D_{j,i} = R_{j,i} − S_{j,i}, the change in
//!   queueing between them, from the spacing of their sends (S) and of their arrivals (R).
//! * **Queue estimate**: the relative delays summed "from the beginning of a session" and
//!   "translated into the equivalent number of packets (queued at the bottleneck)" give
//!   N_t, this connection's packets queued at the bottleneck; the measurement is updated
//!   once per window ("the amount of time to transmit a windowful of data and receive the
//!   corresponding ACKs").
//! * **Operating point**: the window is adjusted to keep N_t at n packets: over the next
//!   window it grows by one segment (SMSS²/cwnd per ACK) while N_t < n and shrinks by one
//!   while N_t > n.
//! * **Slow start** grows as Reno's and ends when the queue builds (N_t ≥ n), not at the
//!   first loss; **losses** are answered as Reno (RFC 5681). Here slow start reads N_t on
//!   every ACK, so that it stops when the queue builds rather than a window (a doubling)
//!   later; a decrease in congestion avoidance lowers ssthresh with cwnd, so that slow
//!   start does not undo it.
//!
//! How this simulator measures it: a sum of relative delays from the session's start
//! telescopes to the delay of the latest packet less that of the first, so N_t = (RTT_j −
//! RTT_first) / service time, with RTT samples from `AckSample::latest_rtt` (one per ACK of
//! new data, from the newest segment's send time: the paper times every packet, and the
//! retransmission timer's sample counts whole ticks) and the bottleneck's service time per
//! segment taken as SMSS over the largest delivery rate measured (`tcp/delivery.rs`). The
//! ACK's arrival spacing stands in for the receiver's (R_{j,i}): the paper carries the
//! receiver's arrival time in its own TCP option so that only the forward path counts; here
//! reverse-path queueing would count too. Left out: that option, the ACK window (a bitmap
//! of the receiver's holes) and Santa Cruz's retransmission policy, which are loss
//! recovery. The operating point n defaults to 1.5 packets, the design notes' reading of the
//! paper (the section giving the value could not be retrieved when this was written).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::SimDuration;

use super::estimators::Rounds;
use super::spec::{CcOptions, CcSettings, OutOfRange};
use super::{AckSample, CcMetrics, CongestionControl, CongestionWindow};

/// Santa Cruz's operating point.
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SantaCruzConfig {
    /// n, the packets this connection aims to keep queued at the bottleneck. Default 1.5 (the
    /// design notes' reading of Parsa & Garcia-Luna-Aceves 1999; module notes).
    #[serde(default = "default_operating_point")]
    pub operating_point: f64,
}

fn default_operating_point() -> f64 {
    1.5
}

impl Default for SantaCruzConfig {
    fn default() -> Self {
        SantaCruzConfig {
            operating_point: default_operating_point(),
        }
    }
}

impl CcSettings for SantaCruzConfig {
    type Controller = SantaCruz;
    const KIND: &'static str = "santa_cruz";
    fn build(&self, _options: CcOptions) -> SantaCruz {
        SantaCruz::new(*self)
    }
    /// The first setting out of range: (key, value, what is expected).
    fn check(&self) -> Result<(), OutOfRange> {
        if !(self.operating_point > 0.0 && self.operating_point.is_finite()) {
            return Err((
                "operating_point",
                self.operating_point,
                "a number of packets above 0",
            ));
        }
        Ok(())
    }
}

/// Whether the window grows, shrinks or holds over the current window of data.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Direction {
    Grow,
    Hold,
    Shrink,
}

/// TCP Santa Cruz.
#[derive(Clone, Debug, PartialEq)]
pub struct SantaCruz {
    config: SantaCruzConfig,
    rounds: Rounds,
    /// The delay of the session's first sample: the reference of the summed relative delays.
    first: Option<SimDuration>,
    last: Option<SimDuration>,
    /// The largest delivery rate measured, bytes per second.
    bottleneck_bytes_per_s: u64,
    /// N_t, packets queued, as of the last window's end.
    queued: Option<f64>,
    direction: Direction,
}

impl SantaCruz {
    pub fn new(config: SantaCruzConfig) -> Self {
        SantaCruz {
            config,
            rounds: Rounds::default(),
            first: None,
            last: None,
            bottleneck_bytes_per_s: 0,
            queued: None,
            direction: Direction::Grow,
        }
    }

    /// N_t = (delay_j − delay_first) / service time of one `mss` segment.
    pub fn queued_packets(&self, mss: u64) -> Option<f64> {
        let (first, last) = (self.first?, self.last?);
        if self.bottleneck_bytes_per_s == 0 {
            return None;
        }
        let service_s = mss as f64 / self.bottleneck_bytes_per_s as f64;
        Some((last.as_secs_f64() - first.as_secs_f64()) / service_s)
    }

    /// Slow start ends as soon as the queue reaches the operating point.
    fn check_slow_start(&mut self, w: &mut CongestionWindow, mss: u64) {
        let Some(n_t) = self.queued_packets(mss) else {
            return;
        };
        self.queued = Some(n_t);
        if n_t >= self.config.operating_point {
            w.ssthresh = w.cwnd;
            self.direction = Direction::Shrink;
        }
    }

    /// The once-per-window decision of congestion avoidance.
    fn end_window(&mut self, mss: u64) {
        let Some(n_t) = self.queued_packets(mss) else {
            return;
        };
        self.queued = Some(n_t);
        let n = self.config.operating_point;
        self.direction = if n_t < n {
            Direction::Grow
        } else if n_t > n {
            Direction::Shrink
        } else {
            Direction::Hold
        };
    }
}

impl CongestionControl for SantaCruz {
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        if let Some(rtt) = ack.latest_rtt {
            self.first.get_or_insert(rtt);
            self.last = Some(rtt);
        }
        if let Some(rate) = ack.rate.rate_bytes_per_s() {
            self.bottleneck_bytes_per_s = self.bottleneck_bytes_per_s.max(rate);
        }
        if !ack.may_grow || ack.acked_bytes == 0 {
            return;
        }
        let window_ended = self.rounds.on_ack(ack);
        if w.in_slow_start() {
            self.check_slow_start(w, ack.mss);
            if w.in_slow_start() {
                w.cwnd += ack.acked_bytes.min(ack.mss);
            }
            return;
        }
        if window_ended {
            self.end_window(ack.mss);
        }
        let step = (ack.mss * ack.mss / w.cwnd.max(1)).max(1);
        match self.direction {
            Direction::Grow => w.cwnd += step,
            Direction::Shrink => {
                w.cwnd = w.cwnd.saturating_sub(step).max(2 * ack.mss);
                // Still congestion avoidance: slow start must not undo the decrease.
                w.ssthresh = w.ssthresh.min(w.cwnd);
            }
            Direction::Hold => {}
        }
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        CcMetrics {
            min_rtt: self.first,
            queue_segments: self.queued,
            bandwidth_bytes_per_s: (self.bottleneck_bytes_per_s > 0)
                .then_some(self.bottleneck_bytes_per_s),
            ..CcMetrics::of_window(w, None)
        }
    }
}

#[cfg(test)]
mod tests;
