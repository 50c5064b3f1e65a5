//! The real bytes of packets from real hosts, kept beside the simulation (whose packets
//! carry only lengths), so that every packet leaving it is rebuilt whole: its simulated
//! headers plus the bytes it stands for.
//!
//! **TCP: by stream and sequence number.** Each direction of a connection (source address
//! and port, destination address and port) keeps the bytes that entered, by offset from
//! its initial sequence number (learnt from the SYN that entered). A segment leaving
//! carries the bytes for `[seq, seq + len)` of its own stream whatever sent it: the real
//! host, or an agent resending a cached copy (Snoop, WTCP, LLE-TCP, TULIP's link layer),
//! or a connection of the base station's (I-TCP), and whatever headers were rewritten on
//! the way (WTCP's timestamps). I-TCP splits a connection into two with the same
//! addresses and ports but different initial sequence numbers: the SYN that *leaves* for
//! a direction gives its outgoing sequence space (`out_isn`), so byte `k` of the stream
//! leaves at `out_isn + 1 + k` while it entered at `in_isn + 1 + k`. Offsets are 64-bit,
//! unwrapped near the highest offset seen, so a stream may exceed 4 GiB.
//!
//! Bytes are released once the real receiver's cumulative ACK (which enters where the
//! stream leaves, in the outgoing space) is `RETAIN_BYTES` past them: a sender's spurious
//! retransmission, or an agent's copy still queued, may leave after the receiver has
//! acknowledged its bytes, and it carries them too. A leaving segment whose bytes are
//! unknown — released already, or never entered — leaves with zeros in their place, and
//! the bytes are counted (`PayloadStats::bytes_unknown`).
//!
//! **UDP: by packet.** A datagram's payload is kept under its packet id until it leaves or
//! `DATAGRAM_TTL` has passed (it was lost in the simulation).
//!
//! Captures (`sim::capture`) look a segment's bytes up without knowing which side of a
//! split it was captured on: in the incoming space first, then the outgoing one.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;

use crate::engine::{SimDuration, SimTime};
use crate::packet::{Control, Packet, PacketId, SeqNumber, Transport};
use crate::ranges::RangeSet;

/// How far behind the receiver's cumulative ACK bytes are kept (module notes).
pub const RETAIN_BYTES: u64 = 4 << 20;

/// How long a UDP datagram's payload waits to leave before it is taken as lost.
pub const DATAGRAM_TTL: SimDuration = SimDuration::from_secs(10);

/// One direction of a TCP connection: (source address, source port, destination address,
/// destination port).
type Direction = (u32, u16, u32, u16);

/// What could not be rebuilt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PayloadStats {
    /// TCP payload bytes that left as zeros: released already or never entered.
    pub bytes_unknown: u64,
    /// UDP datagrams that left without their payload (zeros) because it was not kept.
    pub datagrams_unknown: u64,
    /// UDP payloads dropped after `DATAGRAM_TTL` (their packets lost in the simulation).
    pub datagrams_expired: u64,
}

/// The bytes of one direction of a connection.
#[derive(Debug)]
struct Stream {
    in_isn: SeqNumber,
    /// The ISN of the SYN that left in this direction, if one did.
    out_isn: Option<SeqNumber>,
    /// The offset of `bytes[0]`.
    base: u64,
    bytes: VecDeque<u8>,
    /// Offsets that entered (at or above `base` these are in `bytes`).
    known: RangeSet,
    /// The highest offset seen, for unwrapping 32-bit sequence numbers.
    high: u64,
}

impl Stream {
    fn new(in_isn: SeqNumber) -> Self {
        Stream {
            in_isn,
            out_isn: None,
            base: 0,
            bytes: VecDeque::new(),
            known: RangeSet::new(),
            high: 0,
        }
    }

    /// The 64-bit offset of sequence number `seq` in the space starting at `isn`.
    fn offset(&self, isn: SeqNumber, seq: SeqNumber) -> u64 {
        let rel = seq.0.wrapping_sub(isn.0.wrapping_add(1));
        let step = i64::from(rel.wrapping_sub(self.high as u32) as i32);
        (self.high as i64 + step).max(0) as u64
    }

    fn store(&mut self, offset: u64, data: &[u8]) {
        let end = offset + data.len() as u64;
        self.high = self.high.max(end);
        if end <= self.base {
            return;
        }
        let skip = self.base.saturating_sub(offset) as usize;
        let from = offset.max(self.base);
        let at = (from - self.base) as usize;
        let need = (end - self.base) as usize;
        if self.bytes.len() < need {
            self.bytes.resize(need, 0);
        }
        let data = &data[skip..];
        for (slot, &b) in self.bytes.range_mut(at..at + data.len()).zip(data) {
            *slot = b;
        }
        self.known.insert(from, end);
    }

    fn release_below(&mut self, offset: u64) {
        if offset <= self.base {
            return;
        }
        let drop = ((offset - self.base) as usize).min(self.bytes.len());
        self.bytes.drain(..drop);
        self.base += drop as u64;
    }

    /// Copies `[offset, offset + len)` into `out` (zeros where unknown); returns how many
    /// bytes were unknown.
    fn copy(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> u64 {
        out.clear();
        if self.holds(offset, len) {
            let k = (offset - self.base) as usize;
            out.extend(self.bytes.range(k..k + len));
            return 0;
        }
        out.resize(len, 0);
        let mut unknown = 0;
        for (i, b) in out.iter_mut().enumerate() {
            let o = offset + i as u64;
            match o.checked_sub(self.base).map(|k| k as usize) {
                Some(k) if k < self.bytes.len() && self.known.contains(o, o + 1) => {
                    *b = self.bytes[k];
                }
                _ => unknown += 1,
            }
        }
        unknown
    }

    /// True if every byte of `[offset, offset + len)` is held.
    fn holds(&self, offset: u64, len: usize) -> bool {
        offset >= self.base && self.known.contains(offset, offset + len as u64)
    }
}

/// The real bytes of every external connection and datagram in flight.
#[derive(Debug, Default)]
pub struct PayloadStore {
    streams: BTreeMap<Direction, Stream>,
    datagrams: BTreeMap<PacketId, Vec<u8>>,
    /// (when, id) of each kept datagram, oldest first, for expiry.
    datagram_times: VecDeque<(SimTime, PacketId)>,
    pub stats: PayloadStats,
}

fn direction(packet: &Packet) -> Direction {
    let (sp, dp) = packet.transport.ports();
    (packet.ip.src.0, sp, packet.ip.dst.0, dp)
}

fn reverse(d: Direction) -> Direction {
    (d.2, d.3, d.0, d.1)
}

impl PayloadStore {
    /// A packet from a real host enters with `payload`: a SYN starts (or restarts) its
    /// stream, data is stored, an ACK releases what the reverse stream's receiver holds; a
    /// datagram's payload is kept under its id.
    pub fn on_enter(&mut self, now: SimTime, packet: &Packet, payload: &[u8]) {
        match &packet.transport {
            Transport::Tcp(s) => {
                let h = &s.header;
                let dir = direction(packet);
                if h.control == Control::Syn {
                    let fresh = self.streams.get(&dir).is_none_or(|st| st.in_isn != h.seq);
                    if fresh {
                        self.streams.insert(dir, Stream::new(h.seq));
                    }
                } else if !payload.is_empty() {
                    if let Some(st) = self.streams.get_mut(&dir) {
                        let offset = st.offset(st.in_isn, h.seq);
                        st.store(offset, payload);
                    }
                }
                if let (Some(ack), Some(rev)) = (h.ack, self.streams.get_mut(&reverse(dir))) {
                    let isn = rev.out_isn.unwrap_or(rev.in_isn);
                    let offset = rev.offset(isn, ack);
                    rev.release_below(offset.saturating_sub(RETAIN_BYTES));
                }
            }
            _ => {
                self.expire(now);
                self.datagrams.insert(packet.id, payload.to_vec());
                self.datagram_times.push_back((now, packet.id));
            }
        }
    }

    fn expire(&mut self, now: SimTime) {
        while let Some(&(t, id)) = self.datagram_times.front() {
            if now.saturating_since(t) < DATAGRAM_TTL {
                break;
            }
            self.datagram_times.pop_front();
            if self.datagrams.remove(&id).is_some() {
                self.stats.datagrams_expired += 1;
            }
        }
    }

    /// The payload of `packet`, leaving the simulation, into `out` (zeros where unknown,
    /// counted). A leaving SYN sets its direction's outgoing sequence space.
    pub fn on_leave(&mut self, packet: &Packet, out: &mut Vec<u8>) {
        out.clear();
        match &packet.transport {
            Transport::Tcp(s) => {
                let h = &s.header;
                let dir = direction(packet);
                if h.control == Control::Syn {
                    self.streams
                        .entry(dir)
                        .or_insert_with(|| Stream::new(h.seq))
                        .out_isn = Some(h.seq);
                    return;
                }
                let len = s.payload_len as usize;
                if len == 0 {
                    return;
                }
                match self.streams.get(&dir) {
                    Some(st) => {
                        let offset = st.offset(st.out_isn.unwrap_or(st.in_isn), h.seq);
                        self.stats.bytes_unknown += st.copy(offset, len, out);
                    }
                    None => {
                        out.resize(len, 0);
                        self.stats.bytes_unknown += len as u64;
                    }
                }
            }
            _ => match self.datagrams.remove(&packet.id) {
                Some(bytes) => *out = bytes,
                None => self.stats.datagrams_unknown += 1,
            },
        }
    }

    /// The payload of `packet` for a capture, into `out`; empty when unknown (the capture
    /// then writes zeros). Looks in both sequence spaces of a split connection.
    pub fn for_capture(&self, packet: &Packet, out: &mut Vec<u8>) {
        out.clear();
        match &packet.transport {
            Transport::Tcp(s) => {
                let len = s.payload_len as usize;
                let Some(st) = self.streams.get(&direction(packet)) else {
                    return;
                };
                if len == 0 || s.header.control == Control::Syn {
                    return;
                }
                let spaces = [Some(st.in_isn), st.out_isn];
                for isn in spaces.into_iter().flatten() {
                    let offset = st.offset(isn, s.header.seq);
                    if st.holds(offset, len) {
                        st.copy(offset, len, out);
                        return;
                    }
                }
            }
            _ => {
                if let Some(bytes) = self.datagrams.get(&packet.id) {
                    out.extend_from_slice(bytes);
                }
            }
        }
    }

    /// Bytes held across all streams (for tests and memory reports).
    pub fn bytes_held(&self) -> usize {
        self.streams.values().map(|s| s.bytes.len()).sum::<usize>()
            + self.datagrams.values().map(Vec::len).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::{
        Ipv4Addr, Ipv4Header, TcpHeader, TcpOptions, TcpSegment, UdpDatagram, PROTO_TCP,
    };

    const FH: u32 = 0x0a00_0001;
    const MH: u32 = 0x0a00_0003;

    fn segment(
        src: u32,
        dst: u32,
        seq: u32,
        ack: Option<u32>,
        control: Control,
        len: u32,
    ) -> Packet {
        let (sp, dp) = if src == FH {
            (40000, 5001)
        } else {
            (5001, 40000)
        };
        let mut p = Packet {
            id: PacketId(0),
            origin_time: SimTime::ZERO,
            ip: Ipv4Header {
                src: Ipv4Addr(src),
                dst: Ipv4Addr(dst),
                protocol: PROTO_TCP,
                ttl: 64,
                total_len: 0,
                ident: 0,
                ecn: Default::default(),
            },
            transport: Transport::Tcp(TcpSegment {
                header: TcpHeader {
                    src_port: sp,
                    dst_port: dp,
                    seq: SeqNumber(seq),
                    ack: ack.map(SeqNumber),
                    control,
                    window: 65535,
                    options: TcpOptions::default(),
                    ece: false,
                    cwr: false,
                    sender_in_slow_start: false,
                },
                payload_len: len,
            }),
            flow: FlowId(0),
            service: Default::default(),
        };
        p.fix_length();
        p
    }

    fn bytes(from: u8, n: usize) -> Vec<u8> {
        (0..n).map(|i| from.wrapping_add(i as u8)).collect()
    }

    #[test]
    fn a_resent_copy_leaves_with_the_bytes_that_entered() {
        let mut store = PayloadStore::default();
        let isn = 0xffff_fff0; // wraps within the first segment
        store.on_enter(
            SimTime::ZERO,
            &segment(FH, MH, isn, None, Control::Syn, 0),
            &[],
        );
        let data = bytes(1, 100);
        let seg = segment(FH, MH, isn.wrapping_add(1), Some(7), Control::None, 100);
        store.on_enter(SimTime::ZERO, &seg, &data);
        let mut out = Vec::new();
        store.on_leave(&seg, &mut out);
        assert_eq!(out, data);
        // An agent's copy of bytes 40..100 (say, a repacketised retransmission).
        let part = segment(FH, MH, isn.wrapping_add(41), Some(7), Control::None, 60);
        store.on_leave(&part, &mut out);
        assert_eq!(out, data[40..]);
        assert_eq!(store.stats.bytes_unknown, 0);
    }

    #[test]
    fn the_receivers_ack_releases_bytes_and_a_stale_copy_leaves_as_counted_zeros() {
        let mut store = PayloadStore::default();
        let isn = 1000;
        let syn = segment(FH, MH, isn, None, Control::Syn, 0);
        store.on_enter(SimTime::ZERO, &syn, &[]);
        let mss = 50_000u32;
        let n = (RETAIN_BYTES / u64::from(mss)) as u32 + 2;
        for i in 0..n {
            let seg = segment(FH, MH, isn + 1 + i * mss, Some(1), Control::None, mss);
            store.on_enter(SimTime::ZERO, &seg, &bytes(i as u8, mss as usize));
        }
        let total = u64::from(n) * u64::from(mss);
        assert_eq!(store.bytes_held() as u64, total);
        // The mobile acknowledges all but the last segment: bytes more than RETAIN_BYTES
        // behind that go.
        let acked = (n - 1) * mss;
        let ack = segment(MH, FH, 1, Some(isn + 1 + acked), Control::None, 0);
        store.on_enter(SimTime::ZERO, &ack, &[]);
        let released = u64::from(acked) - RETAIN_BYTES;
        assert_eq!(store.bytes_held() as u64, total - released);
        // A stale copy of the first segment: its released bytes leave as zeros, counted.
        let first = segment(FH, MH, isn + 1, Some(1), Control::None, mss);
        let mut out = Vec::new();
        store.on_leave(&first, &mut out);
        let gone = released as usize;
        assert!(out[..gone].iter().all(|&b| b == 0));
        assert!(out[gone..] == bytes(0, mss as usize)[gone..]);
        assert_eq!(store.stats.bytes_unknown, released);
        // A copy of acknowledged bytes still retained leaves whole.
        let recent = segment(FH, MH, isn + 1 + (n - 2) * mss, Some(1), Control::None, mss);
        store.on_leave(&recent, &mut out);
        assert!(out == bytes((n - 2) as u8, mss as usize));
    }

    #[test]
    fn a_split_connection_maps_offsets_between_sequence_spaces() {
        let mut store = PayloadStore::default();
        // The fixed host's SYN enters with ISN 500; the base station's own SYN to the
        // mobile leaves with ISN 90_000 (I-TCP).
        store.on_enter(
            SimTime::ZERO,
            &segment(FH, MH, 500, None, Control::Syn, 0),
            &[],
        );
        let mut out = Vec::new();
        store.on_leave(&segment(FH, MH, 90_000, None, Control::Syn, 0), &mut out);
        let data = bytes(9, 80);
        store.on_enter(
            SimTime::ZERO,
            &segment(FH, MH, 501, Some(1), Control::None, 80),
            &data,
        );
        let relayed = segment(FH, MH, 90_011, Some(1), Control::None, 30);
        store.on_leave(&relayed, &mut out);
        assert_eq!(out, data[10..40]);
        // A capture on the wired side finds bytes by the incoming space.
        let wired = segment(FH, MH, 541, Some(1), Control::None, 40);
        store.for_capture(&wired, &mut out);
        assert_eq!(out, data[40..]);
    }

    #[test]
    fn a_new_connection_on_the_same_ports_starts_a_new_stream() {
        let mut store = PayloadStore::default();
        store.on_enter(
            SimTime::ZERO,
            &segment(FH, MH, 10, None, Control::Syn, 0),
            &[],
        );
        store.on_enter(
            SimTime::ZERO,
            &segment(FH, MH, 11, None, Control::None, 5),
            &[1, 2, 3, 4, 5],
        );
        store.on_enter(
            SimTime::ZERO,
            &segment(FH, MH, 7000, None, Control::Syn, 0),
            &[],
        );
        assert_eq!(store.bytes_held(), 0);
    }

    #[test]
    fn datagrams_leave_with_their_payload_or_expire() {
        let mut store = PayloadStore::default();
        let mut udp = segment(FH, MH, 0, None, Control::None, 0);
        udp.transport = Transport::Udp(UdpDatagram {
            src_port: 1,
            dst_port: 2,
            payload_len: 3,
        });
        udp.id = PacketId(5);
        store.on_enter(SimTime::ZERO, &udp, b"abc");
        let mut out = Vec::new();
        store.for_capture(&udp, &mut out);
        assert_eq!(out, b"abc");
        store.on_leave(&udp, &mut out);
        assert_eq!(out, b"abc");
        store.on_leave(&udp, &mut out);
        assert_eq!(
            store.stats.datagrams_unknown, 1,
            "left twice: the second unknown"
        );
        udp.id = PacketId(6);
        store.on_enter(SimTime::ZERO, &udp, b"xyz");
        udp.id = PacketId(7);
        store.on_enter(SimTime::ZERO + DATAGRAM_TTL, &udp, b"xyz");
        assert_eq!(store.stats.datagrams_expired, 1);
    }
}
