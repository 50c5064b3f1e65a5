//! The TCP-unaware link layer of Delayed Duplicate Acknowledgements (Vaidya, Mehta, Perkins &
//! Montenegro, TAMU TR 99-003, 1999; Pentikousis §2.1.2.2): selective-repeat ARQ with its own
//! sequence numbers, one IP datagram per link packet, and no attempt to deliver in order.
//! The receiving TCP's delayed duplicate ACKs are the other half (`agents/dda.rs`).
//!
//! * **Frames.** A reliable datagram (`Service::Reliable`: TCP data) travels in a `Data`
//!   frame with a link sequence number and the sender's lowest unacknowledged number
//!   (`una`); best-effort datagrams (TCP ACKs, UDP) in an `Unreliable` frame, once. "Each
//!   TCP ACK should be encapsulated in a single LL ACK" (the survey): we send them as
//!   separate unreliable frames instead of piggybacking them on link ACKs.
//! * **Receiver.** Every `Data` frame, duplicates included, is answered by a link `Ack`
//!   carrying the next number expected in order (cumulative) and the number just received.
//!   A new frame goes up at once, even past a gap ("the protocol does not attempt to
//!   deliver the packets in-order", the survey), unless `in_order` is set (then it waits for
//!   the gap, as TULIP does). A `una` above the next expected says the sender gave up on
//!   the frames below it: the receiver stops waiting for them.
//! * **Sender.** Up to `window` frames outstanding, one frame at the MAC at a time. "A loss
//!   is detected at the LL when a LL-duplicate acknowledgement … reaches the base station"
//!   (the survey): since frames cross the air in the order sent, an ACK for a frame sent
//!   *after* the last transmission of an unacknowledged one says that one was lost, and it
//!   is retransmitted ahead of new frames; the ACK timer (`ack_timeout` after the MAC is
//!   done with the frame) and a MAC `TxFailure` catch the rest. Each failed attempt the
//!   link layer finds is reported (`DdaOutput::AttemptFailed`, the base station's agent
//!   hears it as a `TxFailure` for the datagram: EBSN's trigger; a MAC `TxFailure` the agent
//!   hears from the MAC itself); after `retry_limit` attempts the frame is given up.
//!
//! Sequence numbers are `u32` and never wrap in a run (2^32 frames). Header sizes are our
//! choice: a type byte and two 16-bit numbers for `Data` and `Ack`, a type byte for
//! `Unreliable`. Left out: piggybacking, adaptive timers, link-level flow control beyond
//! the window.

pub mod spec;
pub use spec::DdaLinkSpec;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::engine::{SimDuration, SimTime};
use crate::packet::{Packet, Service};
use crate::wireless::signals::MacSignal;

/// Bytes a `Data` frame adds: type, sequence number, una (our choice).
pub const DDA_DATA_HEADER_BYTES: u32 = 5;
/// A link `Ack`: type, next expected, number received.
pub const DDA_ACK_BYTES: u32 = 5;
/// Bytes each further number received adds to a link `Ack` (a 16-bit number).
pub const DDA_ACK_EXTRA_BYTES: u32 = 2;
/// Bytes an `Unreliable` frame adds: its type.
pub const DDA_UNRELIABLE_HEADER_BYTES: u32 = 1;

/// The link layer's settings, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DdaLinkConfig {
    /// Frames outstanding at most.
    pub window: u32,
    /// How long after the MAC is done with a data frame its ACK may take.
    pub ack_timeout: SimDuration,
    /// Transmission attempts per frame (the first included) before it is given up.
    pub retry_limit: u32,
    /// Deliver in order (hold frames behind a gap).
    pub in_order: bool,
}

/// A frame of this link layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DdaFrame {
    Data {
        seq: u32,
        una: u32,
        packet: Packet,
    },
    Unreliable {
        packet: Packet,
    },
    /// A link ACK: the next number expected in order, the number just received, any other
    /// numbers received since the last link ACK went out (ACKs waiting for the MAC are
    /// merged into one), and a TCP ACK riding in it (`piggyback`).
    Ack {
        next: u32,
        got: u32,
        also: Vec<u32>,
        piggyback: Option<Packet>,
    },
}

impl DdaFrame {
    pub fn size_bytes(&self) -> u32 {
        match self {
            DdaFrame::Data { packet, .. } => DDA_DATA_HEADER_BYTES + packet.size_bytes(),
            DdaFrame::Unreliable { packet } => DDA_UNRELIABLE_HEADER_BYTES + packet.size_bytes(),
            DdaFrame::Ack {
                also, piggyback, ..
            } => {
                DDA_ACK_BYTES
                    + DDA_ACK_EXTRA_BYTES * also.len() as u32
                    + piggyback.as_ref().map_or(0, Packet::size_bytes)
            }
        }
    }
}

/// What drives the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DdaInput {
    FromNetwork(Packet),
    FrameReceived(DdaFrame),
    MacSignal(MacSignal),
    Timeout,
}

/// Its effects, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DdaOutput {
    ToMac(DdaFrame),
    ToNetwork(Packet),
    /// One attempt at this datagram failed (the link layer will try again unless it gave up).
    AttemptFailed(Packet),
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DdaMetrics {
    pub data_frames_sent: u64,
    pub retransmissions: u64,
    /// Frames given up at the retry limit.
    pub drops: u64,
    /// Losses found by a link ACK for a later frame (the survey's "LL-duplicate ACK").
    pub losses_by_ack: u64,
    /// Losses found by the ACK timer or a MAC `TxFailure`.
    pub losses_by_timer: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    /// Frames passed up to the network layer.
    pub frames_released: u64,
    /// Of those, frames passed up while an earlier one was still missing.
    pub released_out_of_order: u64,
    pub duplicates_discarded: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FrameState {
    /// Waiting for a (re)transmission.
    Queued,
    AtMac,
    AwaitAck {
        deadline: SimTime,
    },
    Acked,
}

#[derive(Clone, Debug)]
struct Outstanding {
    packet: Packet,
    attempts: u32,
    /// The transmission counter at its last transmission: frames cross the air in this order.
    tx_order: u64,
    state: FrameState,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AtMac {
    Data(u32),
    Unreliable,
    Ack,
}

/// One end of the link towards one peer (sender and receiver).
#[derive(Clone, Debug)]
pub struct DdaLink {
    cfg: DdaLinkConfig,
    // Sender.
    /// Reliable datagrams not yet numbered (the window was full).
    pending: VecDeque<Packet>,
    unreliable: VecDeque<Packet>,
    /// Frames `una..next_seq`, index `seq - una`.
    window: VecDeque<Outstanding>,
    una: u32,
    next_seq: u32,
    tx_counter: u64,
    at_mac: Option<AtMac>,
    // Receiver.
    expected: u32,
    received: BTreeSet<u32>,
    /// With `in_order`: frames waiting behind a gap.
    held: BTreeMap<u32, Packet>,
    acks: VecDeque<(u32, u32)>,
    metrics: DdaMetrics,
}

impl DdaLink {
    pub fn new(cfg: DdaLinkConfig) -> Self {
        DdaLink {
            cfg,
            pending: VecDeque::new(),
            unreliable: VecDeque::new(),
            window: VecDeque::new(),
            una: 0,
            next_seq: 0,
            tx_counter: 0,
            at_mac: None,
            expected: 0,
            received: BTreeSet::new(),
            held: BTreeMap::new(),
            acks: VecDeque::new(),
            metrics: DdaMetrics::default(),
        }
    }

    pub fn config(&self) -> &DdaLinkConfig {
        &self.cfg
    }
    pub fn metrics(&self) -> DdaMetrics {
        self.metrics
    }
    /// Datagrams accepted and not yet sent once.
    pub fn queued_packets(&self) -> usize {
        self.pending.len() + self.unreliable.len()
    }
    /// Frames sent and not yet acknowledged or given up.
    pub fn outstanding_frames(&self) -> usize {
        self.window
            .iter()
            .filter(|o| o.state != FrameState::Acked)
            .count()
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.window
            .iter()
            .filter_map(|o| match o.state {
                FrameState::AwaitAck { deadline } => Some(deadline),
                _ => None,
            })
            .min()
    }

    pub fn handle(&mut self, now: SimTime, input: DdaInput, out: &mut Vec<DdaOutput>) {
        match input {
            DdaInput::FromNetwork(p) if p.service == Service::Reliable => self.pending.push_back(p),
            DdaInput::FromNetwork(p) => self.unreliable.push_back(p),
            DdaInput::FrameReceived(frame) => self.on_frame(frame, out),
            DdaInput::MacSignal(signal) => self.on_signal(now, signal, out),
            DdaInput::Timeout => self.on_timeout(now, out),
        }
        self.try_send(out);
    }

    fn on_frame(&mut self, frame: DdaFrame, out: &mut Vec<DdaOutput>) {
        match frame {
            DdaFrame::Data { seq, una, packet } => self.on_data(seq, una, packet, out),
            DdaFrame::Unreliable { packet } => out.push(DdaOutput::ToNetwork(packet)),
            DdaFrame::Ack {
                next,
                got,
                also,
                piggyback,
            } => {
                self.on_ack(next, got, &also, out);
                if let Some(p) = piggyback {
                    out.push(DdaOutput::ToNetwork(p));
                }
            }
        }
    }

    // ---- receiver ----------------------------------------------------------------------

    fn on_data(&mut self, seq: u32, una: u32, packet: Packet, out: &mut Vec<DdaOutput>) {
        if una > self.expected {
            // The sender gave up on the frames below `una`: stop waiting for them.
            self.expected = una;
            self.received = self.received.split_off(&una);
            let skipped = std::mem::take(&mut self.held);
            for (s, p) in skipped {
                if s < una {
                    self.release(p, out);
                } else {
                    self.held.insert(s, p);
                }
            }
        }
        let duplicate = seq < self.expected || self.received.contains(&seq);
        if duplicate {
            self.metrics.duplicates_discarded += 1;
        } else if self.cfg.in_order {
            self.received.insert(seq);
            self.held.insert(seq, packet);
        } else {
            self.received.insert(seq);
            if seq > self.expected {
                self.metrics.released_out_of_order += 1;
            }
            self.release(packet, out);
        }
        while self.received.remove(&self.expected) {
            if let Some(p) = self.held.remove(&self.expected) {
                self.release(p, out);
            }
            self.expected += 1;
        }
        self.acks.push_back((self.expected, seq));
    }

    fn release(&mut self, packet: Packet, out: &mut Vec<DdaOutput>) {
        self.metrics.frames_released += 1;
        out.push(DdaOutput::ToNetwork(packet));
    }

    // ---- sender ------------------------------------------------------------------------

    fn frame_mut(&mut self, seq: u32) -> Option<&mut Outstanding> {
        let i = seq.checked_sub(self.una)?;
        self.window.get_mut(i as usize)
    }

    fn on_ack(&mut self, next: u32, got: u32, also: &[u32], out: &mut Vec<DdaOutput>) {
        self.metrics.acks_received += 1;
        // The latest order in which a received frame's last copy went on the air, among
        // those still outstanding.
        let got_order = std::iter::once(got)
            .chain(also.iter().copied())
            .filter_map(|s| {
                self.frame_mut(s)
                    .filter(|o| o.state != FrameState::Acked)
                    .map(|o| o.tx_order)
            })
            .max();
        for seq in self.una..next.min(self.next_seq) {
            if let Some(o) = self.frame_mut(seq) {
                o.state = FrameState::Acked;
            }
        }
        for &s in std::iter::once(&got).chain(also) {
            if let Some(o) = self.frame_mut(s) {
                o.state = FrameState::Acked;
            }
        }
        if let Some(order) = got_order {
            // The survey's LL-duplicate ACK: a frame sent after another's last copy arrived,
            // so over this FIFO hop that copy was lost.
            let lost: Vec<u32> = (self.una..self.next_seq)
                .filter(|&s| {
                    self.window[(s - self.una) as usize].tx_order < order
                        && matches!(
                            self.window[(s - self.una) as usize].state,
                            FrameState::AwaitAck { .. }
                        )
                })
                .collect();
            for seq in lost {
                self.metrics.losses_by_ack += 1;
                self.attempt_failed(seq, true, out);
            }
        }
        self.advance_una();
    }

    /// Drops acknowledged (and given-up) frames from the front of the window.
    fn advance_una(&mut self) {
        while self
            .window
            .front()
            .is_some_and(|o| o.state == FrameState::Acked)
        {
            self.window.pop_front();
            self.una += 1;
        }
    }

    fn on_signal(&mut self, now: SimTime, signal: MacSignal, out: &mut Vec<DdaOutput>) {
        let Some(at) = self.at_mac else {
            return;
        };
        match signal {
            MacSignal::TxSuccess | MacSignal::TxFailure => self.at_mac = None,
            MacSignal::Trans | MacSignal::Wait { .. } => return,
        }
        let AtMac::Data(seq) = at else {
            return;
        };
        let deadline = now + self.cfg.ack_timeout;
        let Some(o) = self.frame_mut(seq) else {
            return;
        };
        if o.state != FrameState::AtMac {
            return; // Acknowledged while the MAC still held it (a retransmitted copy).
        }
        if signal == MacSignal::TxSuccess {
            o.state = FrameState::AwaitAck { deadline };
        } else {
            // The station's agent heard this failure from the MAC itself: not reported twice.
            self.metrics.losses_by_timer += 1;
            self.attempt_failed(seq, false, out);
            self.advance_una();
        }
    }

    fn on_timeout(&mut self, now: SimTime, out: &mut Vec<DdaOutput>) {
        let due: Vec<u32> = (self.una..self.next_seq)
            .filter(|&s| {
                matches!(self.window[(s - self.una) as usize].state,
                    FrameState::AwaitAck { deadline } if deadline <= now)
            })
            .collect();
        for seq in due {
            self.metrics.losses_by_timer += 1;
            self.attempt_failed(seq, true, out);
        }
        self.advance_una();
    }

    /// One attempt at frame `seq` failed: queue it again, or give it up at the limit;
    /// `report` it (`AttemptFailed`) unless the MAC's own failure signal did.
    fn attempt_failed(&mut self, seq: u32, report: bool, out: &mut Vec<DdaOutput>) {
        let limit = self.cfg.retry_limit;
        let Some(o) = self.frame_mut(seq) else {
            return;
        };
        o.attempts += 1;
        if report {
            out.push(DdaOutput::AttemptFailed(o.packet));
        }
        if o.attempts >= limit {
            o.state = FrameState::Acked;
            self.metrics.drops += 1;
        } else {
            o.state = FrameState::Queued;
        }
    }

    /// One frame at the MAC at a time: link ACKs first (they are answers; those waiting are
    /// merged into one, which carries the oldest waiting TCP ACK: "each TCP ACK should be
    /// encapsulated in single LL ACK", the survey), then the oldest frame waiting for a
    /// retransmission, an unreliable datagram, a new frame if the window allows.
    fn try_send(&mut self, out: &mut Vec<DdaOutput>) {
        if self.at_mac.is_some() {
            return;
        }
        if let Some((next, got)) = self.acks.pop_back() {
            let also = self.acks.drain(..).map(|(_, g)| g).collect();
            self.metrics.acks_sent += 1;
            self.at_mac = Some(AtMac::Ack);
            let piggyback = self.unreliable.pop_front();
            out.push(DdaOutput::ToMac(DdaFrame::Ack {
                next,
                got,
                also,
                piggyback,
            }));
            return;
        }
        if let Some(i) = self
            .window
            .iter()
            .position(|o| o.state == FrameState::Queued)
        {
            self.send_data(self.una + i as u32, out);
            return;
        }
        if let Some(packet) = self.unreliable.pop_front() {
            self.at_mac = Some(AtMac::Unreliable);
            out.push(DdaOutput::ToMac(DdaFrame::Unreliable { packet }));
            return;
        }
        if (self.window.len() as u32) < self.cfg.window {
            if let Some(packet) = self.pending.pop_front() {
                let seq = self.next_seq;
                self.next_seq += 1;
                self.window.push_back(Outstanding {
                    packet,
                    attempts: 0,
                    tx_order: 0,
                    state: FrameState::Queued,
                });
                self.send_data(seq, out);
            }
        }
    }

    fn send_data(&mut self, seq: u32, out: &mut Vec<DdaOutput>) {
        self.tx_counter += 1;
        let (order, una) = (self.tx_counter, self.una);
        let Some(o) = self.frame_mut(seq) else {
            return;
        };
        o.tx_order = order;
        o.state = FrameState::AtMac;
        let (packet, retransmission) = (o.packet, o.attempts > 0);
        self.metrics.data_frames_sent += 1;
        self.metrics.retransmissions += u64::from(retransmission);
        self.at_mac = Some(AtMac::Data(seq));
        out.push(DdaOutput::ToMac(DdaFrame::Data { seq, una, packet }));
    }
}

#[cfg(test)]
mod tests;
