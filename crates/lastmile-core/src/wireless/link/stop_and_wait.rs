//! A stop-and-wait ARQ link layer: the simplest baseline against which TULIP's selective
//! repeat is measured. One reliable frame outstanding per peer, numbered modulo 2 (the
//! alternating-bit protocol), acknowledged by a link ACK; the retransmission timer starts
//! when the MAC is done with the frame (`TxSuccess`) and a MAC failure (`TxFailure`) counts
//! as a failed attempt at once. After `retry_limit` failed attempts the frame is dropped.
//!
//! Service classes as in TULIP §3.1: `Reliable` packets (TCP data) get the ARQ, `Unreliable`
//! ones (TCP ACKs, UDP) go once, between reliable frames. The receiver ACKs every data frame
//! (duplicates too, since the ACK of the first copy was lost) and passes up new ones only.
//!
//! Left out: piggybacking, windows, adaptive timers: that is what TULIP adds.

pub mod spec;
pub use spec::StopAndWaitSpec;

use std::collections::VecDeque;

use crate::engine::{SimDuration, SimTime};
use crate::packet::{Packet, Service};
use crate::wireless::signals::MacSignal;

/// Bytes the protocol adds: a type byte and a sequence byte (our choice).
pub const SAW_HEADER_BYTES: u32 = 2;

/// Configuration: the ACK timeout after `TxSuccess` and the attempts per frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopAndWaitConfig {
    pub ack_timeout: SimDuration,
    /// Transmission attempts per reliable frame (the first included).
    pub retry_limit: u32,
}

/// A stop-and-wait frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SawFrame {
    Data { seq: u8, packet: Packet },
    Unreliable { packet: Packet },
    Ack { seq: u8 },
}

impl SawFrame {
    pub fn size_bytes(&self) -> u32 {
        match self {
            SawFrame::Data { packet, .. } | SawFrame::Unreliable { packet } => {
                SAW_HEADER_BYTES + packet.size_bytes()
            }
            SawFrame::Ack { .. } => SAW_HEADER_BYTES,
        }
    }
}

/// What drives the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SawInput {
    FromNetwork(Packet),
    FrameReceived(SawFrame),
    MacSignal(MacSignal),
    Timeout,
}

/// Its effects, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SawOutput {
    ToMac(SawFrame),
    ToNetwork(Packet),
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SawMetrics {
    pub data_frames_sent: u64,
    pub retransmissions: u64,
    pub drops: u64,
    pub acks_sent: u64,
    pub frames_released: u64,
    pub duplicates_discarded: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Turn {
    /// Nothing at the MAC.
    Idle,
    /// A frame is at the MAC; `reliable` frames then wait for the link ACK.
    AtMac { reliable: bool },
    /// The reliable frame left; its ACK is due by `deadline`.
    AwaitAck { deadline: SimTime },
}

/// One end of a stop-and-wait link towards one peer (sender and receiver).
#[derive(Clone, Debug)]
pub struct StopAndWait {
    cfg: StopAndWaitConfig,
    reliable: VecDeque<Packet>,
    unreliable: VecDeque<Packet>,
    /// The outstanding reliable frame and its failed attempts so far.
    outstanding: Option<(u8, Packet, u32)>,
    next_seq: u8,
    expected: u8,
    turn: Turn,
    /// Link ACKs wait here for the MAC (one frame at the MAC at a time).
    acks: VecDeque<u8>,
    metrics: SawMetrics,
}

impl StopAndWait {
    pub fn new(cfg: StopAndWaitConfig) -> Self {
        StopAndWait {
            cfg,
            reliable: VecDeque::new(),
            unreliable: VecDeque::new(),
            outstanding: None,
            next_seq: 0,
            expected: 0,
            turn: Turn::Idle,
            acks: VecDeque::new(),
            metrics: SawMetrics::default(),
        }
    }

    pub fn metrics(&self) -> SawMetrics {
        self.metrics
    }
    /// Packets waiting for a turn.
    pub fn queued_packets(&self) -> usize {
        self.reliable.len() + self.unreliable.len()
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self.turn {
            Turn::AwaitAck { deadline } => Some(deadline),
            _ => None,
        }
    }

    pub fn handle(&mut self, now: SimTime, input: SawInput, out: &mut Vec<SawOutput>) {
        match input {
            SawInput::FromNetwork(p) if p.service == Service::Reliable => {
                self.reliable.push_back(p)
            }
            SawInput::FromNetwork(p) => self.unreliable.push_back(p),
            SawInput::FrameReceived(frame) => self.on_frame(frame, out),
            SawInput::MacSignal(signal) => self.on_signal(now, signal),
            SawInput::Timeout => {
                if matches!(self.turn, Turn::AwaitAck { deadline } if deadline <= now) {
                    self.turn = Turn::Idle;
                    self.attempt_failed();
                }
            }
        }
        self.try_send(out);
    }

    fn on_frame(&mut self, frame: SawFrame, out: &mut Vec<SawOutput>) {
        match frame {
            SawFrame::Data { seq, packet } => {
                if seq == self.expected {
                    self.expected ^= 1;
                    self.metrics.frames_released += 1;
                    out.push(SawOutput::ToNetwork(packet));
                } else {
                    self.metrics.duplicates_discarded += 1;
                }
                self.acks.push_back(seq);
            }
            SawFrame::Unreliable { packet } => out.push(SawOutput::ToNetwork(packet)),
            SawFrame::Ack { seq } => {
                if self.outstanding.as_ref().is_some_and(|o| o.0 == seq) {
                    self.outstanding = None;
                    if matches!(self.turn, Turn::AwaitAck { .. }) {
                        self.turn = Turn::Idle;
                    }
                }
            }
        }
    }

    fn on_signal(&mut self, now: SimTime, signal: MacSignal) {
        let Turn::AtMac { reliable } = self.turn else {
            return;
        };
        match signal {
            MacSignal::TxSuccess if reliable && self.outstanding.is_some() => {
                self.turn = Turn::AwaitAck {
                    deadline: now + self.cfg.ack_timeout,
                }
            }
            MacSignal::TxSuccess => self.turn = Turn::Idle,
            MacSignal::TxFailure => {
                self.turn = Turn::Idle;
                if reliable {
                    self.attempt_failed();
                }
            }
            MacSignal::Trans | MacSignal::Wait { .. } => {}
        }
    }

    fn attempt_failed(&mut self) {
        if let Some((_, _, failures)) = self.outstanding.as_mut() {
            *failures += 1;
            if *failures >= self.cfg.retry_limit {
                self.outstanding = None;
                self.metrics.drops += 1;
            }
        }
    }

    /// Link ACKs first (they bypass the turn: they are answers), then a pending
    /// retransmission, an unreliable packet, a new reliable frame.
    fn try_send(&mut self, out: &mut Vec<SawOutput>) {
        while let Some(seq) = self.acks.pop_front() {
            self.metrics.acks_sent += 1;
            out.push(SawOutput::ToMac(SawFrame::Ack { seq }));
        }
        if self.turn != Turn::Idle {
            return;
        }
        if let Some((seq, packet, failures)) = self.outstanding {
            if failures > 0 {
                self.metrics.retransmissions += 1;
            }
            self.metrics.data_frames_sent += 1;
            self.turn = Turn::AtMac { reliable: true };
            out.push(SawOutput::ToMac(SawFrame::Data { seq, packet }));
            return;
        }
        if let Some(packet) = self.unreliable.pop_front() {
            self.turn = Turn::AtMac { reliable: false };
            out.push(SawOutput::ToMac(SawFrame::Unreliable { packet }));
            return;
        }
        if let Some(packet) = self.reliable.pop_front() {
            let seq = self.next_seq;
            self.next_seq ^= 1;
            self.outstanding = Some((seq, packet, 0));
            self.metrics.data_frames_sent += 1;
            self.turn = Turn::AtMac { reliable: true };
            out.push(SawOutput::ToMac(SawFrame::Data { seq, packet }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketId;

    /// A 128-byte UDP datagram (100 bytes of payload) needing `service`.
    fn packet(id: u64, service: Service) -> Packet {
        Packet {
            service,
            ..crate::packet::test_datagram(id, 128)
        }
    }

    fn saw() -> StopAndWait {
        StopAndWait::new(StopAndWaitConfig {
            ack_timeout: SimDuration::from_millis(1),
            retry_limit: 3,
        })
    }

    fn t(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn one_frame_outstanding_until_its_link_ack() {
        let mut s = saw();
        let mut out = Vec::new();
        s.handle(
            t(0),
            SawInput::FromNetwork(packet(1, Service::Reliable)),
            &mut out,
        );
        s.handle(
            t(0),
            SawInput::FromNetwork(packet(2, Service::Reliable)),
            &mut out,
        );
        assert_eq!(out.len(), 1, "only the first goes: {out:?}");
        assert!(matches!(
            &out[0],
            SawOutput::ToMac(SawFrame::Data { seq: 0, .. })
        ));
        out.clear();
        s.handle(t(1), SawInput::MacSignal(MacSignal::TxSuccess), &mut out);
        assert!(out.is_empty());
        assert_eq!(s.poll_timeout(), Some(t(2)));
        s.handle(
            t(1),
            SawInput::FrameReceived(SawFrame::Ack { seq: 0 }),
            &mut out,
        );
        assert!(
            matches!(&out[0], SawOutput::ToMac(SawFrame::Data { seq: 1, packet }) if packet.id == PacketId(2))
        );
        assert_eq!(s.metrics().retransmissions, 0);
    }

    #[test]
    fn timeout_retransmits_and_the_retry_limit_drops() {
        let mut s = saw();
        let mut out = Vec::new();
        s.handle(
            t(0),
            SawInput::FromNetwork(packet(1, Service::Reliable)),
            &mut out,
        );
        for attempt in 1..=3u64 {
            out.clear();
            s.handle(
                t(attempt),
                SawInput::MacSignal(MacSignal::TxSuccess),
                &mut out,
            );
            s.handle(
                t(attempt) + SimDuration::from_millis(1),
                SawInput::Timeout,
                &mut out,
            );
            if attempt < 3 {
                assert!(matches!(
                    &out[0],
                    SawOutput::ToMac(SawFrame::Data { seq: 0, .. })
                ));
            } else {
                assert!(out.is_empty(), "dropped after 3 attempts: {out:?}");
            }
        }
        assert_eq!(s.metrics().retransmissions, 2);
        assert_eq!(s.metrics().drops, 1);
        // A MAC failure counts as a failed attempt at once.
        s.handle(
            t(10),
            SawInput::FromNetwork(packet(2, Service::Reliable)),
            &mut out,
        );
        out.clear();
        s.handle(t(10), SawInput::MacSignal(MacSignal::TxFailure), &mut out);
        assert!(matches!(
            &out[0],
            SawOutput::ToMac(SawFrame::Data { seq: 1, .. })
        ));
    }

    #[test]
    fn receiver_acks_every_copy_and_releases_each_frame_once() {
        let mut r = saw();
        let mut out = Vec::new();
        let data = SawFrame::Data {
            seq: 0,
            packet: packet(1, Service::Reliable),
        };
        r.handle(t(0), SawInput::FrameReceived(data.clone()), &mut out);
        r.handle(t(1), SawInput::FrameReceived(data), &mut out);
        let released = out
            .iter()
            .filter(|o| matches!(o, SawOutput::ToNetwork(_)))
            .count();
        let acks = out
            .iter()
            .filter(|o| matches!(o, SawOutput::ToMac(SawFrame::Ack { seq: 0 })))
            .count();
        assert_eq!((released, acks), (1, 2));
        assert_eq!(r.metrics().duplicates_discarded, 1);
    }

    #[test]
    fn unreliable_packets_go_once_without_waiting_for_an_ack() {
        let mut s = saw();
        let mut out = Vec::new();
        s.handle(
            t(0),
            SawInput::FromNetwork(packet(1, Service::Unreliable)),
            &mut out,
        );
        s.handle(
            t(0),
            SawInput::FromNetwork(packet(2, Service::Unreliable)),
            &mut out,
        );
        assert_eq!(out.len(), 1);
        s.handle(t(1), SawInput::MacSignal(MacSignal::TxSuccess), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(s.poll_timeout(), None);
    }
}
