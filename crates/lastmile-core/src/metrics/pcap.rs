//! Packet capture of simulated frames, for Wireshark and tshark.
//!
//! Files are pcapng ([`pcapng`]): one interface per file, nanosecond timestamps, and per
//! frame an optional comment and flags, so that a frame lost on the air is marked (the
//! "CRC error" flag and a comment saying where and why) rather than looking delivered. A
//! point-to-point link is captured with link type 101 (LINKTYPE_RAW: each record a bare
//! IPv4 datagram); a wireless cell as IEEE 802.11 behind radiotap ([`dot11`]), MAC control
//! frames included. The simulator stores no payload, so every datagram is rebuilt from its
//! headers with zero payload bytes (the captured length equals the original length and
//! every checksum verifies) — except under emulation, where the real bytes of packets from
//! real hosts are written (`sim::capture`, `sim::external`).
//!
//! The wire format (header layout, option order, checksums) is `packet::wire`'s.
//!
//! Windows: `TcpHeader::window` holds the window in bytes, already scaled. The 16-bit field
//! carries `window >> shift`, clamped to 65535, where the shift is the one the sender
//! announced in its SYN, once both ends' SYNs carried the window-scale option (RFC 7323
//! §2.2-2.3); the window of a SYN is never scaled. [`WindowShifts`] learns the shifts from
//! the SYNs a capture writes. `encode_ipv4` alone knows no handshake and clamps; a capture
//! that starts after the handshake does the same. Wireshark applies the same rule, so its
//! "calculated window size" matches the simulator's window up to the scaling granularity.
//!
//! Left out: IP options, the urgent pointer.

pub mod dot11;
pub mod pcapng;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::fresh_file::FreshFile;
use crate::engine::SimTime;
use crate::packet::wire::SNAPLEN;
use crate::packet::{
    Control, Packet, Transport, IPV4_HEADER_LEN, PROTO_TCP, PROTO_UDP, UDP_HEADER_LEN,
};

pub use crate::packet::wire::{
    encode_ipv4, encode_ipv4_with_window_shift, encode_tcp_options, internet_checksum,
};
#[cfg(test)]
use crate::packet::{
    wire::{fold, ones_complement_sum, ACK, CWR, ECE, FIN, OPT_SACK, PSH, RST, SYN},
    TcpHeader, TcpOptions, TcpSegment, UdpDatagram,
};

pub use pcapng::{Interface, Note, PcapngWriter, LINKTYPE_IEEE802_11_RADIOTAP, LINKTYPE_RAW};

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

#[cfg(test)]
mod tests;
