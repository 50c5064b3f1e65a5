//! BBR version 1 (N. Cardwell, Y. Cheng, C. S. Gunn, S. Hassas Yeganeh and V. Jacobson,
//! "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016; the pseudocode of
//! draft-cardwell-iccrg-bbr-congestion-control-00, 2017, whose section names follow):
//!
//! * **Model** (§4.1): BtlBw, the windowed maximum of the delivery-rate samples of
//!   `tcp/delivery.rs` over 10 round trips (an application-limited sample enters only if it
//!   raises the maximum; a sample shorter than RTprop is discarded); RTprop, the minimum RTT
//!   over 10 s, of the per-ACK samples of the newest segment delivered (`rs.rtt`,
//!   `AckSample::latest_rtt`; never the retransmission timer's tick-counted sample).
//!   Round trips are counted by delivered data (`BBRUpdateRound`).
//! * **Pacing and window** (§4.2): pacing_rate = pacing_gain · BtlBw (never lowered before
//!   the pipe is full; initially high_gain · initial cwnd / SRTT); cwnd target =
//!   cwnd_gain · BtlBw · RTprop + 3 send quanta, reached by adding the data each ACK
//!   delivers, at least 4 segments.
//! * **States** (§4.3): Startup (both gains 2/ln 2), left when BtlBw grew by less than 25 %
//!   for 3 non-application-limited rounds ("filled pipe"); Drain (pacing 1/high_gain) until
//!   the flight is at most one BDP; ProbeBW cycling its pacing gain through
//!   1.25, 0.75, 1, 1, 1, 1, 1, 1 with cwnd_gain 2, each phase lasting at least RTprop (the
//!   1.25 phase until a loss or a flight of 1.25 BDP, the 0.75 phase at most until the flight
//!   falls to one BDP), starting at a random phase other than 0.75; ProbeRTT when RTprop has
//!   not been refreshed for 10 s: cwnd 4 segments for max(200 ms, one round trip), then
//!   back to ProbeBW (or Startup if the pipe was never filled).
//! * **Loss** (§4.2.3.4): every ACK takes the data it newly shows lost out of cwnd; on
//!   entering fast recovery the controller saves cwnd and keeps packet conservation
//!   (cwnd ≥ flight + delivered) for one round; on a timeout cwnd = 1
//!   segment; on leaving either, cwnd = max(cwnd, the saved cwnd). BBR does not use
//!   ssthresh; because loss recovery sets cwnd from it, it is set to the saved cwnd, and
//!   BBR's own rule overrides cwnd on the same ACK.
//!
//! With SACK the flight is the scoreboard's pipe (RFC 6675 `SetPipe`: neither SACKed nor
//! judged lost), the data an ACK delivers is what it newly acknowledges or SACKs (RFC 6937
//! DeliveredData), and the delivery-rate estimator counts SACKed segments when they are
//! reported, as Linux's BBR reads `tcp_packets_in_flight` and `rs->delivered`. BBR's cwnd
//! is then the window the sender gives it: loss recovery's cwnd − pipe gate sends no more
//! than BBR allows, and recovery's own cwnd (RFC 6675's ssthresh, PRR) is overridden on
//! every ACK, as in Linux and ns-3, where BBR's `cong_control` bypasses PRR.
//! Without SACK the flight is estimated as Linux does for Reno (`tcp_add_reno_sack`): each
//! duplicate ACK since the last new ACK counts one segment delivered, and the window the
//! sender measures from SND.UNA is BBR's cwnd plus those segments. The delivery-rate
//! estimator then counts only cumulatively acknowledged data, so the ACK that fills a hole
//! reports a round trip's worth of data at once; samples taken in loss recovery or right
//! after duplicate ACKs, and those of segments sent before such an ACK, are therefore kept
//! out of the BtlBw filter. The draft's random
//! start phase is drawn from a hash of the time ProbeBW is entered (the controller has no
//! random stream; sim time is a function of the scenario and seed). Departures (see
//! `docs/congestion-control.md`): Linux adds a 1 % pacing margin, the long-term
//! ("policer") bandwidth mode, the ACK-aggregation allowance and TSO quanta; ns-3 has no
//! long-term mode. Left out: those, idle restart, ECN (BBR v1 ignores it) and ProbeRTT's
//! marking of its samples as application-limited.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{SimDuration, SimTime};
use crate::units::Duration;

use super::spec::{CcOptions, CcSettings, OutOfRange};
use super::AckSample;

/// The ProbeBW pacing-gain cycle (§4.3.4.4).
pub const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// BBR's constants.
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BbrConfig {
    /// Startup's pacing and cwnd gain. Default 2.885 (2/ln 2, §4.3.2.1).
    #[serde(default = "default_high_gain")]
    pub high_gain: f64,
    /// ProbeBW's cwnd gain. Default 2 (§4.3.4).
    #[serde(default = "default_cwnd_gain")]
    pub cwnd_gain: f64,
    /// Round trips the BtlBw maximum filter spans. Default 10 (`BtlBwFilterLen`).
    #[serde(default = "default_bw_rounds")]
    pub btlbw_filter_rounds: u32,
    /// How long an RTprop estimate lasts before ProbeRTT. Default "10s"
    /// (`RTpropFilterLen`).
    #[serde(default = "default_rtprop_filter")]
    pub rtprop_filter: Duration,
    /// Time ProbeRTT holds the window at `min_pipe_cwnd`. Default "200ms"
    /// (`ProbeRTTDuration`).
    #[serde(default = "default_probe_rtt_duration")]
    pub probe_rtt_duration: Duration,
    /// The smallest window, segments. Default 4 (`BBRMinPipeCwnd`).
    #[serde(default = "default_min_pipe_cwnd")]
    pub min_pipe_cwnd: u32,
    /// Growth of BtlBw that counts as still filling the pipe. Default 1.25 (§4.3.2.2).
    #[serde(default = "default_full_bw_growth")]
    pub full_bw_growth: f64,
    /// Rounds without that growth that mean the pipe is full. Default 3 (§4.3.2.2).
    #[serde(default = "default_full_bw_rounds")]
    pub full_bw_rounds: u32,
}

fn default_high_gain() -> f64 {
    2.885
}
fn default_cwnd_gain() -> f64 {
    2.0
}
fn default_bw_rounds() -> u32 {
    10
}
fn default_rtprop_filter() -> Duration {
    Duration::from_secs(10)
}
fn default_probe_rtt_duration() -> Duration {
    Duration::from_millis(200)
}
fn default_min_pipe_cwnd() -> u32 {
    4
}
fn default_full_bw_growth() -> f64 {
    1.25
}
fn default_full_bw_rounds() -> u32 {
    3
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            high_gain: default_high_gain(),
            cwnd_gain: default_cwnd_gain(),
            btlbw_filter_rounds: default_bw_rounds(),
            rtprop_filter: default_rtprop_filter(),
            probe_rtt_duration: default_probe_rtt_duration(),
            min_pipe_cwnd: default_min_pipe_cwnd(),
            full_bw_growth: default_full_bw_growth(),
            full_bw_rounds: default_full_bw_rounds(),
        }
    }
}

impl CcSettings for BbrConfig {
    type Controller = Box<Bbr>;
    const KIND: &'static str = "bbr";
    fn build(&self, _options: CcOptions) -> Box<Bbr> {
        Box::new(Bbr::new(*self))
    }
    /// The first setting out of range: (key, value, what is expected).
    fn check(&self) -> Result<(), OutOfRange> {
        if !(self.high_gain > 1.0 && self.high_gain.is_finite()) {
            return Err(("high_gain", self.high_gain, "a gain above 1"));
        }
        if !(self.cwnd_gain >= 1.0 && self.cwnd_gain.is_finite()) {
            return Err(("cwnd_gain", self.cwnd_gain, "a gain of at least 1"));
        }
        if self.btlbw_filter_rounds == 0 {
            return Err(("btlbw_filter_rounds", 0.0, "at least 1 round trip"));
        }
        if self.rtprop_filter.sim().is_zero() {
            return Err(("rtprop_filter", 0.0, "a time greater than zero"));
        }
        if self.min_pipe_cwnd == 0 {
            return Err(("min_pipe_cwnd", 0.0, "at least 1 segment"));
        }
        if !(self.full_bw_growth > 1.0 && self.full_bw_growth.is_finite()) {
            return Err(("full_bw_growth", self.full_bw_growth, "a factor above 1"));
        }
        if self.full_bw_rounds == 0 {
            return Err(("full_bw_rounds", 0.0, "at least 1 round"));
        }
        Ok(())
    }
}

/// BBR's state machine (§4.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BbrMode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The windowed maximum of per-round maxima over the last `len` rounds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct MaxFilter {
    /// (round, the round's largest sample), oldest first.
    rounds: VecDeque<(u64, u64)>,
}

impl MaxFilter {
    fn update(&mut self, round: u64, value: u64, len: u64) {
        match self.rounds.back_mut() {
            Some((r, v)) if *r == round => *v = (*v).max(value),
            _ => self.rounds.push_back((round, value)),
        }
        self.expire(round, len);
    }
    fn expire(&mut self, round: u64, len: u64) {
        while self.rounds.front().is_some_and(|(r, _)| r + len <= round) {
            self.rounds.pop_front();
        }
    }
    fn max(&self) -> u64 {
        self.rounds.iter().map(|(_, v)| *v).max().unwrap_or(0)
    }
}

/// Loss recovery as BBR sees it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Recovery {
    /// Recovery ends once SND.UNA reaches this (taken from the first ACK after the loss).
    point: Option<u64>,
}

/// BBR v1.
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr {
    config: BbrConfig,
    mode: BbrMode,
    btlbw_filter: MaxFilter,
    /// BtlBw, bytes per second.
    btlbw: u64,
    rtprop: Option<SimDuration>,
    rtprop_stamp: SimTime,
    rtprop_expired: bool,
    next_round_delivered: u64,
    round_count: u64,
    round_start: bool,
    filled_pipe: bool,
    full_bw: u64,
    full_bw_count: u32,
    pacing_gain: f64,
    cwnd_gain: f64,
    cycle_index: usize,
    cycle_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// BBR's own cwnd, bytes; the sender's window is this plus a segment per duplicate
    /// ACK (what Reno's inflation stands for without SACK).
    cwnd: u64,
    prior_cwnd: u64,
    packet_conservation: bool,
    /// A loss detected by duplicate ACKs awaits its first ACK (to enter recovery).
    entering_recovery: bool,
    recovery: Option<Recovery>,
    /// A loss was detected since the last ACK (ends a 1.25 phase).
    loss_seen: bool,
    /// Duplicate ACKs since the last new ACK (each one segment delivered).
    dupacks: u64,
    /// This ACK's rate sample overstates the bandwidth (taken in loss recovery).
    sample_inflated: bool,
    /// Delivered data at the last ACK that may have reported a burst at once: samples of
    /// segments sent before it span that burst.
    inflation_mark: u64,
    pacing_rate: Option<u64>,
    initial_cwnd: Option<u64>,
    mss: u64,
}

impl Bbr {
    pub fn new(config: BbrConfig) -> Self {
        Bbr {
            config,
            mode: BbrMode::Startup,
            btlbw_filter: MaxFilter::default(),
            btlbw: 0,
            rtprop: None,
            rtprop_stamp: SimTime::ZERO,
            rtprop_expired: false,
            next_round_delivered: 0,
            round_count: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0,
            full_bw_count: 0,
            pacing_gain: config.high_gain,
            cwnd_gain: config.high_gain,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            cwnd: 0,
            prior_cwnd: 0,
            packet_conservation: false,
            entering_recovery: false,
            recovery: None,
            loss_seen: false,
            dupacks: 0,
            sample_inflated: false,
            inflation_mark: 0,
            pacing_rate: None,
            initial_cwnd: None,
            mss: 0,
        }
    }

    pub fn mode(&self) -> BbrMode {
        self.mode
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    pub fn btlbw_bytes_per_s(&self) -> u64 {
        self.btlbw
    }
    pub fn rtprop(&self) -> Option<SimDuration> {
        self.rtprop
    }
    pub fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    /// The data in flight as BBR counts it: with SACK the scoreboard's pipe, without it
    /// SND.MAX − SND.UNA less a segment per duplicate ACK.
    fn in_flight(&self, ack: &AckSample) -> u64 {
        match ack.pipe {
            Some(pipe) => pipe,
            None => ack.in_flight.saturating_sub(self.dupacks * ack.mss),
        }
    }

    /// The data in flight before this ACK: the pipe after it plus what it delivered (with
    /// SACK), the flight before it less a segment per duplicate ACK (without).
    fn prior_in_flight(&self, ack: &AckSample) -> u64 {
        match ack.pipe {
            Some(pipe) => pipe + ack.delivered_bytes,
            None => ack.prior_in_flight.saturating_sub(self.dupacks * ack.mss),
        }
    }

    /// `BBRInflight(gain)`: gain · BDP + 3 send quanta, bytes.
    fn inflight(&self, gain: f64) -> u64 {
        let initial = self.initial_cwnd.unwrap_or(self.mss);
        let Some(rtprop) = self.rtprop else {
            return initial;
        };
        let bdp = self.btlbw as f64 * rtprop.as_secs_f64();
        (gain * bdp) as u64 + 3 * self.send_quantum()
    }

    /// `BBRSetSendQuantum`.
    fn send_quantum(&self) -> u64 {
        let rate_bps = self.pacing_rate.unwrap_or(0).saturating_mul(8);
        if rate_bps < 1_200_000 {
            self.mss
        } else if rate_bps < 24_000_000 {
            2 * self.mss
        } else {
            (self.pacing_rate.unwrap_or(0) / 1000).min(65_536)
        }
    }

    /// `BBRUpdateRound` and `BBRUpdateBtlBw` (§4.1.1).
    fn update_btlbw(&mut self, ack: &AckSample) {
        let rs = &ack.rate;
        self.round_start = false;
        if rs.delivered == 0 {
            return;
        }
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.total_delivered;
            self.round_count += 1;
            self.round_start = true;
        }
        let Some(rate) = rs.rate_bytes_per_s() else {
            return;
        };
        if self.sample_inflated || self.rtprop.is_some_and(|m| rs.interval < m) {
            return;
        }
        let len = u64::from(self.config.btlbw_filter_rounds);
        if rate >= self.btlbw || !rs.is_app_limited {
            self.btlbw_filter.update(self.round_count, rate, len);
        } else {
            self.btlbw_filter.expire(self.round_count, len);
        }
        self.btlbw = self.btlbw_filter.max();
    }

    /// `BBRCheckFullPipe` (§4.3.2.2).
    fn check_full_pipe(&mut self, ack: &AckSample) {
        if self.filled_pipe || !self.round_start || ack.rate.is_app_limited {
            return;
        }
        if self.btlbw as f64 >= self.full_bw as f64 * self.config.full_bw_growth {
            self.full_bw = self.btlbw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= self.config.full_bw_rounds {
            self.filled_pipe = true;
        }
    }

    fn enter_startup(&mut self) {
        self.mode = BbrMode::Startup;
        self.pacing_gain = self.config.high_gain;
        self.cwnd_gain = self.config.high_gain;
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = BbrMode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.config.cwnd_gain;
        // 7 − random_int_between(0, 6), then one step: any phase but 0.75.
        let r = (splitmix64(now.as_nanos()) % 7) as usize;
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle_phase(now);
    }

    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    /// `BBRIsNextCyclePhase` (§4.3.4.4).
    fn is_next_cycle_phase(&self, ack: &AckSample) -> bool {
        let rtprop = self.rtprop.unwrap_or(SimDuration::ZERO);
        let full_length = ack.now.saturating_since(self.cycle_stamp) > rtprop;
        let prior_inflight = self.prior_in_flight(ack);
        if self.pacing_gain > 1.0 {
            full_length && (self.loss_seen || prior_inflight >= self.inflight(self.pacing_gain))
        } else if self.pacing_gain < 1.0 {
            full_length || prior_inflight <= self.inflight(1.0)
        } else {
            full_length
        }
    }

    /// `BBRCheckDrain` (§4.3.3).
    fn check_drain(&mut self, ack: &AckSample) {
        if self.mode == BbrMode::Startup && self.filled_pipe {
            self.mode = BbrMode::Drain;
            self.pacing_gain = 1.0 / self.config.high_gain;
            self.cwnd_gain = self.config.high_gain;
        }
        if self.mode == BbrMode::Drain && self.in_flight(ack) <= self.inflight(1.0) {
            self.enter_probe_bw(ack.now);
        }
    }

    /// `BBRUpdateRTprop` (§4.1.2).
    fn update_rtprop(&mut self, ack: &AckSample) {
        let window = self.config.rtprop_filter.sim();
        self.rtprop_expired = self.rtprop.is_some() && ack.now > self.rtprop_stamp + window;
        if let Some(rtt) = ack.latest_rtt {
            if self.rtprop.is_none_or(|m| rtt <= m) || self.rtprop_expired {
                self.rtprop = Some(rtt);
                self.rtprop_stamp = ack.now;
            }
        }
    }

    /// `BBRCheckProbeRTT` and `BBRHandleProbeRTT` (§4.3.5).
    fn check_probe_rtt(&mut self, ack: &AckSample) {
        if self.mode != BbrMode::ProbeRtt && self.rtprop_expired {
            self.save_cwnd();
            self.mode = BbrMode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt_done = None;
        }
        if self.mode != BbrMode::ProbeRtt {
            return;
        }
        let min_pipe = u64::from(self.config.min_pipe_cwnd) * ack.mss;
        match self.probe_rtt_done {
            None if self.in_flight(ack) <= min_pipe => {
                self.probe_rtt_done = Some(ack.now + self.config.probe_rtt_duration.sim());
                self.probe_rtt_round_done = false;
                self.next_round_delivered = ack.rate.total_delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && ack.now > done {
                    self.rtprop_stamp = ack.now;
                    self.restore_cwnd();
                    if self.filled_pipe {
                        self.enter_probe_bw(ack.now);
                    } else {
                        self.enter_startup();
                    }
                }
            }
        }
    }
}

/// A 64-bit mix (SplitMix64's finaliser): the stand-in for the draft's random draw.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

mod window;

#[cfg(test)]
mod tests;
