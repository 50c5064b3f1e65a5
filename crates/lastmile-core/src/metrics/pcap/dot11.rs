//! IEEE 802.11 frames behind a radiotap header (LINKTYPE_IEEE802_11_RADIOTAP), for the
//! capture of a wireless cell as a monitor-mode sniffer would see it: data frames and the
//! MAC's control frames (RTS, CTS, ACK; IEEE 802.11-1999 §7.2.1, §7.2.2).
//!
//! Layout: radiotap (version 0, one `Flags` field: "bad FCS" set for a frame that did not
//! reach its addressee intact), then the MAC header without FCS. A data frame is an
//! ad-hoc-style data frame (To DS = From DS = 0; Address 3 is the cell's BSSID) whose body
//! is LLC/SNAP (RFC 1042) with EtherType 0x0800 and the IPv4 datagram. Link-layer control
//! frames that carry no datagram (a TULIP LACK, a stop-and-wait link ACK) use the IEEE
//! 802 Local Experimental EtherType 1 (0x88B5) with a short body of their fields; the
//! packet comment spells them out. Stations' MAC addresses are locally administered,
//! 02:00:00:00:HH:LL with HHLL the node's index.
//!
//! Left out: the FCS, radiotap rate/channel/signal fields, and the TULIP and stop-and-wait
//! headers in front of a datagram (their sequence numbers go in the packet comment).

/// 802.11 frame types and subtypes, as the first Frame Control byte (§7.1.3.1.2).
const FC_DATA: u8 = 0x08;
const FC_RTS: u8 = 0xB4;
const FC_CTS: u8 = 0xC4;
const FC_ACK: u8 = 0xD4;
/// Frame Control flags byte: Retry (§7.1.3.1.6).
const FC_RETRY: u8 = 0x08;

/// Radiotap `Flags` field (present bit 1) and its "frame failed FCS check" bit.
const RADIOTAP_PRESENT_FLAGS: u32 = 1 << 1;
const RADIOTAP_FLAG_BAD_FCS: u8 = 0x40;

/// RFC 1042 LLC/SNAP header, before the EtherType.
const LLC_SNAP: [u8; 6] = [0xAA, 0xAA, 0x03, 0x00, 0x00, 0x00];
/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// IEEE 802 Local Experimental EtherType 1 (IEEE Std 802-2014 §9.2.2).
pub const ETHERTYPE_LOCAL_EXPERIMENTAL: u16 = 0x88B5;

/// The 802.11 frame kinds a cell sends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dot11Kind {
    Data,
    Rts,
    Cts,
    Ack,
}

/// A station's MAC address from its node index.
pub fn mac_address(node_index: u32) -> [u8; 6] {
    let [_, _, hi, lo] = node_index.to_be_bytes();
    [0x02, 0, 0, 0, hi, lo]
}

/// One frame on the air, as the capture encodes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dot11Frame<'a> {
    pub kind: Dot11Kind,
    /// Receiver and transmitter addresses (the transmitter is not in a CTS or ACK).
    pub ra: [u8; 6],
    pub ta: [u8; 6],
    /// Address 3 of a data frame.
    pub bssid: [u8; 6],
    /// The Duration field in microseconds (clamped to 32767, §7.1.3.2).
    pub duration_us: u64,
    /// The 12-bit sequence number of a data frame.
    pub seq: u16,
    pub retry: bool,
    /// A data frame's body: (EtherType, bytes after the LLC/SNAP header).
    pub body: Option<(u16, &'a [u8])>,
}

/// The radiotap header and 802.11 frame of `frame`; `intact` false sets "bad FCS".
pub fn encode_radiotap_frame(frame: &Dot11Frame<'_>, intact: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + frame.body.map_or(0, |(_, b)| b.len()));
    // Radiotap: version 0, pad, length 9 (8 + the one-byte Flags field), present bitmap.
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&9u16.to_le_bytes());
    out.extend_from_slice(&RADIOTAP_PRESENT_FLAGS.to_le_bytes());
    out.push(if intact { 0 } else { RADIOTAP_FLAG_BAD_FCS });
    let fc = match frame.kind {
        Dot11Kind::Data => FC_DATA,
        Dot11Kind::Rts => FC_RTS,
        Dot11Kind::Cts => FC_CTS,
        Dot11Kind::Ack => FC_ACK,
    };
    let flags = if frame.retry && frame.kind == Dot11Kind::Data {
        FC_RETRY
    } else {
        0
    };
    out.extend_from_slice(&[fc, flags]);
    out.extend_from_slice(&(frame.duration_us.min(32_767) as u16).to_le_bytes());
    out.extend_from_slice(&frame.ra);
    match frame.kind {
        Dot11Kind::Cts | Dot11Kind::Ack => {}
        Dot11Kind::Rts => out.extend_from_slice(&frame.ta),
        Dot11Kind::Data => {
            out.extend_from_slice(&frame.ta);
            out.extend_from_slice(&frame.bssid);
            out.extend_from_slice(&((frame.seq & 0x0FFF) << 4).to_le_bytes());
            if let Some((ethertype, body)) = frame.body {
                out.extend_from_slice(&LLC_SNAP);
                out.extend_from_slice(&ethertype.to_be_bytes());
                out.extend_from_slice(body);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: Dot11Kind) -> Dot11Frame<'static> {
        Dot11Frame {
            kind,
            ra: mac_address(2),
            ta: mac_address(1),
            bssid: mac_address(1),
            duration_us: 314,
            seq: 0x123,
            retry: true,
            body: None,
        }
    }

    #[test]
    fn control_frames_have_the_standard_lengths_without_fcs() {
        // §7.2.1: RTS 20 bytes, CTS and ACK 14, each with a 4-byte FCS we leave out.
        let len = |k| encode_radiotap_frame(&frame(k), true).len() - 9;
        assert_eq!(len(Dot11Kind::Rts), 16);
        assert_eq!(len(Dot11Kind::Cts), 10);
        assert_eq!(len(Dot11Kind::Ack), 10);
    }

    #[test]
    fn data_frame_carries_llc_snap_and_its_sequence_number() {
        let datagram = [0x45u8, 0, 0, 20];
        let f = Dot11Frame {
            body: Some((ETHERTYPE_IPV4, &datagram)),
            ..frame(Dot11Kind::Data)
        };
        let bytes = encode_radiotap_frame(&f, false);
        assert_eq!(&bytes[..8], &[0, 0, 9, 0, 2, 0, 0, 0]);
        assert_eq!(bytes[8], RADIOTAP_FLAG_BAD_FCS);
        let mac = &bytes[9..];
        assert_eq!(&mac[..2], &[FC_DATA, FC_RETRY]);
        assert_eq!(u16::from_le_bytes([mac[2], mac[3]]), 314);
        assert_eq!(&mac[4..10], &[2, 0, 0, 0, 0, 2]);
        assert_eq!(u16::from_le_bytes([mac[22], mac[23]]), 0x123 << 4);
        assert_eq!(&mac[24..32], &[0xAA, 0xAA, 3, 0, 0, 0, 0x08, 0x00]);
        assert_eq!(&mac[32..], &datagram);
    }
}
