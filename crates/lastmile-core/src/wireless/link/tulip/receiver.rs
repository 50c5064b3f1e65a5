//! TULIP's receiver, Figure 3 ("Complete Receiver Algorithm") and §3.2: buffer out-of-order
//! frames (a buffer of W), release in order without duplicates, and answer every data frame
//! with a LACK carrying the cumulative ACK and a bit vector of W − 1.

use std::collections::VecDeque;

use super::{
    Lack, LinkSeq, SeqSpace, TulipConfig, TulipConfigError, TulipEvent, TulipFrame, TulipInput,
    TulipOutbox, TulipOutput,
};
use crate::engine::SimTime;
use crate::packet::Packet;

/// Counters of a receiver.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TulipReceiverMetrics {
    pub data_frames_received: u64,
    pub lacks_sent: u64,
    pub frames_released: u64,
    pub duplicates_discarded: u64,
    pub unreliable_received: u64,
    /// LACKs that carried a piggybacked packet (§3.3).
    pub piggybacked: u64,
}

/// The receiving half of a TULIP link.
#[derive(Clone, Debug)]
pub struct TulipReceiver {
    space: SeqSpace,
    /// CumACK: the highest sequence number released in order; starts at −1 (Figure 3).
    cum_ack: LinkSeq,
    /// Slot `i` holds frame `CumACK + 1 + i`, for `i < W` (the receiver buffer of §3.2).
    buffer: VecDeque<Option<Packet>>,
    metrics: TulipReceiverMetrics,
}

impl TulipReceiver {
    pub fn new(config: TulipConfig) -> Result<Self, TulipConfigError> {
        config.validate()?;
        let space = SeqSpace::new(config.window);
        Ok(TulipReceiver {
            space,
            cum_ack: space.prev(LinkSeq(0)),
            buffer: (0..config.window).map(|_| None).collect(),
            metrics: TulipReceiverMetrics::default(),
        })
    }

    /// Only received frames concern the receiver; other inputs are ignored. The receiver has
    /// no timers: it answers each data frame at once (Figure 3).
    pub fn handle(&mut self, _now: SimTime, input: TulipInput, out: &mut TulipOutbox) {
        match input {
            TulipInput::FrameReceived(TulipFrame::Data { seq, packet, .. }) => {
                self.on_data(seq, packet, None, out)
            }
            TulipInput::FrameReceived(TulipFrame::Unreliable { packet }) => {
                self.on_unreliable(packet, out)
            }
            _ => {}
        }
    }

    /// The LACK the receiver would send now: CumACK and the bit vector (§3.2).
    pub fn lack(&self) -> Lack {
        let w = self.space.window();
        let bits = (0..w - 1)
            .filter(|&i| self.buffer[usize::from(i)].is_some())
            .fold(0u128, |acc, i| acc | (1u128 << i));
        Lack {
            cum_ack: self.cum_ack,
            bits,
            window: w,
        }
    }

    pub fn metrics(&self) -> TulipReceiverMetrics {
        self.metrics
    }

    /// An unreliable packet (ULP) is passed up as it comes (§3.1).
    pub fn on_unreliable(&mut self, packet: Packet, out: &mut TulipOutbox) {
        self.metrics.unreliable_received += 1;
        out.push(TulipOutput::ToNetwork(packet));
    }

    /// Figure 3's `process_incoming_pkt`, answering every data frame with a LACK (see the
    /// module notes on duplicates). `piggyback` is a queued packet of ≤ 40 bytes to carry on
    /// the LACK (MAC acceleration, §3.3).
    pub fn on_data(
        &mut self,
        seq: LinkSeq,
        packet: Packet,
        piggyback: Option<Packet>,
        out: &mut TulipOutbox,
    ) {
        let lack = self.accept(seq, packet, out);
        self.send_lack(lack, piggyback, out);
    }

    /// Figure 3's `process_incoming_pkt` up to the LACK: buffer or release the frame (or
    /// discard a duplicate), and return the LACK that answers it, counted as sent; the
    /// caller sends it alone ([`TulipReceiver::send_lack`]) or on a data frame.
    pub fn accept(&mut self, seq: LinkSeq, packet: Packet, out: &mut TulipOutbox) -> Lack {
        self.metrics.data_frames_received += 1;
        let first = self.space.add(self.cum_ack, 1);
        let w = self.space.window();
        if self.space.in_range(first, w, seq) {
            let slot = usize::from(self.space.distance(first, seq));
            if self.buffer[slot].is_none() {
                self.buffer[slot] = Some(packet);
                self.release_in_order(out);
            } else {
                self.discard_duplicate(seq, out);
            }
        } else {
            // Outside {CumACK+1, …, CumACK+W}: with numbers modulo 2W this can only be a frame
            // already released whose LACK was lost (§3.2, [8]).
            self.discard_duplicate(seq, out);
        }
        let lack = self.lack();
        self.metrics.lacks_sent += 1;
        out.push(TulipOutput::Event(TulipEvent::LackSent { lack }));
        lack
    }

    fn discard_duplicate(&mut self, seq: LinkSeq, out: &mut TulipOutbox) {
        self.metrics.duplicates_discarded += 1;
        out.push(TulipOutput::Event(TulipEvent::DuplicateDiscarded { seq }));
    }

    /// "release to network layer; release any other in sequence packets; for each packet
    /// released shift left BitVector; CumACK ← LastReleased.sn" (Figure 3).
    fn release_in_order(&mut self, out: &mut TulipOutbox) {
        while let Some(Some(_)) = self.buffer.front() {
            let packet = self.buffer.pop_front().flatten().expect("front is Some");
            self.buffer.push_back(None);
            self.cum_ack = self.space.add(self.cum_ack, 1);
            self.metrics.frames_released += 1;
            out.push(TulipOutput::Event(TulipEvent::Released {
                seq: self.cum_ack,
            }));
            out.push(TulipOutput::ToNetwork(packet));
        }
    }

    /// Sends `lack` (made by [`TulipReceiver::accept`]) as a LACK frame, with `piggyback`.
    pub fn send_lack(&mut self, lack: Lack, piggyback: Option<Packet>, out: &mut TulipOutbox) {
        if piggyback.is_some() {
            self.metrics.piggybacked += 1;
        }
        out.push(TulipOutput::ToMac(TulipFrame::Lack { lack, piggyback }));
    }
}
