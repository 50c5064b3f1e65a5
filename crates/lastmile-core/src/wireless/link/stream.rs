//! The datagram stream of a fragmenting link layer (RLP, AIRMAIL): IP datagrams become one
//! byte stream cut into fixed-size frames, as GSM's non-transparent mode carries PPP's
//! byte stream in RLP frames through L2R (GSM 04.22; the survey's Appendix), and a
//! datagram is handed up once the frame holding its last byte is released in order.
//!
//! Also here, for the metrics the survey asks for (§2.1: "a TCP-unaware LL protocol will
//! not suppress the duplicate acknowledgements, which can cause a TCP retransmission in
//! addition to the LL one"): [`SegmentWatch`] counts the TCP segments handed to a link
//! layer that carry data it was already given — TCP's own retransmissions on top of the
//! link's. Observation only: the link layers never read it.
//!
//! Left out: header compression, the L2R status octets' flow control (a fixed per-frame
//! header stands for them).

use std::collections::{BTreeSet, VecDeque};

use crate::ids::FlowId;
use crate::packet::Packet;

/// The information field of one frame: how many bytes of the stream it carries and the
/// datagrams whose last byte is among them (to be handed up, in order, when it is).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chunk {
    pub bytes: u32,
    pub ends: Vec<Packet>,
}

/// The sender's side: datagrams waiting to be cut into frames of `info_bytes`.
#[derive(Clone, Debug)]
pub struct Segmenter {
    info_bytes: u32,
    /// Datagrams not yet fully cut, with the bytes of each still to go.
    queue: VecDeque<(Packet, u32)>,
    queued_bytes: u64,
}

impl Segmenter {
    pub fn new(info_bytes: u32) -> Self {
        Segmenter {
            info_bytes: info_bytes.max(1),
            queue: VecDeque::new(),
            queued_bytes: 0,
        }
    }

    pub fn push(&mut self, packet: Packet) {
        let size = packet.size_bytes().max(1);
        self.queued_bytes += u64::from(size);
        self.queue.push_back((packet, size));
    }

    /// Stream bytes not yet cut into frames.
    pub fn queued_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// Datagrams not yet fully cut into frames.
    pub fn queued_packets(&self) -> usize {
        self.queue.len()
    }

    /// Cuts the next frame's worth (the last frame of a burst may be short), or `None` when
    /// the stream is empty.
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        if self.queue.is_empty() {
            return None;
        }
        let mut chunk = Chunk::default();
        while chunk.bytes < self.info_bytes {
            let Some((packet, left)) = self.queue.front_mut() else {
                break;
            };
            let take = (*left).min(self.info_bytes - chunk.bytes);
            *left -= take;
            chunk.bytes += take;
            self.queued_bytes -= u64::from(take);
            if *left == 0 {
                chunk.ends.push(*packet);
                self.queue.pop_front();
            }
        }
        Some(chunk)
    }

    /// Forgets the datagram at the head if it was partly cut already (its first frames went
    /// with a link reset); returns how many datagrams that was (0 or 1).
    pub fn drop_partial(&mut self) -> usize {
        match self.queue.front() {
            Some((packet, left)) if *left < packet.size_bytes().max(1) => {
                self.queued_bytes -= u64::from(*left);
                self.queue.pop_front();
                1
            }
            _ => 0,
        }
    }
}

/// Counts TCP data segments given to a link layer that it had been given before.
#[derive(Clone, Debug, Default)]
pub struct SegmentWatch {
    seen: BTreeSet<(FlowId, u32, u32)>,
    duplicates: u64,
}

impl SegmentWatch {
    /// Notes a datagram from the network layer.
    pub fn observe(&mut self, packet: &Packet) {
        let Some(seg) = packet.tcp() else {
            return;
        };
        if seg.payload_len == 0 {
            return;
        }
        let key = (packet.flow, seg.header.seq.0, seg.payload_len);
        if !self.seen.insert(key) {
            self.duplicates += 1;
        }
    }

    /// TCP data segments seen again: retransmissions by TCP of data the link layer already
    /// carried or was still carrying.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::test_datagram as datagram;

    #[test]
    fn a_datagram_ends_in_the_frame_holding_its_last_byte() {
        // GSM TCH/F9.6: 24 bytes of user data per RLP frame. A 40-byte and a 30-byte
        // datagram: 70 bytes in frames of 24, 24, 22 — the first ends in the second frame.
        let mut s = Segmenter::new(24);
        s.push(datagram(1, 40));
        s.push(datagram(2, 30));
        let sizes_and_ends: Vec<(u32, Vec<u64>)> = std::iter::from_fn(|| s.next_chunk())
            .map(|c| (c.bytes, c.ends.iter().map(|p| p.id.0).collect()))
            .collect();
        assert_eq!(
            sizes_and_ends,
            vec![(24, vec![]), (24, vec![1]), (22, vec![2])]
        );
        assert_eq!(s.queued_bytes(), 0);
    }
}
