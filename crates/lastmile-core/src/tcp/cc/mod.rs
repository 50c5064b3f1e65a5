//! Congestion control: how cwnd grows on ACKs, where ssthresh goes on a loss, a timeout or
//! an ECN echo, and the pacing rate, kept apart from loss recovery (`recovery.rs`) as ns-3
//! splits `TcpCongestionOps` from `TcpRecoveryOps`, so that any recovery drives any
//! controller.
//!
//! The interface is [`CongestionControl`], in the spirit of quinn-proto's `Controller` and
//! smoltcp's `congestion` module: the sender calls it with `now` and what it knows, and the
//! controller adjusts the shared [`CongestionWindow`] (cwnd and ssthresh, like ns-3's
//! `TcpSocketState`; recovery sets cwnd during fast recovery as its RFC says). Every ACK
//! comes with an [`AckSample`]: bytes newly acknowledged, the RTT sample it gave, bytes in
//! flight before and after, and the delivery-rate sample of `delivery.rs`. The sender paces
//! segments when [`CongestionControl::pacing_rate`] gives a rate (`pacing.rs`).
//!
//! The one list of algorithms is the `congestion_controls!` invocation below: it makes the
//! scenario's tagged table [`CcSpec`] (`cc = { kind = "cubic", beta = 0.8 }`, or `cc =
//! "cubic"` with every default) and the closed set [`AnyCongestionControl`], one variant
//! per algorithm, dispatched by enum (only BBR's larger state is boxed, once per
//! connection). Reno's per-ACK and per-segment calls stay inline and the others go out of
//! line, so that the classic TCPs cost what they did before the other algorithms existed.
//! Adding an algorithm: its module here (state, settings with `impl CcSettings` from
//! `spec.rs`, `impl CongestionControl`) and one line of the list.
//!
//! Algorithms: `reno` (RFC 5681 §3.1, `reno.rs`), `vegas` (Brakmo & Peterson 1995),
//! `westwood_plus` (Mascolo et al. 2001, Grieco & Mascolo 2004), `veno` (Fu & Liew 2003),
//! `fast` (Wei, Jin, Low & Hegde 2006), `illinois` (Liu, Başar & Srikant 2006), `cubic`
//! (RFC 9438, with HyStart++ of RFC 9406 in `hystart.rs`), `bbr` (v1: Cardwell et al. 2016, draft-cardwell-iccrg-bbr-congestion-control-00)
//! and `santa_cruz` (Parsa & Garcia-Luna-Aceves 1999), each in its own module citing its
//! document; `estimators.rs` holds the round and RTT bookkeeping the delay-based ones share.
//! Each controller's state is visible through [`CongestionControl::metrics`] ([`CcMetrics`]),
//! which the `cc` trace records.

mod bbr;
mod cubic;
mod estimators;
mod fast;
mod hystart;
mod illinois;
mod reno;
mod santa_cruz;
mod spec;
mod vegas;
mod veno;
mod westwood;

pub use bbr::{Bbr, BbrConfig, BbrMode, PACING_GAIN_CYCLE};
pub use cubic::{Cubic, CubicConfig};
pub use fast::{Fast, FastConfig};
pub use hystart::{HyStartPhase, HyStartPp};
pub use illinois::{Illinois, IllinoisConfig};
pub use reno::{Reno, RenoConfig};
pub use santa_cruz::{SantaCruz, SantaCruzConfig};
pub use spec::{CcOptions, CcSettings, OutOfRange};
pub use vegas::{Vegas, VegasConfig};
pub use veno::{Veno, VenoConfig};
pub use westwood::{Westwood, WestwoodConfig};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{SimDuration, SimTime};
use crate::errors::ScenarioError;

use super::delivery::RateSample;

/// The congestion state shared by the controller and loss recovery, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CongestionWindow {
    pub cwnd: u64,
    /// `u64::MAX` means unlimited (RFC 5681 §3.1: "arbitrarily high").
    pub ssthresh: u64,
}

impl CongestionWindow {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What one arriving ACK tells the controller.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AckSample {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK (0 for a duplicate ACK).
    pub acked_bytes: u64,
    /// The ACK is an RFC 5681 duplicate ACK.
    pub duplicate: bool,
    /// Loss recovery allows the window to grow on this ACK (RFC 5681: not during fast
    /// recovery, and not on the ACK that ends it).
    pub may_grow: bool,
    /// The RTT sample this ACK gave, if any (RFC 6298 / RFC 7323 rules, Karn).
    pub rtt: Option<SimDuration>,
    /// The smoothed RTT after the sample, once there is one.
    pub srtt: Option<SimDuration>,
    /// Bytes in flight (SND.MAX − SND.UNA) before and after the ACK.
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// SND.UNA and SND.MAX after the ACK (stream offsets): round boundaries for per-RTT
    /// algorithms ("one RTT has passed once SND.UNA reaches the SND.MAX of its start").
    pub snd_una: u64,
    pub snd_max: u64,
    /// The sender's maximum segment size.
    pub mss: u64,
    /// Bytes this ACK newly delivered to the receiver (RFC 6937 DeliveredData: Δ SND.UNA
    /// plus newly SACKed bytes, SACKed bytes the cumulative ACK took over counted once);
    /// `acked_bytes` without SACK.
    pub delivered_bytes: u64,
    /// With SACK, the bytes the sender estimates in the network after the ACK (RFC 6675
    /// `SetPipe`: neither SACKed nor judged lost, retransmissions counted); `None` without
    /// SACK, where only `in_flight` is known.
    pub pipe: Option<u64>,
    /// Bytes this ACK newly showed lost: with SACK those that became RFC 6675 `IsLost`,
    /// without it one SMSS when it starts a fast retransmit (the segment at SND.UNA), as
    /// Linux counts `rs->losses`.
    pub lost_bytes: u64,
    /// The round-trip time of the newest segment this ACK cumulatively acknowledged, if it
    /// was never retransmitted (Karn's rule): one sample per ACK of new data from the
    /// segments' send times, as Linux takes them, whatever the timer's own sampling
    /// (`rtt`) does.
    pub latest_rtt: Option<SimDuration>,
    /// The delivery-rate sample of this ACK (draft-cheng-iccrg-delivery-rate-estimation);
    /// all zero unless the controller `wants_rate_samples`.
    pub rate: RateSample,
}

/// A controller's state for traces and reports. The fields after `phase` are `None` for a
/// controller that has no such quantity.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CcMetrics {
    pub cwnd_bytes: u64,
    /// `u64::MAX` = unlimited.
    pub ssthresh_bytes: u64,
    /// The pacing rate, bytes per second, when the controller paces.
    pub pacing_rate_bytes_per_s: Option<u64>,
    /// Where the controller is in its state machine.
    pub phase: CcPhase,
    /// The bandwidth estimate, bytes per second: BBR's BtlBw, Westwood+'s BWE, the largest
    /// delivery rate Santa Cruz measured.
    pub bandwidth_bytes_per_s: Option<u64>,
    /// The propagation-delay estimate: BBR's RTprop, the base RTT of Vegas, Veno, FAST and
    /// Illinois, Westwood+'s RTTmin, Santa Cruz's reference (first) delay.
    pub min_rtt: Option<SimDuration>,
    /// The connection's own segments queued in the network by the controller's estimate:
    /// Vegas's Diff, Veno's N, FAST's backlog, Santa Cruz's N_t.
    pub queue_segments: Option<f64>,
    /// BBR's pacing gain.
    pub pacing_gain: Option<f64>,
    /// Illinois's α, the additive increase in segments per round trip.
    pub alpha: Option<f64>,
    /// Illinois's β, the fraction of the window cut on a loss.
    pub beta: Option<f64>,
    /// CUBIC's W_max, segments.
    pub w_max_segments: Option<f64>,
}

impl CcMetrics {
    /// cwnd, ssthresh and a pacing rate, the phase read from cwnd against ssthresh, and no
    /// estimates.
    pub fn of_window(w: &CongestionWindow, pacing_rate_bytes_per_s: Option<u64>) -> Self {
        CcMetrics {
            cwnd_bytes: w.cwnd,
            ssthresh_bytes: w.ssthresh,
            pacing_rate_bytes_per_s,
            phase: if w.in_slow_start() {
                CcPhase::SlowStart
            } else {
                CcPhase::CongestionAvoidance
            },
            bandwidth_bytes_per_s: None,
            min_rtt: None,
            queue_segments: None,
            pacing_gain: None,
            alpha: None,
            beta: None,
            w_max_segments: None,
        }
    }
}

/// A controller's phase, as the `cc` trace's `phase` code.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CcPhase {
    /// cwnd < ssthresh (RFC 5681 §3.1).
    #[default]
    SlowStart,
    /// cwnd ≥ ssthresh, or a controller with a single growth law (FAST).
    CongestionAvoidance,
    /// BBR's states (draft-cardwell-iccrg-bbr-congestion-control-00 §4.3).
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl CcPhase {
    /// Every phase, in code order.
    pub const ALL: [CcPhase; 6] = [
        CcPhase::SlowStart,
        CcPhase::CongestionAvoidance,
        CcPhase::Startup,
        CcPhase::Drain,
        CcPhase::ProbeBw,
        CcPhase::ProbeRtt,
    ];

    /// The code the trace stores (the index in [`CcPhase::ALL`]).
    pub fn code(self) -> u32 {
        CcPhase::ALL.iter().position(|p| *p == self).unwrap_or(0) as u32
    }

    pub fn name(self) -> &'static str {
        match self {
            CcPhase::SlowStart => "slow_start",
            CcPhase::CongestionAvoidance => "congestion_avoidance",
            CcPhase::Startup => "startup",
            CcPhase::Drain => "drain",
            CcPhase::ProbeBw => "probe_bw",
            CcPhase::ProbeRtt => "probe_rtt",
        }
    }
}

/// One congestion-control algorithm.
pub trait CongestionControl {
    /// An ACK arrived (new data or a duplicate), after loss recovery has reacted to it.
    /// Window rules grow cwnd here when `ack.may_grow`; estimators (minimum RTT, bandwidth,
    /// rounds) update on every call.
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample);

    /// Loss detected by duplicate ACKs: the ssthresh recovery should use, given
    /// `flight` bytes outstanding. Recovery then sets cwnd as its RFC says. Default: Reno's
    /// (RFC 5681 (4)).
    fn ssthresh_on_loss(
        &mut self,
        _now: SimTime,
        _w: &CongestionWindow,
        flight: u64,
        mss: u64,
    ) -> u64 {
        reno_ssthresh(flight, mss)
    }

    /// The retransmission timer expired; `first` is false for a repeated timeout of the
    /// same segment (RFC 5681 §3.1 keeps ssthresh then). Default: Reno's (RFC 5681 (4)-(5)).
    fn on_rto(
        &mut self,
        _now: SimTime,
        w: &mut CongestionWindow,
        flight: u64,
        mss: u64,
        first: bool,
    ) {
        reno_timeout(w, flight, mss, first);
    }

    /// An ACK carried ECN-Echo (RFC 3168 §6.1.2), at most once per window of data. Default:
    /// as a loss — ssthresh as `ssthresh_on_loss` says, cwnd down to it (§6.1.2).
    fn on_ecn_echo(&mut self, now: SimTime, w: &mut CongestionWindow, flight: u64, mss: u64) {
        w.ssthresh = self.ssthresh_on_loss(now, w, flight, mss);
        w.cwnd = w.ssthresh;
    }

    /// True if the sender runs Vegas's fine-grained retransmission (`sender/vegas.rs`).
    fn fine_grained_retransmission(&self) -> bool {
        false
    }

    /// The segment about to be declared lost was last sent at `sent_at`, `transmits`
    /// times (read by a decrease rule that depends on it, Vegas's).
    fn note_lost_segment(&mut self, _sent_at: SimTime, _transmits: u32) {}

    /// The rate at which to release segments, in bytes per second; `None` = no pacing.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }

    /// True if the controller reads `AckSample::rate`: the sender then runs the
    /// delivery-rate estimator (otherwise the sample is all zero and costs nothing).
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// The state to trace.
    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        CcMetrics::of_window(w, self.pacing_rate())
    }
}

/// The one list of congestion controls: the scenario's tagged table and the dispatch enum,
/// with every arm. Adding an algorithm is its module (state machine, `impl
/// CongestionControl`, settings with `impl CcSettings`) and one line here.
macro_rules! congestion_controls {
    ($($(#[$doc:meta])* $variant:ident($spec:ty)),* $(,)?) => {
        congestion_controls!(@with_dollar ($) $($(#[$doc])* $variant($spec)),*);
    };
    (@with_dollar ($d:tt) $($(#[$doc:meta])* $variant:ident($spec:ty)),*) => {
        /// A congestion control as a tagged table: `cc = { kind = "cubic", beta = 0.8 }`;
        /// the keys besides `kind` are that algorithm's constants, each with its default
        /// (`cc = "cubic"` is the table with every default).
        #[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        pub enum CcSpec {
            $($(#[$doc])* $variant($spec),)*
        }

        /// The closed set of congestion controls (conventions, rule 3).
        #[derive(Clone, Debug, PartialEq)]
        pub enum AnyCongestionControl {
            $($variant(<$spec as CcSettings>::Controller),)*
        }

        impl CcSpec {
            /// Every algorithm's name in scenario files.
            pub const NAMES: &'static [&'static str] = &[$(<$spec as CcSettings>::KIND),*];

            /// Every algorithm with its document's constants.
            pub fn all() -> Vec<CcSpec> {
                vec![$(CcSpec::$variant(<$spec>::default())),*]
            }

            /// The name in scenario files.
            pub fn name(&self) -> &'static str {
                match self {
                    $(CcSpec::$variant(_) => <$spec as CcSettings>::KIND,)*
                }
            }

            /// The controller, for a connection with `options`.
            pub fn build(&self, options: CcOptions) -> AnyCongestionControl {
                match self {
                    $(CcSpec::$variant(s) => AnyCongestionControl::$variant(s.build(options)),)*
                }
            }

            /// The first constant out of range, its path the key under the `cc` table.
            pub fn check(&self) -> Result<(), ScenarioError> {
                let checked = match self {
                    $(CcSpec::$variant(s) => s.check(),)*
                };
                checked.map_err(spec::out_of_range)
            }
        }

        impl AnyCongestionControl {
            /// The name a scenario file uses.
            pub fn name(&self) -> &'static str {
                match self {
                    $(AnyCongestionControl::$variant(_) => <$spec as CcSettings>::KIND,)*
                }
            }
        }

        /// Calls `$call` with `$c` bound to the algorithm inside `$self`: one arm per
        /// algorithm.
        macro_rules! dispatch {
            ($d self_:expr, $d c:ident => $d call:expr) => {
                match $d self_ {
                    $(AnyCongestionControl::$variant($d c) => $d call,)*
                }
            };
        }
    };
}

congestion_controls! {
    /// RFC 5681 §3.1 slow start and congestion avoidance, ssthresh = FlightSize/2.
    Reno(RenoConfig),
    /// TCP Vegas (Brakmo & Peterson 1995): keeps between α and β segments queued.
    Vegas(VegasConfig),
    /// TCP Westwood+ (Mascolo et al. 2001; Grieco & Mascolo 2004): ssthresh = BWE × RTTmin
    /// after a loss.
    WestwoodPlus(WestwoodConfig),
    /// TCP Veno (Fu & Liew 2003): cuts to 4/5 on a loss it judges random.
    Veno(VenoConfig),
    /// FAST TCP (Wei, Jin, Low & Hegde 2006): keeps α segments queued.
    Fast(FastConfig),
    /// TCP Illinois (Liu, Başar & Srikant 2006): α and β from the queueing delay.
    Illinois(IllinoisConfig),
    /// CUBIC (RFC 9438).
    Cubic(CubicConfig),
    /// BBR version 1 (Cardwell et al. 2016): paces at the measured bottleneck rate.
    Bbr(BbrConfig),
    /// TCP Santa Cruz's congestion control (Parsa & Garcia-Luna-Aceves 1999): keeps an
    /// operating point of queued packets.
    SantaCruz(SantaCruzConfig),
}

impl Default for CcSpec {
    /// Reno's window rule (RFC 5681), every classic TCP's.
    fn default() -> Self {
        CcSpec::Reno(RenoConfig::default())
    }
}

impl AnyCongestionControl {
    #[inline(never)]
    fn pacing_rate_out_of_line(&self) -> Option<u64> {
        dispatch!(self, c => c.pacing_rate())
    }

    /// `on_ack` of every algorithm but Reno, out of line so that the classic TCPs' per-ACK
    /// path stays as small as before the other algorithms existed (the reference run's
    /// instruction budget).
    /// The sample is taken by value so that the caller builds it only on this path (a
    /// reference would make it assemble every field for Reno too).
    #[inline(never)]
    fn on_ack_out_of_line(&mut self, w: &mut CongestionWindow, ack: AckSample) {
        dispatch!(self, c => c.on_ack(w, &ack))
    }
}

impl CongestionControl for AnyCongestionControl {
    #[inline(always)]
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        match self {
            AnyCongestionControl::Reno(c) => c.on_ack(w, ack),
            other => other.on_ack_out_of_line(w, *ack),
        }
    }
    #[inline(never)]
    fn ssthresh_on_loss(
        &mut self,
        now: SimTime,
        w: &CongestionWindow,
        flight: u64,
        mss: u64,
    ) -> u64 {
        dispatch!(self, c => c.ssthresh_on_loss(now, w, flight, mss))
    }
    #[inline(never)]
    fn on_rto(
        &mut self,
        now: SimTime,
        w: &mut CongestionWindow,
        flight: u64,
        mss: u64,
        first: bool,
    ) {
        dispatch!(self, c => c.on_rto(now, w, flight, mss, first))
    }
    #[inline(never)]
    fn on_ecn_echo(&mut self, now: SimTime, w: &mut CongestionWindow, flight: u64, mss: u64) {
        dispatch!(self, c => c.on_ecn_echo(now, w, flight, mss))
    }
    /// Asked before every segment: Reno's answer inline, the others' out of line.
    #[inline(always)]
    fn pacing_rate(&self) -> Option<u64> {
        match self {
            AnyCongestionControl::Reno(c) => c.pacing_rate(),
            other => other.pacing_rate_out_of_line(),
        }
    }
    #[inline(never)]
    fn wants_rate_samples(&self) -> bool {
        dispatch!(self, c => c.wants_rate_samples())
    }
    #[inline(never)]
    fn fine_grained_retransmission(&self) -> bool {
        dispatch!(self, c => c.fine_grained_retransmission())
    }
    #[inline(never)]
    fn note_lost_segment(&mut self, sent_at: SimTime, transmits: u32) {
        dispatch!(self, c => c.note_lost_segment(sent_at, transmits))
    }
    #[inline(never)]
    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        dispatch!(self, c => c.metrics(w))
    }
}

/// RFC 5681 (4): ssthresh = max(FlightSize/2, 2·SMSS), the loss response of the
/// controllers that keep Reno's.
pub(crate) fn reno_ssthresh(flight: u64, mss: u64) -> u64 {
    (flight / 2).max(2 * mss)
}

/// RFC 5681 (4)–(5) on a timeout: ssthresh as on a loss unless the segment timed out
/// before (§3.1), and the loss window of one segment.
pub(crate) fn reno_timeout(w: &mut CongestionWindow, flight: u64, mss: u64, first: bool) {
    if first {
        w.ssthresh = reno_ssthresh(flight, mss);
    }
    w.cwnd = mss;
}

/// RFC 5681 §3.1 growth when loss recovery allows it: slow start adds min(N, SMSS),
/// congestion avoidance SMSS·SMSS/cwnd (at least a byte).
#[inline]
pub(crate) fn reno_growth(w: &mut CongestionWindow, ack: &AckSample) {
    if !ack.may_grow || ack.acked_bytes == 0 {
        return;
    }
    if w.in_slow_start() {
        w.cwnd += ack.acked_bytes.min(ack.mss);
    } else {
        w.cwnd += (ack.mss * ack.mss / w.cwnd.max(1)).max(1);
    }
}

/// Linux's pacing rate for a window-based controller (net/ipv4/tcp_input.c,
/// `tcp_update_pacing_rate`): max(cwnd, bytes in flight) / SRTT, times 200 % while
/// cwnd < ssthresh/2 (`tcp_pacing_ss_ratio`) and 120 % otherwise (`tcp_pacing_ca_ratio`),
/// in bytes per second. `None` before the first RTT sample.
pub fn window_pacing_rate(
    w: &CongestionWindow,
    in_flight: u64,
    srtt: Option<SimDuration>,
) -> Option<u64> {
    const SS_RATIO_PERCENT: u128 = 200;
    const CA_RATIO_PERCENT: u128 = 120;
    let srtt_ns = u128::from(srtt?.as_nanos().max(1));
    let ratio = if w.cwnd < w.ssthresh / 2 {
        SS_RATIO_PERCENT
    } else {
        CA_RATIO_PERCENT
    };
    let bytes = u128::from(w.cwnd.max(in_flight));
    let rate = bytes * ratio * 1_000_000_000 / (100 * srtt_ns);
    Some(rate.clamp(1, u128::from(u64::MAX)) as u64)
}

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
