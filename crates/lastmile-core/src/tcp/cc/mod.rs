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
//! [`AnyCongestionControl`] is the closed set, one variant per algorithm, dispatched by enum
//! (`dispatch!`) with no allocation. Adding an algorithm: its module here (state, config,
//! `impl CongestionControl`), a variant and a `dispatch!` arm below, and a `CcKind` name in
//! `spec.rs`.
//!
//! Algorithms: `reno` (RFC 5681 §3.1, `reno.rs`).

mod reno;

pub use reno::Reno;

use crate::engine::{SimDuration, SimTime};

use super::delivery::RateSample;
use super::spec::CcKind;

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
    /// The delivery-rate sample of this ACK (draft-cheng-iccrg-delivery-rate-estimation);
    /// all zero unless the controller `wants_rate_samples`.
    pub rate: RateSample,
}

/// A controller's state for traces and reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CcMetrics {
    pub cwnd_bytes: u64,
    /// `u64::MAX` = unlimited.
    pub ssthresh_bytes: u64,
    /// The pacing rate, bytes per second, when the controller paces.
    pub pacing_rate_bytes_per_s: Option<u64>,
}

/// One congestion-control algorithm.
pub trait CongestionControl {
    /// An ACK arrived (new data or a duplicate), after loss recovery has reacted to it.
    /// Window rules grow cwnd here when `ack.may_grow`; estimators (minimum RTT, bandwidth,
    /// rounds) update on every call.
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample);

    /// Loss detected by duplicate ACKs: the ssthresh recovery should use, given
    /// `flight` bytes outstanding. Recovery then sets cwnd as its RFC says.
    fn ssthresh_on_loss(
        &mut self,
        now: SimTime,
        w: &CongestionWindow,
        flight: u64,
        mss: u64,
    ) -> u64;

    /// The retransmission timer expired; `first` is false for a repeated timeout of the
    /// same segment (RFC 5681 §3.1 keeps ssthresh then).
    fn on_rto(
        &mut self,
        now: SimTime,
        w: &mut CongestionWindow,
        flight: u64,
        mss: u64,
        first: bool,
    );

    /// An ACK carried ECN-Echo (RFC 3168 §6.1.2), at most once per window of data.
    fn on_ecn_echo(&mut self, now: SimTime, w: &mut CongestionWindow, flight: u64, mss: u64);

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
        CcMetrics {
            cwnd_bytes: w.cwnd,
            ssthresh_bytes: w.ssthresh,
            pacing_rate_bytes_per_s: self.pacing_rate(),
        }
    }
}

/// Settings every controller may read (from `TcpSpec`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CcSettings {
    /// Pace a window-based controller at Linux's ratios of cwnd/SRTT ([`window_pacing_rate`]).
    pub pacing: bool,
    /// RFC 3465 appropriate byte counting: 0 = off (RFC 5681 per-ACK growth), else the
    /// slow-start limit L in SMSS (1 or 2); read where slow-start growth is computed.
    pub abc: u8,
}

/// The closed set of congestion controls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyCongestionControl {
    Reno(Reno),
}

/// Calls `$call` with `$c` bound to the algorithm inside `$self`: one arm per algorithm.
macro_rules! dispatch {
    ($self:expr, $c:ident => $call:expr) => {
        match $self {
            AnyCongestionControl::Reno($c) => $call,
        }
    };
}

impl AnyCongestionControl {
    pub fn new(kind: CcKind, settings: CcSettings) -> Self {
        match kind {
            CcKind::Reno => AnyCongestionControl::Reno(Reno::new(settings)),
        }
    }

    /// The name a scenario file uses.
    pub fn name(&self) -> &'static str {
        match self {
            AnyCongestionControl::Reno(_) => CcKind::Reno.name(),
        }
    }
}

impl CongestionControl for AnyCongestionControl {
    #[inline]
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        dispatch!(self, c => c.on_ack(w, ack))
    }
    #[inline]
    fn ssthresh_on_loss(
        &mut self,
        now: SimTime,
        w: &CongestionWindow,
        flight: u64,
        mss: u64,
    ) -> u64 {
        dispatch!(self, c => c.ssthresh_on_loss(now, w, flight, mss))
    }
    #[inline]
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
    #[inline]
    fn on_ecn_echo(&mut self, now: SimTime, w: &mut CongestionWindow, flight: u64, mss: u64) {
        dispatch!(self, c => c.on_ecn_echo(now, w, flight, mss))
    }
    #[inline]
    fn pacing_rate(&self) -> Option<u64> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn wants_rate_samples(&self) -> bool {
        dispatch!(self, c => c.wants_rate_samples())
    }
    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        dispatch!(self, c => c.metrics(w))
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
mod tests;
