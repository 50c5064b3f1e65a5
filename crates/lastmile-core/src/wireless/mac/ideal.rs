//! An ideal MAC: serialization only, no contention, no MAC ACK. A frame occupies the shared
//! medium for its PHY airtime (PLCP + MAC header + LLC/SNAP + datagram at the data rate, the
//! same framing as 802.11) and reaches its receiver after the propagation delay; the link
//! layer above hears `Trans` when it starts and `TxSuccess` when its last bit leaves.
//!
//! "No contention" on a shared half-duplex medium needs a rule for who goes next when the
//! medium falls idle. We use deterministic slots with a guard time `g = 2δ + 1 µs` (δ the
//! propagation delay): after the medium falls idle, time runs in rounds of `n·g` (n = cell
//! size) and a station of rank `r` may start only at `r·g` into a round — the first such
//! instant not before its frame is ready. The station that just transmitted counts its
//! rounds from `δ` after its own frame (when the others hear the medium fall idle) and skips
//! the first, so it yields to anyone else with a frame. Two stations' instants are at least
//! `g` apart, so the later one always hears the earlier start first (δ < g): frames never
//! overlap, whether they were queued while the medium was busy or arrived, even at the same
//! instant, on a medium idle for long (starting "at once" there let two frames queued
//! together collide, a SYN and a SYN-ACK 29 times in a row on a long-delay hop). The cost is
//! at most one round of idle time before a frame (microseconds per station), far below a
//! frame's airtime.
//!
//! Left out: fairness among more than two backlogged stations (lower ranks win), and any
//! retransmission (a frame lost to the channel is simply lost: that is the link layer's job).

pub mod spec;
pub use spec::IdealSpec;

use std::collections::VecDeque;

use crate::engine::{SimDuration, SimTime};
use crate::ids::NodeId;
use crate::wireless::phy::PhyConfig;

use super::common::{FrameKind, MacCounters, MacFrame, MacInput, MacOutput, MacSignal};

/// The ideal MAC's configuration: the PHY for airtimes and the station's place in the cell.
#[derive(Clone, Debug, PartialEq)]
pub struct IdealConfig {
    pub phy: PhyConfig,
    /// This station's priority rank in the cell, 0 = first.
    pub rank: u32,
    /// Stations in the cell.
    pub cell_size: u32,
    /// δ: the medium's propagation delay.
    pub propagation: SimDuration,
}

impl IdealConfig {
    /// g = 2δ + 1 µs: longer than any gap between a start and its detection elsewhere.
    pub fn guard(&self) -> SimDuration {
        self.propagation * 2 + SimDuration::from_micros(1)
    }
    /// The idle time between the end of one frame and the start of the next, at most, seen
    /// from the medium: the next station (rank 0 after someone else's frame) starts δ after.
    pub fn max_gap(&self) -> SimDuration {
        self.propagation + self.guard() * u64::from(self.cell_size)
    }
}

#[derive(Clone, Debug)]
struct Queued<P> {
    dst: NodeId,
    msdu_bytes: u32,
    payload: P,
}

/// One station's ideal MAC.
#[derive(Clone, Debug)]
pub struct IdealMac<P> {
    me: NodeId,
    cfg: IdealConfig,
    queue: VecDeque<Queued<P>>,
    tx_end: Option<SimTime>,
    own_end: SimTime,
    phy_busy: bool,
    idle_since: SimTime,
    /// The time of the last input: a frame is not sent before it is ready.
    now: SimTime,
    counters: MacCounters,
}

impl<P: Clone> IdealMac<P> {
    pub fn new(me: NodeId, cfg: IdealConfig) -> Self {
        IdealMac {
            me,
            cfg,
            queue: VecDeque::new(),
            tx_end: None,
            own_end: SimTime::ZERO,
            phy_busy: false,
            idle_since: SimTime::ZERO,
            now: SimTime::ZERO,
            counters: MacCounters::default(),
        }
    }

    pub fn config(&self) -> &IdealConfig {
        &self.cfg
    }
    pub fn counters(&self) -> &MacCounters {
        &self.counters
    }
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn access_time(&self) -> Option<SimTime> {
        if self.tx_end.is_some() || self.phy_busy || self.queue.is_empty() {
            return None;
        }
        let g = self.cfg.guard();
        let round = g * u64::from(self.cfg.cell_size.max(1));
        let own_last = self.own_end > SimTime::ZERO && self.own_end >= self.idle_since;
        // The first instant of this station's slot: rounds counted from when the others heard
        // the medium fall idle; after its own frame, the next round's.
        let first = if own_last {
            self.own_end + self.cfg.propagation + round + g * u64::from(self.cfg.rank)
        } else {
            self.idle_since + g * u64::from(self.cfg.rank)
        };
        if self.now <= first {
            return Some(first);
        }
        let rounds = (self.now.saturating_since(first).as_nanos()).div_ceil(round.as_nanos());
        Some(first + round * rounds)
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.tx_end.or_else(|| self.access_time())
    }

    pub fn handle(&mut self, now: SimTime, input: MacInput<P>, out: &mut Vec<MacOutput<P>>) {
        self.now = now;
        match input {
            MacInput::Enqueue {
                dst,
                msdu_bytes,
                payload,
            }
            | MacInput::ReplyInFloor {
                dst,
                msdu_bytes,
                payload,
            } => self.queue.push_back(Queued {
                dst,
                msdu_bytes,
                payload,
            }),
            // Defer at once: an ideal MAC never starts into a busy medium.
            MacInput::MediumBusy => self.phy_busy = true,
            MacInput::MediumIdle => {
                self.phy_busy = false;
                self.idle_since = now;
            }
            MacInput::Received(frame) => {
                if frame.ra == self.me && frame.kind == FrameKind::Data {
                    if let Some(payload) = frame.payload {
                        self.counters.delivered += 1;
                        out.push(MacOutput::Deliver {
                            from: frame.ta,
                            msdu_bytes: frame.msdu_bytes,
                            payload,
                        });
                    }
                }
            }
            MacInput::RxError => self.counters.rx_errors += 1,
            MacInput::Timeout => {}
        }
        self.fire_due(now, out);
    }

    fn fire_due(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        if self.tx_end.is_some_and(|t| t <= now) {
            self.tx_end = None;
            self.own_end = now;
            self.queue.pop_front();
            self.counters.successes += 1;
            out.push(MacOutput::Signal(MacSignal::TxSuccess));
        }
        if self.access_time().is_some_and(|t| t <= now) {
            let head = self.queue.front().expect("access needs a frame");
            let frame = MacFrame {
                kind: FrameKind::Data,
                ra: head.dst,
                ta: self.me,
                duration: SimDuration::ZERO,
                seq: 0,
                retry: false,
                msdu_bytes: head.msdu_bytes,
                payload: Some(head.payload.clone()),
            };
            let airtime = self.cfg.phy.data_airtime(head.msdu_bytes);
            self.tx_end = Some(now + airtime);
            self.counters.attempts += 1;
            self.counters.data_frames_sent += 1;
            out.push(MacOutput::Signal(MacSignal::Trans));
            out.push(MacOutput::StartTx { frame, airtime });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mac(rank: u32) -> IdealMac<u32> {
        IdealMac::new(
            NodeId(rank),
            IdealConfig {
                phy: PhyConfig::default(),
                rank,
                cell_size: 2,
                propagation: SimDuration::from_micros(1),
            },
        )
    }

    fn enqueue(m: &mut IdealMac<u32>, now: SimTime, out: &mut Vec<MacOutput<u32>>) {
        m.handle(
            now,
            MacInput::Enqueue {
                dst: NodeId(9),
                msdu_bytes: 1040,
                payload: 7,
            },
            out,
        );
    }

    #[test]
    fn a_frame_takes_its_802_11_airtime_then_signals_success() {
        let mut m = mac(0);
        let mut out = Vec::new();
        // An idle medium and rank 0: the frame goes at once.
        enqueue(&mut m, SimTime::ZERO, &mut out);
        assert_eq!(out[0], MacOutput::Signal(MacSignal::Trans));
        let MacOutput::StartTx { airtime, .. } = &out[1] else {
            panic!("{out:?}")
        };
        // 1040-byte datagram: 1076 MAC bytes at 1 Mbps + 192 µs PLCP (protocol-notes §5.1).
        assert_eq!(*airtime, SimDuration::from_micros(8800));
        out.clear();
        let end = SimTime::ZERO + SimDuration::from_micros(8800);
        assert_eq!(m.poll_timeout(), Some(end));
        m.handle(end, MacInput::Timeout, &mut out);
        assert_eq!(out, vec![MacOutput::Signal(MacSignal::TxSuccess)]);
        assert_eq!(m.poll_timeout(), None);
    }

    /// Two frames queued at the same instant on a medium idle for long: each station waits
    /// for its own slot of the round, so the second hears the first and defers.
    #[test]
    fn frames_queued_together_on_a_long_idle_medium_take_separate_slots() {
        let (mut a, mut b) = (mac(0), mac(1));
        let mut out = Vec::new();
        let t = SimTime::from_nanos(1_000_000_007);
        enqueue(&mut a, t, &mut out);
        enqueue(&mut b, t, &mut out);
        let (ta, tb) = (a.poll_timeout().unwrap(), b.poll_timeout().unwrap());
        let g = a.config().guard();
        assert!(ta >= t && tb >= t, "not before the frames are ready");
        assert!(
            tb.saturating_since(ta) >= g || ta.saturating_since(tb) >= g,
            "{ta:?} {tb:?}: slots at least a guard apart"
        );
        // The earlier one starts; the later hears it δ later, before its slot, and defers.
        let (first, second, at) = if ta < tb {
            (&mut a, &mut b, ta)
        } else {
            (&mut b, &mut a, tb)
        };
        out.clear();
        first.handle(at, MacInput::Timeout, &mut out);
        assert!(matches!(out[1], MacOutput::StartTx { .. }), "{out:?}");
        second.handle(
            at + first.config().propagation,
            MacInput::MediumBusy,
            &mut out,
        );
        assert_eq!(second.poll_timeout(), None);
    }

    #[test]
    fn a_station_defers_while_busy_and_yields_after_its_own_frame() {
        let mut m = mac(1);
        let mut out = Vec::new();
        m.handle(SimTime::ZERO, MacInput::MediumBusy, &mut out);
        enqueue(&mut m, SimTime::ZERO, &mut out);
        assert_eq!(m.poll_timeout(), None, "busy: no access");
        let t = SimTime::from_nanos(5_000);
        m.handle(t, MacInput::MediumIdle, &mut out);
        // rank 1: one guard (2δ + 1 µs = 3 µs) after the idle indication.
        assert_eq!(m.poll_timeout(), Some(t + SimDuration::from_micros(3)));
    }
}
