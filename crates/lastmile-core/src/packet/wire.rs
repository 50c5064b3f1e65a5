//! The wire format of the packets lastmile models: IPv4 datagrams carrying TCP or UDP, read
//! from real bytes (`parse_ipv4`) and written back (`encode_ipv4_with_payload`), with their
//! checksums. Pure functions, no I/O: the pcap writer (`metrics::pcap`) and the emulator's
//! external ports (`sim::external`) both use them.
//!
//! Formats: RFC 791 (IPv4; DF set on what we write, no fragmentation, no IP options), RFC
//! 9293 (TCP header, MSS option), RFC 7323 (window scale and timestamps), RFC 2018 (SACK-
//! permitted and SACK blocks; D-SACK blocks of RFC 2883 are ordinary blocks on the wire),
//! RFC 3168 (the IP header's ECN field; the TCP flags ECE and CWR), RFC 768 (UDP) and RFC 1071
//! (the Internet checksum). Options are written as MSS, SACK-permitted, timestamps, window
//! scale, SACK, back to back, with the NOPs that pad them to `TcpOptions::encoded_len()` in
//! front (a lone timestamp option reads NOP NOP TS, as Linux sends it). Linux aligns SACK
//! blocks beside timestamps behind two more NOPs; the model packs them (`TcpOptions::
//! encoded_len`), so such an ACK read here is 4 bytes shorter than Linux wrote it.
//!
//! **What a parse keeps and what it drops** (`Parsed::dropped` counts the latter):
//! - IPv4: addresses, protocol, TTL, identification, total length, the ECN field. Dropped:
//!   DSCP, IP options (a header longer than 20 bytes is read past them). A fragment is
//!   refused (`WireError::Fragment`): nothing lastmile models sends one.
//! - TCP: ports, sequence and acknowledgment numbers, the ACK flag (as `ack: Some`), one
//!   of SYN / FIN / RST / PSH as `Control` (SYN, FIN and RST outrank PSH, which is dropped
//!   beside them), ECE, CWR, the window field **as sent** (unscaled: the caller scales it,
//!   `metrics::pcap::WindowShifts`), the options MSS, window scale, SACK-permitted,
//!   timestamps and up to four SACK blocks. Dropped: URG and the urgent pointer, the AE /
//!   NS bit, options of any other kind (40 bytes of options hold at most four SACK blocks).
//! - UDP: ports and payload length; the payload bytes are returned beside the header.
//!
//! Any other protocol (ICMP, ...) or IP version (IPv6) is refused with its number, so that
//! the caller can count what it does not carry.

use super::{
    Control, Ecn, Ipv4Addr, Ipv4Header, Packet, SeqNumber, TcpHeader, TcpOptions, TcpSegment,
    Transport, UdpDatagram, IPV4_HEADER_LEN, PROTO_TCP, PROTO_UDP, UDP_HEADER_LEN,
};

/// The largest datagram IPv4 can describe.
pub const SNAPLEN: u32 = 65_535;

// TCP header flag bits (RFC 9293 §3.1, RFC 3168 §23.2).
pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const ACK: u8 = 0x10;
pub const URG: u8 = 0x20;
pub const ECE: u8 = 0x40;
pub const CWR: u8 = 0x80;

// TCP option kinds.
pub(crate) const OPT_EOL: u8 = 0;
pub(crate) const OPT_NOP: u8 = 1;
pub(crate) const OPT_MSS: u8 = 2; // RFC 9293 §3.2
pub(crate) const OPT_WINDOW_SCALE: u8 = 3; // RFC 7323 §2.2
pub(crate) const OPT_SACK_PERMITTED: u8 = 4; // RFC 2018 §2
pub(crate) const OPT_SACK: u8 = 5; // RFC 2018 §3
pub(crate) const OPT_TIMESTAMP: u8 = 8; // RFC 7323 §3.2

/// IPv4 "don't fragment" and "more fragments" flags, and the offset mask (RFC 791).
const DONT_FRAGMENT: u16 = 0x4000;
const MORE_FRAGMENTS: u16 = 0x2000;
const FRAGMENT_OFFSET: u16 = 0x1fff;

/// Why bytes are not a datagram lastmile carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("{0} bytes: shorter than the headers it announces")]
    Truncated(usize),
    #[error("IP version {0}, not 4")]
    Version(u8),
    #[error("IP protocol {0}: neither TCP nor UDP")]
    Protocol(u8),
    #[error("an IP fragment")]
    Fragment,
    #[error("the IPv4 header checksum does not verify")]
    HeaderChecksum,
    #[error("the TCP or UDP checksum does not verify")]
    TransportChecksum,
    #[error("malformed TCP options")]
    Options,
}

/// What a parse left out, counted (module notes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    /// IP options (a header longer than 20 bytes).
    pub ip_options: bool,
    /// TCP flags the model does not carry: URG, AE, or PSH beside SYN, FIN or RST.
    pub tcp_flags: bool,
    /// TCP options of kinds the model does not carry.
    pub tcp_options: u32,
}

/// A datagram read from bytes: the packet's headers (its `id`, `origin_time`, `flow` and
/// `service` are left at defaults for the caller to set), the payload bytes and what was
/// dropped. A TCP header's `window` is the 16-bit field as sent, not scaled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed<'a> {
    pub packet: Packet,
    pub payload: &'a [u8],
    pub dropped: Dropped,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Reads the IPv4 datagram in `bytes` (exactly one datagram, as a TUN device gives it;
/// trailing bytes beyond the total length are ignored). Checksums are verified.
pub fn parse_ipv4(bytes: &[u8]) -> Result<Parsed<'_>, WireError> {
    let first = *bytes.first().ok_or(WireError::Truncated(0))?;
    if first >> 4 != 4 {
        return Err(WireError::Version(first >> 4));
    }
    let ihl = usize::from(first & 0x0f) * 4;
    if ihl < IPV4_HEADER_LEN as usize || bytes.len() < ihl {
        return Err(WireError::Truncated(bytes.len()));
    }
    let total_len = usize::from(be16(bytes, 2));
    if total_len < ihl || bytes.len() < total_len {
        return Err(WireError::Truncated(bytes.len()));
    }
    if internet_checksum(&bytes[..ihl]) != 0 {
        return Err(WireError::HeaderChecksum);
    }
    let fragment = be16(bytes, 6);
    if fragment & (MORE_FRAGMENTS | FRAGMENT_OFFSET) != 0 {
        return Err(WireError::Fragment);
    }
    let protocol = bytes[9];
    let ip = Ipv4Header {
        src: Ipv4Addr(be32(bytes, 12)),
        dst: Ipv4Addr(be32(bytes, 16)),
        protocol,
        ttl: bytes[8],
        total_len: 0,
        ident: be16(bytes, 4),
        ecn: match bytes[1] & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        },
    };
    let mut dropped = Dropped {
        ip_options: ihl > IPV4_HEADER_LEN as usize,
        ..Dropped::default()
    };
    let segment = &bytes[ihl..total_len];
    let pseudo = pseudo_header_sum(ip.src.octets(), ip.dst.octets(), protocol, segment.len());
    let (transport, payload) = match protocol {
        PROTO_TCP => {
            if fold(ones_complement_sum(segment, pseudo)) != 0xffff {
                return Err(WireError::TransportChecksum);
            }
            parse_tcp(segment, &mut dropped)?
        }
        PROTO_UDP => {
            if segment.len() < UDP_HEADER_LEN as usize {
                return Err(WireError::Truncated(bytes.len()));
            }
            let udp_len = usize::from(be16(segment, 4));
            if udp_len < UDP_HEADER_LEN as usize || udp_len > segment.len() {
                return Err(WireError::Truncated(bytes.len()));
            }
            // RFC 768: a checksum of zero means none was computed.
            let segment = &segment[..udp_len];
            if be16(segment, 6) != 0 && fold(ones_complement_sum(segment, pseudo)) != 0xffff {
                return Err(WireError::TransportChecksum);
            }
            let payload = &segment[UDP_HEADER_LEN as usize..];
            let datagram = UdpDatagram {
                src_port: be16(segment, 0),
                dst_port: be16(segment, 2),
                payload_len: payload.len() as u32,
            };
            (Transport::Udp(datagram), payload)
        }
        other => return Err(WireError::Protocol(other)),
    };
    let mut packet = Packet {
        id: Default::default(),
        origin_time: Default::default(),
        ip,
        transport,
        flow: Default::default(),
        service: Default::default(),
    };
    packet.fix_length();
    Ok(Parsed {
        packet,
        payload,
        dropped,
    })
}

/// The TCP header of `segment` (checksum already verified) and its payload.
fn parse_tcp<'a>(
    segment: &'a [u8],
    dropped: &mut Dropped,
) -> Result<(Transport, &'a [u8]), WireError> {
    if segment.len() < 20 {
        return Err(WireError::Truncated(segment.len()));
    }
    let data_offset = usize::from(segment[12] >> 4) * 4;
    if data_offset < 20 || data_offset > segment.len() {
        return Err(WireError::Truncated(segment.len()));
    }
    let flags = segment[13];
    let control = if flags & RST != 0 {
        Control::Rst
    } else if flags & SYN != 0 {
        Control::Syn
    } else if flags & FIN != 0 {
        Control::Fin
    } else if flags & PSH != 0 {
        Control::Psh
    } else {
        Control::None
    };
    let pshless = matches!(control, Control::Rst | Control::Syn | Control::Fin);
    dropped.tcp_flags =
        flags & URG != 0 || segment[12] & 0x01 != 0 || (pshless && flags & PSH != 0);
    let options = parse_tcp_options(&segment[20..data_offset], dropped)?;
    let header = TcpHeader {
        src_port: be16(segment, 0),
        dst_port: be16(segment, 2),
        seq: SeqNumber(be32(segment, 4)),
        ack: (flags & ACK != 0).then(|| SeqNumber(be32(segment, 8))),
        control,
        window: u32::from(be16(segment, 14)),
        options,
        ece: flags & ECE != 0,
        cwr: flags & CWR != 0,
        sender_in_slow_start: false,
    };
    let payload = &segment[data_offset..];
    let seg = TcpSegment {
        header,
        payload_len: payload.len() as u32,
    };
    Ok((Transport::Tcp(seg), payload))
}

/// The options the model carries; others are skipped by their length and counted.
fn parse_tcp_options(mut bytes: &[u8], dropped: &mut Dropped) -> Result<TcpOptions, WireError> {
    let mut o = TcpOptions::default();
    while let Some(&kind) = bytes.first() {
        match kind {
            OPT_EOL => break,
            OPT_NOP => {
                bytes = &bytes[1..];
                continue;
            }
            _ => {}
        }
        let len = usize::from(*bytes.get(1).ok_or(WireError::Options)?);
        if len < 2 || len > bytes.len() {
            return Err(WireError::Options);
        }
        let v = &bytes[2..len];
        match (kind, len) {
            (OPT_MSS, 4) => o.mss = Some(be16(v, 0)),
            (OPT_WINDOW_SCALE, 3) => o.window_scale = Some(v[0]),
            (OPT_SACK_PERMITTED, 2) => o.sack_permitted = true,
            (OPT_TIMESTAMP, 10) => o.timestamp = Some((be32(v, 0), be32(v, 4))),
            (OPT_SACK, _) if (len - 2) % 8 == 0 => {
                for b in v.chunks_exact(8) {
                    if !o
                        .sack_blocks
                        .push((SeqNumber(be32(b, 0)), SeqNumber(be32(b, 4))))
                    {
                        dropped.tcp_options += 1;
                    }
                }
            }
            (OPT_MSS | OPT_WINDOW_SCALE | OPT_SACK_PERMITTED | OPT_TIMESTAMP | OPT_SACK, _) => {
                return Err(WireError::Options)
            }
            _ => dropped.tcp_options += 1,
        }
        bytes = &bytes[len..];
    }
    Ok(o)
}

/// The full IPv4 datagram of `packet`, payload as zero bytes, with the TCP window clamped
/// to 65535 (no window scaling known).
pub fn encode_ipv4(packet: &Packet) -> Vec<u8> {
    encode_ipv4_with_payload(packet, 0, &[])
}

/// As `encode_ipv4`, with the TCP window field carrying `window >> window_shift` (except
/// in a SYN, whose window is never scaled).
pub fn encode_ipv4_with_window_shift(packet: &Packet, window_shift: u8) -> Vec<u8> {
    encode_ipv4_with_payload(packet, window_shift, &[])
}

/// The datagram of `packet` carrying `payload` as its transport payload: the first
/// `packet.payload_len()` bytes of it, zeros beyond its end. The packet should satisfy
/// `Packet::fix_length`. WTP and WTCP-Sinha packets are written as the UDP datagrams they
/// travel in, their headers as zeros.
pub fn encode_ipv4_with_payload(packet: &Packet, window_shift: u8, payload: &[u8]) -> Vec<u8> {
    let (src, dst) = (packet.ip.src.octets(), packet.ip.dst.octets());
    let total = packet.ip.total_len.min(SNAPLEN) as usize;
    let mut out = Vec::with_capacity(total.max(IPV4_HEADER_LEN as usize));
    // Version 4, IHL 5; DSCP 0 and the ECN field (RFC 3168 §5) in the low two bits.
    out.extend_from_slice(&[0x45, packet.ip.ecn.bits()]);
    out.extend_from_slice(&(total as u16).to_be_bytes());
    out.extend_from_slice(&packet.ip.ident.to_be_bytes());
    out.extend_from_slice(&DONT_FRAGMENT.to_be_bytes());
    out.extend_from_slice(&[packet.ip.ttl, packet.ip.protocol, 0, 0]);
    out.extend_from_slice(&src);
    out.extend_from_slice(&dst);
    let checksum = internet_checksum(&out);
    out[10..12].copy_from_slice(&checksum.to_be_bytes());
    let start = out.len();
    let (protocol, payload_len) = match &packet.transport {
        Transport::Tcp(segment) => {
            encode_tcp_header(&mut out, segment, window_shift);
            (PROTO_TCP, segment.payload_len)
        }
        other => {
            let datagram = other.as_udp().expect("not TCP");
            encode_udp_header(&mut out, &datagram);
            (PROTO_UDP, datagram.payload_len)
        }
    };
    let take = payload.len().min(payload_len as usize);
    out.extend_from_slice(&payload[..take]);
    out.resize(out.len() + payload_len as usize - take, 0);
    let checksum_at = start + if protocol == PROTO_TCP { 16 } else { 6 };
    let checksum = transport_checksum(src, dst, protocol, &out[start..]);
    // RFC 768: a computed UDP checksum of zero is sent as all ones (zero means "none").
    let checksum = if protocol == PROTO_UDP && checksum == 0 {
        0xffff
    } else {
        checksum
    };
    out[checksum_at..checksum_at + 2].copy_from_slice(&checksum.to_be_bytes());
    out
}

/// Rewrites the transport payload of `datagram` (as `encode_ipv4_with_payload` wrote it)
/// with `payload` at byte `at` of the payload, and fixes the transport checksum.
pub fn write_payload(datagram: &mut [u8], at: usize, payload: &[u8]) {
    let ihl = usize::from(datagram[0] & 0x0f) * 4;
    let protocol = datagram[9];
    let header_len = match protocol {
        PROTO_TCP => usize::from(datagram[ihl + 12] >> 4) * 4,
        _ => UDP_HEADER_LEN as usize,
    };
    let begin = (ihl + header_len + at).min(datagram.len());
    let end = (begin + payload.len()).min(datagram.len());
    datagram[begin..end].copy_from_slice(&payload[..end - begin]);
    let checksum_at = ihl + if protocol == PROTO_TCP { 16 } else { 6 };
    datagram[checksum_at..checksum_at + 2].copy_from_slice(&[0, 0]);
    let mut src = [0u8; 4];
    let mut dst = [0u8; 4];
    src.copy_from_slice(&datagram[12..16]);
    dst.copy_from_slice(&datagram[16..20]);
    let checksum = transport_checksum(src, dst, protocol, &datagram[ihl..]);
    let checksum = if protocol == PROTO_UDP && checksum == 0 {
        0xffff
    } else {
        checksum
    };
    datagram[checksum_at..checksum_at + 2].copy_from_slice(&checksum.to_be_bytes());
}

/// The RFC 1071 Internet checksum of `data`: the one's complement of the one's complement
/// sum of its 16-bit big-endian words (an odd last byte padded with zero).
pub fn internet_checksum(data: &[u8]) -> u16 {
    !fold(ones_complement_sum(data, 0))
}

/// Adds `data`'s 16-bit words to `sum` (unfolded; fine for any datagram IPv4 can carry).
pub(crate) fn ones_complement_sum(data: &[u8], mut sum: u64) -> u64 {
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u64::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u64::from(*last) << 8;
    }
    sum
}

pub(crate) fn fold(mut sum: u64) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

fn pseudo_header_sum(src: [u8; 4], dst: [u8; 4], protocol: u8, len: usize) -> u64 {
    let mut pseudo = [0u8; 12];
    pseudo[0..4].copy_from_slice(&src);
    pseudo[4..8].copy_from_slice(&dst);
    pseudo[9] = protocol;
    pseudo[10..12].copy_from_slice(&(len.min(SNAPLEN as usize) as u16).to_be_bytes());
    ones_complement_sum(&pseudo, 0)
}

/// The transport checksum (RFC 9293 §3.1, RFC 768) of `segment` (header with a zero
/// checksum field, and payload) under the pseudo-header.
fn transport_checksum(src: [u8; 4], dst: [u8; 4], protocol: u8, segment: &[u8]) -> u16 {
    let pseudo = pseudo_header_sum(src, dst, protocol, segment.len());
    !fold(ones_complement_sum(segment, pseudo))
}

/// The flag byte of `h`.
pub fn tcp_flags(h: &TcpHeader) -> u8 {
    let control = match h.control {
        Control::None => 0,
        Control::Psh => PSH,
        Control::Syn => SYN,
        Control::Fin => FIN,
        Control::Rst => RST,
    };
    let ack = if h.ack.is_some() { ACK } else { 0 };
    let ece = if h.ece { ECE } else { 0 };
    let cwr = if h.cwr { CWR } else { 0 };
    control | ack | ece | cwr
}

fn encode_tcp_header(out: &mut Vec<u8>, segment: &TcpSegment, window_shift: u8) {
    let h = &segment.header;
    let options = encode_tcp_options(&h.options);
    let header_len = 20 + options.len();
    let window = if h.control == Control::Syn {
        h.window
    } else {
        h.window >> window_shift.min(14)
    };
    out.extend_from_slice(&h.src_port.to_be_bytes());
    out.extend_from_slice(&h.dst_port.to_be_bytes());
    out.extend_from_slice(&h.seq.0.to_be_bytes());
    out.extend_from_slice(&h.ack.map_or(0, |a| a.0).to_be_bytes());
    out.push(((header_len / 4).min(15) as u8) << 4);
    out.push(tcp_flags(h));
    out.extend_from_slice(&(window.min(65_535) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    out.extend_from_slice(&options);
}

/// The options of `options`, padded with leading NOPs to `options.encoded_len()` bytes.
pub fn encode_tcp_options(options: &TcpOptions) -> Vec<u8> {
    let mut body = Vec::with_capacity(40);
    if let Some(mss) = options.mss {
        body.extend_from_slice(&[OPT_MSS, 4]);
        body.extend_from_slice(&mss.to_be_bytes());
    }
    if options.sack_permitted {
        body.extend_from_slice(&[OPT_SACK_PERMITTED, 2]);
    }
    if let Some((tsval, tsecr)) = options.timestamp {
        body.extend_from_slice(&[OPT_TIMESTAMP, 10]);
        body.extend_from_slice(&tsval.to_be_bytes());
        body.extend_from_slice(&tsecr.to_be_bytes());
    }
    if let Some(shift) = options.window_scale {
        body.extend_from_slice(&[OPT_WINDOW_SCALE, 3, shift]);
    }
    let blocks = options.sack_blocks.as_slice();
    if !blocks.is_empty() {
        body.extend_from_slice(&[OPT_SACK, (2 + 8 * blocks.len()) as u8]);
        for (left, right) in blocks {
            body.extend_from_slice(&left.0.to_be_bytes());
            body.extend_from_slice(&right.0.to_be_bytes());
        }
    }
    let padded = (options.encoded_len() as usize).max(body.len());
    let mut out = vec![OPT_NOP; padded - body.len()];
    out.extend_from_slice(&body);
    out
}

fn encode_udp_header(out: &mut Vec<u8>, datagram: &UdpDatagram) {
    let len = UDP_HEADER_LEN + datagram.payload_len;
    out.extend_from_slice(&datagram.src_port.to_be_bytes());
    out.extend_from_slice(&datagram.dst_port.to_be_bytes());
    out.extend_from_slice(&(len.min(SNAPLEN) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]);
}

#[cfg(test)]
mod tests;
