//! The pcapng container (draft-ietf-opsawg-pcapng; the format Wireshark writes by default):
//! a Section Header Block, one Interface Description Block per captured interface, then
//! one Enhanced Packet Block per frame, each optionally carrying a comment (`opt_comment`)
//! and flags (`epb_flags`). The flags say the frame was outbound (the capture sits on the
//! sending interface) and, for a frame that did not reach its receiver intact, set the
//! link-layer "CRC error" bit: tshark shows it as `frame.packet_flags_crc_error`, and the
//! comment (`frame.comment`) says what happened to it.
//!
//! Little-endian throughout; timestamps in nanoseconds (`if_tsresol` = 9), 64 bits wide, so
//! any simulated time fits. Left out: Name Resolution, Interface Statistics and Simple
//! Packet blocks, and every option not listed here.

use std::io::{self, Write};

use crate::engine::SimTime;

/// LINKTYPE_RAW: each record begins with an IPv4 header.
pub const LINKTYPE_RAW: u16 = 101;
/// LINKTYPE_IEEE802_11_RADIOTAP: a radiotap header, then an 802.11 frame.
pub const LINKTYPE_IEEE802_11_RADIOTAP: u16 = 127;

const SHB_TYPE: u32 = 0x0A0D_0D0A;
const IDB_TYPE: u32 = 1;
const EPB_TYPE: u32 = 6;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;

const OPT_END: u16 = 0;
const OPT_COMMENT: u16 = 1;
const SHB_USERAPPL: u16 = 4;
const IF_NAME: u16 = 2;
const IF_DESCRIPTION: u16 = 3;
const IF_TSRESOL: u16 = 9;
const EPB_FLAGS: u16 = 2;

/// The largest frame a record holds, and so the interfaces' snapshot length.
pub const SNAPLEN: u32 = 65_535;

/// `epb_flags` bits (the pcapng draft's Enhanced Packet Block flags word).
pub mod flags {
    /// Bits 0-1 = 2: the frame was sent on this interface.
    pub const OUTBOUND: u32 = 0b10;
    /// Bit 24, the first link-layer-dependent error bit: a CRC (FCS) error, i.e. the frame
    /// did not reach its receiver intact.
    pub const CRC_ERROR: u32 = 1 << 24;
}

/// One captured interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// `if_name`: the link's or cell's name.
    pub name: String,
    /// `if_description`: what the capture holds.
    pub description: String,
    /// A LINKTYPE_* value.
    pub link_type: u16,
}

/// What a record says beside its bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Note {
    /// `opt_comment`, if any.
    pub comment: Option<String>,
    /// `epb_flags` (see [`flags`]); 0 writes no flags option.
    pub flags: u32,
}

/// Writes a pcapng section: the header and interfaces at creation, then packets.
pub struct PcapngWriter<W: Write> {
    out: W,
    interfaces: u32,
}

impl<W: Write> PcapngWriter<W> {
    /// Writes the section header (naming `application`) and the interfaces' descriptions.
    pub fn new(mut out: W, application: &str, interfaces: &[Interface]) -> io::Result<Self> {
        let mut options = Options::default();
        options.string(SHB_USERAPPL, application);
        let mut body = Vec::with_capacity(16);
        body.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes()); // major version
        body.extend_from_slice(&0u16.to_le_bytes()); // minor version
        body.extend_from_slice(&u64::MAX.to_le_bytes()); // section length: not given
        write_block(&mut out, SHB_TYPE, &body, options)?;
        for interface in interfaces {
            let mut options = Options::default();
            options.string(IF_NAME, &interface.name);
            options.string(IF_DESCRIPTION, &interface.description);
            options.raw(IF_TSRESOL, &[9]); // 10^-9 s: nanoseconds
            let mut body = Vec::with_capacity(8);
            body.extend_from_slice(&interface.link_type.to_le_bytes());
            body.extend_from_slice(&0u16.to_le_bytes()); // reserved
            body.extend_from_slice(&SNAPLEN.to_le_bytes());
            write_block(&mut out, IDB_TYPE, &body, options)?;
        }
        Ok(PcapngWriter {
            out,
            interfaces: interfaces.len() as u32,
        })
    }

    /// Appends one frame of `interface` (its index in `new`'s list) seen at `time`.
    pub fn write_packet(
        &mut self,
        interface: u32,
        time: SimTime,
        data: &[u8],
        note: &Note,
    ) -> io::Result<()> {
        if interface >= self.interfaces {
            return Err(invalid(format!("no interface {interface}")));
        }
        let len = u32::try_from(data.len())
            .ok()
            .filter(|n| *n <= SNAPLEN)
            .ok_or_else(|| invalid(format!("a {}-byte frame exceeds {SNAPLEN}", data.len())))?;
        let nanos = time.as_nanos();
        let mut body = Vec::with_capacity(20 + data.len() + 3);
        body.extend_from_slice(&interface.to_le_bytes());
        body.extend_from_slice(&((nanos >> 32) as u32).to_le_bytes());
        body.extend_from_slice(&(nanos as u32).to_le_bytes());
        body.extend_from_slice(&len.to_le_bytes()); // captured length
        body.extend_from_slice(&len.to_le_bytes()); // original length
        body.extend_from_slice(data);
        pad32(&mut body);
        let mut options = Options::default();
        if let Some(comment) = &note.comment {
            options.string(OPT_COMMENT, comment);
        }
        if note.flags != 0 {
            options.raw(EPB_FLAGS, &note.flags.to_le_bytes());
        }
        write_block(&mut self.out, EPB_TYPE, &body, options)
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

fn pad32(bytes: &mut Vec<u8>) {
    bytes.resize(bytes.len().next_multiple_of(4), 0);
}

/// A block's options: (code, length, value padded to 32 bits)..., then opt_endofopt.
#[derive(Default)]
struct Options(Vec<u8>);

impl Options {
    fn raw(&mut self, code: u16, value: &[u8]) {
        // Option values are at most 65535 bytes; longer comments are cut at a char boundary.
        let mut end = value.len().min(usize::from(u16::MAX) - 3);
        while end < value.len() && std::str::from_utf8(&value[..end]).is_err() {
            end -= 1;
        }
        self.0.extend_from_slice(&code.to_le_bytes());
        self.0.extend_from_slice(&(end as u16).to_le_bytes());
        self.0.extend_from_slice(&value[..end]);
        pad32(&mut self.0);
    }
    fn string(&mut self, code: u16, value: &str) {
        self.raw(code, value.as_bytes());
    }
}

fn write_block(
    out: &mut impl Write,
    block_type: u32,
    body: &[u8],
    options: Options,
) -> io::Result<()> {
    let mut options = options.0;
    if !options.is_empty() {
        options.extend_from_slice(&OPT_END.to_le_bytes());
        options.extend_from_slice(&0u16.to_le_bytes());
    }
    let total = (12 + body.len() + options.len()) as u32;
    let mut block = Vec::with_capacity(total as usize);
    block.extend_from_slice(&block_type.to_le_bytes());
    block.extend_from_slice(&total.to_le_bytes());
    block.extend_from_slice(body);
    block.extend_from_slice(&options);
    block.extend_from_slice(&total.to_le_bytes());
    out.write_all(&block)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le32(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }

    /// (block type, body + options) of every block, checking both length fields.
    fn blocks(bytes: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let total = le32(bytes, at + 4) as usize;
            assert_eq!(total % 4, 0, "blocks are 32-bit aligned");
            assert_eq!(le32(bytes, at + total - 4), total as u32, "trailing length");
            out.push((le32(bytes, at), bytes[at + 8..at + total - 4].to_vec()));
            at += total;
        }
        assert_eq!(at, bytes.len());
        out
    }

    /// (code, value) of each option in `bytes`, up to opt_endofopt.
    fn options(bytes: &[u8]) -> Vec<(u16, Vec<u8>)> {
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let code = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
            let len = usize::from(u16::from_le_bytes([bytes[at + 2], bytes[at + 3]]));
            if code == OPT_END {
                assert_eq!(at + 4, bytes.len());
                return out;
            }
            out.push((code, bytes[at + 4..at + 4 + len].to_vec()));
            at += 4 + len.next_multiple_of(4);
        }
    }

    #[test]
    fn a_lost_frame_carries_its_comment_and_the_crc_error_flag() {
        let wireless = Interface {
            name: "wireless".into(),
            description: "bs-mh".into(),
            link_type: LINKTYPE_RAW,
        };
        let mut w = PcapngWriter::new(Vec::new(), "lastmile test", &[wireless]).unwrap();
        let note = Note {
            comment: Some("lost on the air".into()),
            flags: flags::OUTBOUND | flags::CRC_ERROR,
        };
        let t = SimTime::from_nanos((5 << 32) + 7);
        w.write_packet(0, t, &[0x45, 1, 2], &note).unwrap();
        w.write_packet(0, t, &[0x45], &Note::default()).unwrap();
        assert!(w.write_packet(1, t, &[0x45], &Note::default()).is_err());
        let bytes = w.into_inner().unwrap();
        let b = blocks(&bytes);
        assert_eq!(
            b.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
            [SHB_TYPE, IDB_TYPE, EPB_TYPE, EPB_TYPE]
        );
        assert_eq!(le32(&b[0].1, 0), BYTE_ORDER_MAGIC);
        let idb = &b[1].1;
        assert_eq!(u16::from_le_bytes([idb[0], idb[1]]), LINKTYPE_RAW);
        assert_eq!(le32(idb, 4), SNAPLEN);
        assert!(options(&idb[8..]).contains(&(IF_TSRESOL, vec![9])));
        let epb = &b[2].1;
        assert_eq!(
            (le32(epb, 4), le32(epb, 8)),
            (5, 7),
            "timestamp high and low words"
        );
        assert_eq!((le32(epb, 12), le32(epb, 16)), (3, 3));
        assert_eq!(&epb[20..23], &[0x45, 1, 2]);
        let opts = options(&epb[24..]);
        assert_eq!(opts[0], (OPT_COMMENT, b"lost on the air".to_vec()));
        assert_eq!(
            opts[1],
            (EPB_FLAGS, (0b10u32 | 1 << 24).to_le_bytes().to_vec())
        );
        // A delivered frame has no options at all.
        assert_eq!(b[3].1.len(), 20 + 4);
    }
}
