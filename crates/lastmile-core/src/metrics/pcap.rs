//! Packet capture of simulated frames, for Wireshark and tshark.
//!
//! Files are pcapng ([`pcapng`]): one interface per file, nanosecond timestamps, and per
//! frame an optional comment and flags, so that a frame lost on the air is marked (the
//! "CRC error" flag and a comment saying where and why) rather than looking delivered. A
//! point-to-point link is captured with link type 101 (LINKTYPE_RAW: each record a bare
//! IPv4 datagram); a wireless cell as IEEE 802.11 behind radiotap ([`dot11`]), MAC control
//! frames included. The simulator stores no payload, so every datagram is rebuilt from its
//! headers with zero payload bytes: the captured length equals the original length and
//! every checksum verifies.
//!
//! The wire formats follow RFC 791 (IPv4: IHL 5, DF set, no fragmentation, no options),
//! RFC 9293 (TCP header, MSS option, padding), RFC 7323 (window scale and timestamps),
//! RFC 2018 (SACK-permitted and SACK blocks, D-SACK blocks of RFC 2883 being ordinary
//! blocks on the wire), RFC 3168 (the IP header's ECN field: ECT(0), ECT(1), CE; the TCP
//! flags ECE and CWR), RFC 768 (UDP) and RFC 1071 (the Internet checksum). Options are laid out as MSS, SACK-permitted, timestamps, window
//! scale, SACK, back to back, with the NOPs that pad them to `TcpOptions::encoded_len()`
//! placed in front (so a lone timestamp option reads NOP NOP TS, as Linux sends it); the
//! IP total length is then exactly `packet.ip.total_len`.
//!
//! Windows: `TcpHeader::window` holds the window in bytes, already scaled. The 16-bit field
//! carries `window >> shift`, clamped to 65535, where the shift is the one the sender
//! announced in its SYN, once both ends' SYNs carried the window-scale option (RFC 7323
//! §2.2-2.3); the window of a SYN is never scaled. [`WindowShifts`] learns the shifts from
//! the SYNs a capture writes. `encode_ipv4` alone knows no handshake and clamps; a capture
//! that starts after the handshake does the same. Wireshark applies the same rule, so its
//! "calculated window size" matches the simulator's window up to the scaling granularity.
//!
//! Left out: IP options, the urgent pointer, and payload contents.

pub mod dot11;
pub mod pcapng;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::fresh_file::FreshFile;
use crate::engine::SimTime;
use crate::packet::{
    Control, Packet, TcpHeader, TcpOptions, TcpSegment, Transport, UdpDatagram, IPV4_HEADER_LEN,
    PROTO_TCP, PROTO_UDP, UDP_HEADER_LEN,
};

pub use pcapng::{Interface, Note, PcapngWriter, LINKTYPE_IEEE802_11_RADIOTAP, LINKTYPE_RAW};

/// The largest datagram IPv4 can describe.
const SNAPLEN: u32 = 65_535;

// TCP header flag bits (RFC 9293 §3.1, RFC 3168 §23.2).
const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const PSH: u8 = 0x08;
const ACK: u8 = 0x10;
const ECE: u8 = 0x40;
const CWR: u8 = 0x80;

// TCP option kinds.
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2; // RFC 9293 §3.2
const OPT_WINDOW_SCALE: u8 = 3; // RFC 7323 §2.2
const OPT_SACK_PERMITTED: u8 = 4; // RFC 2018 §2
const OPT_SACK: u8 = 5; // RFC 2018 §3
const OPT_TIMESTAMP: u8 = 8; // RFC 7323 §3.2

/// IPv4 "don't fragment" flag in the flags/fragment-offset word (RFC 791).
const DONT_FRAGMENT: u16 = 0x4000;

/// One direction of a TCP connection: (source address, source port, destination address,
/// destination port).
type Direction = (u32, u16, u32, u16);

/// The window-scale shift each sender announced in its SYN, learnt from the SYNs a
/// capture sees (RFC 7323 §2.2-2.3).
#[derive(Clone, Debug, Default)]
pub struct WindowShifts {
    announced_shift: BTreeMap<Direction, u8>,
}

impl WindowShifts {
    /// Records the shift a SYN announces, and returns the shift of `packet`'s window field.
    pub fn shift_for(&mut self, packet: &Packet) -> u8 {
        let Transport::Tcp(segment) = &packet.transport else {
            return 0;
        };
        let h = &segment.header;
        let dir = (packet.ip.src.0, h.src_port, packet.ip.dst.0, h.dst_port);
        if h.control == Control::Syn {
            match h.options.window_scale {
                // RFC 7323 §2.3: a shift above 14 is used as 14.
                Some(shift) => self.announced_shift.insert(dir, shift.min(14)),
                None => self.announced_shift.remove(&dir),
            };
            return 0;
        }
        let reverse = (dir.2, dir.3, dir.0, dir.1);
        match (
            self.announced_shift.get(&dir),
            self.announced_shift.get(&reverse),
        ) {
            (Some(&shift), Some(_)) => shift,
            _ => 0,
        }
    }

    /// The datagram of `packet` with its window scaled as the handshake announced.
    /// Refuses (with `InvalidInput`) a packet whose headers cannot be encoded as they are:
    /// a total length that disagrees with its headers and payload or exceeds 65535, TCP
    /// options over 40 bytes, or an IP protocol that disagrees with the transport.
    pub fn datagram(&mut self, packet: &Packet) -> io::Result<Vec<u8>> {
        check_encodable(packet).map_err(|why| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("packet {}: {why}", packet.id.0),
            )
        })?;
        let shift = self.shift_for(packet);
        Ok(encode_ipv4_with_window_shift(packet, shift))
    }
}

/// A capture file of one interface: a pcapng section whose records are written in order.
pub struct PcapWriter<W: Write = BufWriter<File>> {
    out: PcapngWriter<W>,
    shifts: WindowShifts,
}

impl PcapWriter<BufWriter<File>> {
    /// Creates a new file to take the place of `path` (`FreshFile`: nothing already at
    /// `path` is written through) and writes the headers; `FreshFile::commit` puts it in
    /// place once the capture is finished.
    pub fn create(path: &Path, interface: Interface) -> io::Result<(Self, FreshFile)> {
        let (file, fresh) = FreshFile::create(path)?;
        Ok((PcapWriter::new(BufWriter::new(file), interface)?, fresh))
    }
}

impl<W: Write> PcapWriter<W> {
    /// Writes the section and interface headers to `out` (a file, or a `Vec<u8>`).
    pub fn new(out: W, interface: Interface) -> io::Result<Self> {
        let application = format!("lastmile {}", env!("CARGO_PKG_VERSION"));
        Ok(PcapWriter {
            out: PcapngWriter::new(out, &application, &[interface])?,
            shifts: WindowShifts::default(),
        })
    }

    /// Appends `packet` as a bare IPv4 datagram (a LINKTYPE_RAW interface) seen at `time`.
    pub fn write(&mut self, time: SimTime, packet: &Packet) -> io::Result<()> {
        self.write_noted(time, packet, &Note::default())
    }

    /// As `write`, with a comment and flags.
    pub fn write_noted(&mut self, time: SimTime, packet: &Packet, note: &Note) -> io::Result<()> {
        let datagram = self.shifts.datagram(packet)?;
        self.out.write_packet(0, time, &datagram, note)
    }

    /// Appends an already encoded frame (e.g. from [`dot11`]).
    pub fn write_frame(&mut self, time: SimTime, frame: &[u8], note: &Note) -> io::Result<()> {
        self.out.write_packet(0, time, frame, note)
    }

    /// The window shifts learnt so far, for encoding a datagram inside another frame.
    pub fn shifts(&mut self) -> &mut WindowShifts {
        &mut self.shifts
    }

    /// Flushes and closes the capture.
    pub fn finish(self) -> io::Result<()> {
        self.into_inner().map(drop)
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(self) -> io::Result<W> {
        self.out.into_inner()
    }
}

/// Why `packet` cannot be written as it is, if it cannot.
fn check_encodable(packet: &Packet) -> Result<(), String> {
    let (protocol, transport_len) = match &packet.transport {
        Transport::Tcp(s) => {
            let options = s.header.options.encoded_len();
            if options > 40 {
                return Err(format!("{options} bytes of TCP options (at most 40 fit)"));
            }
            (PROTO_TCP, s.header.header_len() + s.payload_len)
        }
        other => {
            let u = other.as_udp().expect("not TCP");
            (PROTO_UDP, UDP_HEADER_LEN + u.payload_len)
        }
    };
    if packet.ip.protocol != protocol {
        return Err(format!(
            "IP protocol {} but a transport of protocol {protocol}",
            packet.ip.protocol
        ));
    }
    let total = IPV4_HEADER_LEN + transport_len;
    if packet.ip.total_len != total {
        return Err(format!(
            "ip.total_len {} but headers and payload make {total} (call Packet::fix_length)",
            packet.ip.total_len
        ));
    }
    if total > SNAPLEN {
        return Err(format!("{total} bytes, over the IPv4 limit of 65535"));
    }
    Ok(())
}

/// The full IPv4 datagram of `packet`, payload as zero bytes, with the TCP window clamped
/// to 65535 (no window scaling known).
pub fn encode_ipv4(packet: &Packet) -> Vec<u8> {
    encode_ipv4_with_window_shift(packet, 0)
}

/// As `encode_ipv4`, with the TCP window field carrying `window >> window_shift` (except
/// in a SYN, whose window is never scaled). The packet should satisfy
/// `Packet::fix_length`; `PcapWriter::write` checks that it does.
pub fn encode_ipv4_with_window_shift(packet: &Packet, window_shift: u8) -> Vec<u8> {
    let (src, dst) = (packet.ip.src.octets(), packet.ip.dst.octets());
    let transport = match &packet.transport {
        Transport::Tcp(segment) => encode_tcp(segment, window_shift, src, dst),
        other => {
            // WTP and WTCP-Sinha as the UDP datagrams they travel in (headers as zeros).
            let datagram = other.as_udp().expect("not TCP");
            encode_udp(&datagram, src, dst)
        }
    };
    let mut out = Vec::with_capacity(IPV4_HEADER_LEN as usize + transport.len());
    // Version 4, IHL 5; DSCP 0 and the ECN field (RFC 3168 §5) in the low two bits.
    out.extend_from_slice(&[0x45, packet.ip.ecn.bits()]);
    out.extend_from_slice(&(packet.ip.total_len.min(SNAPLEN) as u16).to_be_bytes());
    out.extend_from_slice(&packet.ip.ident.to_be_bytes());
    out.extend_from_slice(&DONT_FRAGMENT.to_be_bytes());
    out.extend_from_slice(&[packet.ip.ttl, packet.ip.protocol, 0, 0]);
    out.extend_from_slice(&src);
    out.extend_from_slice(&dst);
    let checksum = internet_checksum(&out);
    out[10..12].copy_from_slice(&checksum.to_be_bytes());
    out.extend_from_slice(&transport);
    out
}

/// The RFC 1071 Internet checksum of `data`: the one's complement of the one's complement
/// sum of its 16-bit big-endian words (an odd last byte padded with zero).
pub fn internet_checksum(data: &[u8]) -> u16 {
    !fold(ones_complement_sum(data, 0))
}

/// Adds `data`'s 16-bit words to `sum` (unfolded; fine for any datagram IPv4 can carry).
fn ones_complement_sum(data: &[u8], mut sum: u64) -> u64 {
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u64::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u64::from(*last) << 8;
    }
    sum
}

fn fold(mut sum: u64) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The transport checksum (RFC 9293 §3.1, RFC 768) over the pseudo-header and the
/// transport header; the zero payload adds nothing to the sum but counts in the length.
fn transport_checksum(src: [u8; 4], dst: [u8; 4], protocol: u8, header: &[u8], len: u32) -> u16 {
    let mut pseudo = [0u8; 12];
    pseudo[0..4].copy_from_slice(&src);
    pseudo[4..8].copy_from_slice(&dst);
    pseudo[9] = protocol;
    pseudo[10..12].copy_from_slice(&(len.min(SNAPLEN) as u16).to_be_bytes());
    !fold(ones_complement_sum(header, ones_complement_sum(&pseudo, 0)))
}

fn tcp_flags(h: &TcpHeader) -> u8 {
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

fn encode_tcp(segment: &TcpSegment, window_shift: u8, src: [u8; 4], dst: [u8; 4]) -> Vec<u8> {
    let h = &segment.header;
    let options = encode_tcp_options(&h.options);
    let header_len = 20 + options.len();
    let window = if h.control == Control::Syn {
        h.window
    } else {
        h.window >> window_shift.min(14)
    };
    let mut out = Vec::with_capacity(header_len + segment.payload_len as usize);
    out.extend_from_slice(&h.src_port.to_be_bytes());
    out.extend_from_slice(&h.dst_port.to_be_bytes());
    out.extend_from_slice(&h.seq.0.to_be_bytes());
    out.extend_from_slice(&h.ack.map_or(0, |a| a.0).to_be_bytes());
    out.push(((header_len / 4).min(15) as u8) << 4);
    out.push(tcp_flags(h));
    out.extend_from_slice(&(window.min(65_535) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    out.extend_from_slice(&options);
    let len = header_len as u32 + segment.payload_len;
    let checksum = transport_checksum(src, dst, PROTO_TCP, &out, len);
    out[16..18].copy_from_slice(&checksum.to_be_bytes());
    out.resize(out.len() + segment.payload_len as usize, 0);
    out
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

fn encode_udp(datagram: &UdpDatagram, src: [u8; 4], dst: [u8; 4]) -> Vec<u8> {
    let len = UDP_HEADER_LEN + datagram.payload_len;
    let mut out = Vec::with_capacity(len as usize);
    out.extend_from_slice(&datagram.src_port.to_be_bytes());
    out.extend_from_slice(&datagram.dst_port.to_be_bytes());
    out.extend_from_slice(&(len.min(SNAPLEN) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    // RFC 768: a computed checksum of zero is sent as all ones (zero means "none").
    let checksum = match transport_checksum(src, dst, PROTO_UDP, &out, len) {
        0 => 0xffff,
        c => c,
    };
    out[6..8].copy_from_slice(&checksum.to_be_bytes());
    out.resize(len as usize, 0);
    out
}

#[cfg(test)]
mod tests;
