//! Packets as plain header structs (RFC 791 IPv4 with the RFC 3168 ECN field, RFC 9293 TCP
//! with RFC 2018 SACK and RFC 3168 ECE/CWR, RFC 768 UDP, and the WTP PDUs (`wtp`) and WTCP-Sinha
//! packets (`wtcp_sinha`) the transports of `transport` exchange, each carried in a UDP
//! datagram); payload bytes are never stored, only
//! their length (the emulator keeps real bytes beside the simulation, `sim::external`;
//! `wire` reads and writes the wire format). Each packet carries an id for tracing, the time
//! its data was first sent (for per-packet delay) and simulation metadata (the flow it
//! belongs to, the link-layer service it needs) that protocols must not read.

pub mod seq;
pub mod wire;
pub mod wtcp_sinha;
pub mod wtp;

pub use seq::SeqNumber;
pub use wtcp_sinha::WtcpSegment;
pub use wtp::WtpPdu;

use crate::engine::SimTime;
use crate::ids::FlowId;

/// An IPv4 address.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ipv4Addr(pub u32);

impl Ipv4Addr {
    /// Node `i` of a scenario gets 10.0.x.y, counting from 10.0.0.1.
    pub fn for_node(index: u32) -> Self {
        Ipv4Addr(0x0A00_0001 + index)
    }
    pub fn octets(self) -> [u8; 4] {
        self.0.to_be_bytes()
    }
}

impl std::fmt::Display for Ipv4Addr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let o = self.octets();
        write!(f, "{}.{}.{}.{}", o[0], o[1], o[2], o[3])
    }
}

pub const IPV4_HEADER_LEN: u32 = 20;
pub const TCP_HEADER_LEN: u32 = 20;
pub const UDP_HEADER_LEN: u32 = 8;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;
pub const DEFAULT_TTL: u8 = 64;

/// The ECN field of the IP header (RFC 3168 §5): the two low bits of the old TOS byte.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    /// 00: the transport is not ECN-capable.
    #[default]
    NotEct,
    /// 10: ECN-capable transport, codepoint ECT(0) (what an RFC 3168 sender sets).
    Ect0,
    /// 01: ECT(1).
    Ect1,
    /// 11: congestion experienced, set by a router instead of dropping.
    Ce,
}

impl Ecn {
    /// The two-bit codepoint as it sits in the IP header (RFC 3168 §5).
    pub fn bits(self) -> u8 {
        match self {
            Ecn::NotEct => 0b00,
            Ecn::Ect1 => 0b01,
            Ecn::Ect0 => 0b10,
            Ecn::Ce => 0b11,
        }
    }
    /// True for ECT(0), ECT(1) and CE: a router may mark rather than drop.
    pub fn is_ecn_capable(self) -> bool {
        self != Ecn::NotEct
    }
}

/// The IPv4 header fields lastmile uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Header {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub protocol: u8,
    pub ttl: u8,
    /// Total length: header, transport header and payload, in bytes.
    pub total_len: u32,
    pub ident: u16,
    /// The ECN field (RFC 3168 §5).
    pub ecn: Ecn,
}

/// The one control flag a TCP segment may carry besides ACK (smoltcp's `Control`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Control {
    #[default]
    None,
    Psh,
    Syn,
    Fin,
    Rst,
}

/// A SACK block: the left edge and the right edge (exclusive), RFC 2018.
pub type SackBlock = (SeqNumber, SeqNumber);

/// The blocks of one SACK option, in the order they are sent: at most four fit in the
/// 40 bytes of option space (RFC 2018 §3: 2 + 8·n bytes), three beside timestamps.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct SackBlocks {
    len: u8,
    blocks: [SackBlock; SackBlocks::MAX],
}

impl SackBlocks {
    /// Four blocks fill the option space without other options (RFC 2018 §3).
    pub const MAX: usize = 4;

    /// The blocks of `blocks`, at most `MAX` of them.
    pub fn from_slice(blocks: &[SackBlock]) -> Self {
        let mut s = SackBlocks::default();
        for &b in blocks.iter().take(Self::MAX) {
            s.push(b);
        }
        s
    }
    /// Appends a block; false if the option is full.
    pub fn push(&mut self, block: SackBlock) -> bool {
        let n = usize::from(self.len);
        if n >= Self::MAX {
            return false;
        }
        self.blocks[n] = block;
        self.len += 1;
        true
    }
    pub fn as_slice(&self) -> &[SackBlock] {
        &self.blocks[..usize::from(self.len)]
    }
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// An explicit notification from the network about the wireless hop (Pentikousis §2.4.4.4;
/// `agents/eln.rs`, `agents/ebsn.rs`). Simulation only: it costs no option bytes (ELN sits in
/// a reserved header bit in Balakrishnan & Katz's design; EBSN is a message of its own), and
/// the pcap writer leaves it out.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ExplicitNotice {
    #[default]
    None,
    /// Explicit Loss Notification on an ACK: the segment it asks for was lost to corruption
    /// on the wireless hop, not to congestion.
    LossNotification,
    /// Explicit Bad State Notification (Bakshi et al.): a message from the base station
    /// saying its attempts to reach the mobile are failing; no ACK, no data.
    BadState,
}

/// TCP options (RFC 9293 MSS, RFC 7323 window scale and timestamps, RFC 2018 SACK), and the
/// explicit notifications of the wireless hop.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    /// (TSval, TSecr).
    pub timestamp: Option<(u32, u32)>,
    pub sack_blocks: SackBlocks,
    /// ELN or EBSN (`ExplicitNotice`); no bytes on the wire.
    pub notice: ExplicitNotice,
}

impl TcpOptions {
    /// The encoded length of the options, padded to a multiple of 4 bytes.
    pub fn encoded_len(&self) -> u32 {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.window_scale.is_some() {
            n += 3;
        }
        if self.sack_permitted {
            n += 2;
        }
        if self.timestamp.is_some() {
            n += 10;
        }
        let blocks = self.sack_blocks.len() as u32;
        if blocks > 0 {
            n += 2 + 8 * blocks;
        }
        n.div_ceil(4) * 4
    }
}

/// A TCP header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TcpHeader {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: SeqNumber,
    /// The acknowledgment number; `Some` means the ACK flag is set.
    pub ack: Option<SeqNumber>,
    pub control: Control,
    /// The advertised window, already scaled (bytes).
    pub window: u32,
    pub options: TcpOptions,
    /// ECN-Echo and Congestion Window Reduced (RFC 3168 §6.1).
    pub ece: bool,
    pub cwr: bool,
    /// Simulation only, never on the wire (the pcap writer ignores it): the sender was in
    /// slow start when it sent this segment. A receiver with `ack = "daass"` reads it, as
    /// Allman's DAASS (CCR 28(5), 1998) has the receiver know the sender's state.
    pub sender_in_slow_start: bool,
}

impl TcpHeader {
    pub fn header_len(&self) -> u32 {
        TCP_HEADER_LEN + self.options.encoded_len()
    }
}

/// A TCP segment: header and payload length.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TcpSegment {
    pub header: TcpHeader,
    pub payload_len: u32,
}

impl TcpSegment {
    /// The sequence space the segment occupies (payload plus SYN and FIN).
    pub fn seq_len(&self) -> u32 {
        let flag = matches!(self.header.control, Control::Syn | Control::Fin) as u32;
        self.payload_len + flag
    }
    /// A segment with no payload and no SYN/FIN: a pure ACK (or RST).
    pub fn is_pure_ack(&self) -> bool {
        self.seq_len() == 0 && self.header.control != Control::Rst
    }
}

/// A UDP datagram.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct UdpDatagram {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload_len: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp(TcpSegment),
    Udp(UdpDatagram),
    /// A WTP PDU in a UDP datagram (WAP over IP bearers, survey §2.3).
    Wtp(WtpPdu),
    /// A WTCP-Sinha packet in a UDP datagram.
    WtcpSinha(WtcpSegment),
}

impl Transport {
    /// The UDP datagram a WTP or WTCP-Sinha packet travels in (its headers counted as
    /// payload), or the UDP datagram itself; `None` for TCP.
    pub fn as_udp(&self) -> Option<UdpDatagram> {
        match self {
            Transport::Tcp(_) => None,
            Transport::Udp(u) => Some(*u),
            Transport::Wtp(p) => Some(UdpDatagram {
                src_port: p.src_port,
                dst_port: p.dst_port,
                payload_len: p.datagram_len() - UDP_HEADER_LEN,
            }),
            Transport::WtcpSinha(s) => Some(UdpDatagram {
                src_port: s.src_port,
                dst_port: s.dst_port,
                payload_len: s.datagram_len() - UDP_HEADER_LEN,
            }),
        }
    }

    /// (source port, destination port).
    pub fn ports(&self) -> (u16, u16) {
        match self {
            Transport::Tcp(s) => (s.header.src_port, s.header.dst_port),
            Transport::Udp(u) => (u.src_port, u.dst_port),
            Transport::Wtp(p) => (p.src_port, p.dst_port),
            Transport::WtcpSinha(s) => (s.src_port, s.dst_port),
        }
    }
}

/// The link-layer service a packet needs (TULIP §3: the network layer marks it; the link
/// layer never parses TCP).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Service {
    /// TCP data: delivered reliably by an ARQ link layer.
    Reliable,
    /// Pure TCP ACKs, UDP, link-layer control: best effort.
    #[default]
    Unreliable,
}

/// A unique packet id, for traces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PacketId(pub u64);

/// A packet in flight: headers plus simulation metadata.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    pub id: PacketId,
    /// When the source first sent the data this packet carries (retransmissions keep it).
    pub origin_time: SimTime,
    pub ip: Ipv4Header,
    pub transport: Transport,
    /// Metadata for metrics and traces only; protocols read headers, not this.
    pub flow: FlowId,
    pub service: Service,
}

impl Packet {
    /// The IP datagram size in bytes (what crosses a link, before link-layer overhead).
    pub fn size_bytes(&self) -> u32 {
        self.ip.total_len
    }
    pub fn tcp(&self) -> Option<&TcpSegment> {
        match &self.transport {
            Transport::Tcp(s) => Some(s),
            _ => None,
        }
    }
    pub fn tcp_mut(&mut self) -> Option<&mut TcpSegment> {
        match &mut self.transport {
            Transport::Tcp(s) => Some(s),
            _ => None,
        }
    }
    /// Payload bytes of the transport (TCP data, UDP payload, WTP user data, WTCP-Sinha
    /// data).
    pub fn payload_len(&self) -> u32 {
        match &self.transport {
            Transport::Tcp(s) => s.payload_len,
            Transport::Udp(u) => u.payload_len,
            Transport::Wtp(p) => p.payload_len(),
            Transport::WtcpSinha(s) => s.payload_len(),
        }
    }
    /// True for a packet carrying transport payload.
    pub fn is_data(&self) -> bool {
        self.payload_len() > 0
    }
    /// Recomputes `ip.total_len` from the headers and payload.
    pub fn fix_length(&mut self) {
        self.ip.total_len = IPV4_HEADER_LEN
            + match &self.transport {
                Transport::Tcp(s) => s.header.header_len() + s.payload_len,
                Transport::Udp(u) => UDP_HEADER_LEN + u.payload_len,
                Transport::Wtp(p) => p.datagram_len(),
                Transport::WtcpSinha(s) => s.datagram_len(),
            };
    }
}

/// A UDP datagram of `bytes` from node 0 to node 1 for the link layers' and the cell's
/// tests (none of them looks inside it).
#[cfg(test)]
pub(crate) fn test_datagram(id: u64, bytes: u32) -> Packet {
    Packet {
        id: PacketId(id),
        origin_time: SimTime::ZERO,
        ip: Ipv4Header {
            src: Ipv4Addr::for_node(0),
            dst: Ipv4Addr::for_node(1),
            protocol: 17,
            ttl: 64,
            total_len: bytes,
            ident: 0,
            ecn: Ecn::NotEct,
        },
        transport: Transport::Udp(UdpDatagram {
            src_port: 1,
            dst_port: 2,
            payload_len: bytes.saturating_sub(28),
        }),
        flow: FlowId(0),
        service: Service::Reliable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wide_area_transports_do_not_make_a_packet_larger() {
        // Packets are copied by value through the arena and the agents' outboxes.
        assert!(std::mem::size_of::<WtpPdu>() <= std::mem::size_of::<TcpSegment>());
        assert!(std::mem::size_of::<WtcpSegment>() <= std::mem::size_of::<TcpSegment>());
    }

    #[test]
    fn option_lengths_pad_to_four_bytes() {
        let mut o = TcpOptions {
            mss: Some(1400),
            ..Default::default()
        };
        assert_eq!(o.encoded_len(), 4);
        o.timestamp = Some((1, 2));
        assert_eq!(o.encoded_len(), 16);
        o.sack_permitted = true;
        o.window_scale = Some(7);
        assert_eq!(o.encoded_len(), 20);
    }

    #[test]
    fn rfc2018_three_blocks_fit_beside_timestamps_and_four_alone() {
        let block = |i: u32| (SeqNumber(i * 100), SeqNumber(i * 100 + 50));
        let four = SackBlocks::from_slice(&[block(1), block(2), block(3), block(4), block(5)]);
        assert_eq!(four.len(), SackBlocks::MAX, "a fifth block does not fit");
        let alone = TcpOptions {
            sack_blocks: four,
            ..Default::default()
        };
        assert_eq!(alone.encoded_len(), 36, "2 + 4 * 8 = 34, padded");
        let with_ts = TcpOptions {
            timestamp: Some((1, 2)),
            sack_blocks: SackBlocks::from_slice(&[block(1), block(2), block(3)]),
            ..Default::default()
        };
        assert_eq!(with_ts.encoded_len(), 36, "10 + 2 + 3 * 8 of the 40 bytes");
        // A fourth block would need 10 + 2 + 4 * 8 = 44 > 40 bytes.
    }
}
