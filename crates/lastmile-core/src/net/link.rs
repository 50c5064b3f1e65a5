//! One direction of a full-duplex point-to-point link: a queue (drop-tail, or RED marking
//! ECN-capable packets, `queue.rs`) feeding a transmitter of fixed rate, a propagation
//! delay, a per-frame link-layer overhead and an error model deciding which frames arrive
//! intact. RED sees every arrival, also one that finds the transmitter idle. The lossy "wireless" hop of the core is
//! this same channel with an error model (`mac = "p2p"`); the half-duplex cell is
//! `sim::cell` over `wireless::medium`.

use crate::engine::{SimDuration, SimTime};
use crate::error_model::{AnyErrorModel, BlockCode, FrameInfo};
use crate::ids::NodeId;

use super::queue::{Admission, Queue};

/// What happened to a packet offered to a channel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Offer<P> {
    /// The transmitter was idle: the frame's last bit leaves at `tx_end`; `ce`: RED marked
    /// it (the caller sets CE in its IP header).
    Started { tx_end: SimTime, ce: bool },
    /// Waiting in the queue (`ce` as above).
    Queued { ce: bool },
    /// The queue was full, or RED dropped it: the packet is handed back to be freed.
    Dropped(P),
}

/// Counters of one channel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelStats {
    pub frames_sent: u64,
    pub frames_lost: u64,
    pub bytes_sent: u64,
    pub queue_drops: u64,
    pub max_queue_packets: u64,
    /// Packets RED marked with CE (RFC 3168).
    pub ce_marks: u64,
    /// Of `queue_drops`, those RED dropped early.
    pub early_drops: u64,
}

/// One direction of a link.
#[derive(Clone, Debug)]
pub struct Channel<P> {
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimDuration,
    /// Bytes added below IP to every frame (e.g. 2 for PPP).
    pub overhead_bytes: u32,
    queue: Queue<(P, u32)>,
    /// The frame on the wire: packet, IP size, transmission start.
    on_wire: Option<(P, u32, SimTime)>,
    errors: AnyErrorModel,
    /// Link FEC: frames take the airtime of their coded bits and are judged block by block.
    code: Option<BlockCode>,
    pub stats: ChannelStats,
}

impl<P: Copy> Channel<P> {
    pub fn new(
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: SimDuration,
        overhead_bytes: u32,
        queue: Queue<(P, u32)>,
        errors: AnyErrorModel,
    ) -> Self {
        Channel {
            from,
            to,
            rate_bps,
            delay,
            overhead_bytes,
            queue,
            on_wire: None,
            errors,
            code: None,
            stats: ChannelStats::default(),
        }
    }

    /// Puts link FEC on the channel (`error_model/fec.rs`); its decoding delay is the
    /// caller's to add to `delay`.
    pub fn with_code(mut self, code: Option<BlockCode>) -> Self {
        self.code = code;
        self
    }

    /// Bits on the wire of a packet of `ip_bytes`: with its link overhead, coded.
    fn wire_bits(&self, ip_bytes: u32) -> u64 {
        let bits = u64::from(ip_bytes + self.overhead_bytes) * 8;
        self.code.map_or(bits, |c| c.coded_bits(bits))
    }

    /// The serialization time of a packet of `ip_bytes` on this channel.
    pub fn tx_time(&self, ip_bytes: u32) -> SimDuration {
        SimDuration::transmission(self.wire_bits(ip_bytes), self.rate_bps)
    }

    /// Offers a packet of `ip_bytes` for transmission (`ect`: it is ECN-capable).
    #[inline(always)]
    pub fn offer(&mut self, now: SimTime, packet: P, ip_bytes: u32, ect: bool) -> Offer<P> {
        if self.queue.has_aqm() {
            return self.offer_through_aqm(now, packet, ip_bytes, ect);
        }
        self.enter(now, packet, ip_bytes, false)
    }

    /// `offer` under RED: its verdict first, then the FIFO or the transmitter.
    #[inline(never)]
    fn offer_through_aqm(&mut self, now: SimTime, packet: P, ip_bytes: u32, ect: bool) -> Offer<P> {
        let Some(ce) = self.aqm_admission(now, ect) else {
            return Offer::Dropped(packet);
        };
        let offer = self.enter(now, packet, ip_bytes, ce);
        if matches!(offer, Offer::Started { .. }) {
            self.queue.passed_through(now);
        }
        offer
    }

    /// The admitted packet starts at once or joins the FIFO (drop-tail when it is full).
    #[inline(always)]
    fn enter(&mut self, now: SimTime, packet: P, ip_bytes: u32, ce: bool) -> Offer<P> {
        if self.on_wire.is_none() {
            return Offer::Started {
                tx_end: self.start(now, packet, ip_bytes),
                ce,
            };
        }
        match self.queue.push((packet, ip_bytes), ip_bytes) {
            Ok(()) => {
                self.stats.max_queue_packets =
                    self.stats.max_queue_packets.max(self.queue.len() as u64);
                Offer::Queued { ce }
            }
            Err((p, _)) => {
                self.stats.queue_drops += 1;
                Offer::Dropped(p)
            }
        }
    }

    /// Offers a packet to go ahead of the queued ones (a base-station agent's local
    /// retransmission: `AgentOutbox::ahead`): it starts at once on an idle transmitter, or
    /// waits at the head of the queue, bypassing RED; returns the started offer (or
    /// `Queued`) and the packets dropped from the queue's tail to make room for it.
    pub fn offer_ahead(&mut self, now: SimTime, packet: P, ip_bytes: u32) -> (Offer<P>, Vec<P>) {
        if self.on_wire.is_none() {
            let tx_end = self.start(now, packet, ip_bytes);
            return (Offer::Started { tx_end, ce: false }, Vec::new());
        }
        let evicted: Vec<P> = self
            .queue
            .push_front((packet, ip_bytes), ip_bytes)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        self.stats.queue_drops += evicted.len() as u64;
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.queue.len() as u64);
        (Offer::Queued { ce: false }, evicted)
    }

    /// RED's verdict: `Some(marked)` to let the packet in, `None` if it dropped it.
    #[inline(never)]
    fn aqm_admission(&mut self, now: SimTime, ect: bool) -> Option<bool> {
        match self.queue.admit(now, ect) {
            Admission::Admit => Some(false),
            Admission::AdmitMarked => {
                self.stats.ce_marks += 1;
                Some(true)
            }
            Admission::Drop => {
                self.stats.queue_drops += 1;
                self.stats.early_drops += 1;
                None
            }
        }
    }

    #[inline(never)]
    fn start(&mut self, now: SimTime, packet: P, ip_bytes: u32) -> SimTime {
        self.on_wire = Some((packet, ip_bytes, now));
        self.stats.frames_sent += 1;
        self.stats.bytes_sent += u64::from(ip_bytes + self.overhead_bytes);
        now + self.tx_time(ip_bytes)
    }

    /// The frame on the wire (for capture at transmission start).
    pub fn on_wire(&self) -> Option<P> {
        self.on_wire.map(|(p, _, _)| p)
    }

    /// The last bit of the frame on the wire has left at `now`: returns it and whether the
    /// channel lost it (`payload_bytes` tells the error model whether it carries data).
    pub fn finish(&mut self, now: SimTime, payload_bytes: u32) -> (P, bool) {
        let lost = self.judge(now, payload_bytes);
        let packet = self.on_wire.expect("no frame on the wire").0;
        self.clear_wire(lost);
        (packet, lost)
    }

    /// The error model's verdict on the frame on the wire, whose last bit leaves at
    /// `tx_end`: true if the channel loses it. Draws it, counts nothing, leaves the frame
    /// on the wire: a frame whose end needs no event is judged when it starts (each error
    /// model has its own random stream and sees the channel's frames in the same order
    /// and with the same times either way), and counted when its end is passed
    /// (`clear_wire`).
    pub fn judge(&mut self, tx_end: SimTime, payload_bytes: u32) -> bool {
        let (_, ip_bytes, tx_start) = self.on_wire.expect("no frame on the wire");
        if !self.can_lose() {
            return false;
        }
        let info = FrameInfo {
            tx_start,
            tx_end,
            bits: self.wire_bits(ip_bytes),
            payload_bytes,
        };
        self.errors.frame_lost_coded(&info, self.code.as_ref())
    }

    /// Whether the channel has an error model (without one, `judge` is always false).
    #[inline(always)]
    pub fn can_lose(&self) -> bool {
        !self.errors.is_none()
    }

    /// The frame on the wire, judged `lost`, has ended: the transmitter is free.
    #[inline]
    pub fn clear_wire(&mut self, lost: bool) {
        self.on_wire = None;
        self.stats.frames_lost += u64::from(lost);
    }

    /// Starts the next queued frame, if any, returning when its last bit leaves.
    pub fn start_next(&mut self, now: SimTime) -> Option<SimTime> {
        let (packet, ip_bytes) = self.queue.pop(now)?;
        Some(self.start(now, packet, ip_bytes))
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Empties the queue (the link went down: a mobile left), returning what it held.
    pub fn clear_queue(&mut self) -> Vec<P> {
        let mut out = Vec::with_capacity(self.queue.len());
        self.queue.retain(|&(p, _)| {
            out.push(p);
            false
        });
        out
    }

    /// The queue (its RED state, when it runs one).
    pub fn queue(&self) -> &Queue<(P, u32)> {
        &self.queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::QueueLimit;

    fn chan(limit: u64) -> Channel<u32> {
        Channel::new(
            NodeId(0),
            NodeId(1),
            1_000_000,
            SimDuration::from_millis(1),
            2,
            Queue::drop_tail(QueueLimit::Packets(limit)),
            AnyErrorModel::None,
        )
    }

    #[test]
    fn serializes_with_link_overhead_and_queues_behind_the_frame_on_the_wire() {
        let mut c = chan(1);
        let t0 = SimTime::ZERO;
        // 1438 + 2 bytes at 1 Mbps = 11.52 ms.
        assert_eq!(
            c.offer(t0, 1, 1438, false),
            Offer::Started {
                tx_end: t0 + SimDuration::from_micros(11_520),
                ce: false
            }
        );
        assert_eq!(c.offer(t0, 2, 1438, false), Offer::Queued { ce: false });
        assert_eq!(c.offer(t0, 3, 1438, false), Offer::Dropped(3));
        let t1 = t0 + SimDuration::from_micros(11_520);
        assert_eq!(c.finish(t1, 1398), (1, false));
        assert_eq!(
            c.start_next(t1),
            Some(t1 + SimDuration::from_micros(11_520))
        );
        assert_eq!(c.stats.queue_drops, 1);
        assert_eq!(c.stats.frames_sent, 2);
    }
}
