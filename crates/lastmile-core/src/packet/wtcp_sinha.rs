//! WTCP-Sinha's packets as header structs: SYN / SYN-ACK for connection set-up (the survey:
//! "algorithms similar to those of standard TCP for connection management"), data packets
//! stamped with their send time (the receiver's inter-packet delays need it), ACKs that
//! carry the cumulative ACK, SACK blocks, the advertised window, the receiver's rate
//! decision and the send time of the packet that triggered them, and probes.
//!
//! Sequence numbers count packets, not bytes (the receiver's statistics are per packet):
//! packet `i` of a direction carries `len` bytes that follow packet `i - 1`'s in the
//! stream. A FIN is a data packet with the `fin` flag (it may carry no bytes) and takes a
//! sequence number.
//!
//! Sizes: the paper's header is not in the sources we have; lastmile charges a TCP-sized
//! 16-byte fixed part (ports, sequence or ACK number, kind and flags, length, window,
//! checksum), 4 bytes of timestamp, and in an ACK 4 more (echo) plus 4 for the rate
//! decision and the packet-pair estimate and 8 per SACK block; carried in UDP, as a
//! user-space implementation over CDPD would be.

use crate::engine::SimTime;
use crate::packet::UDP_HEADER_LEN;

/// The most SACK blocks an ACK carries.
pub const SACK_BLOCKS: usize = 3;

/// What the receiver asks of the sender's rate (the survey: "increase, decrease or keep the
/// same sending rate").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum RateDecision {
    Increase,
    Decrease,
    #[default]
    Keep,
}

/// A data packet (or a FIN).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WtcpData {
    /// The packet's sequence number (0 = the direction's first packet).
    pub seq: u32,
    pub len: u32,
    pub fin: bool,
    /// The sender has nothing more queued: the receiver acknowledges at once.
    pub ack_request: bool,
    /// One of the two packets of the start-up packet pair.
    pub pair: bool,
    /// When the sender sent this copy.
    pub ts: SimTime,
}

/// An acknowledgement and the receiver's rate control.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WtcpAck {
    /// The next packet expected in order (every packet below it has arrived).
    pub cumulative: u32,
    /// Ranges [start, end) of packets received above `cumulative`, lowest first.
    pub sack: [(u32, u32); SACK_BLOCKS],
    pub sack_count: u8,
    /// The receiver holds more ranges than the ACK has room for.
    pub more_blocks: bool,
    /// Receive buffer free, bytes.
    pub window: u32,
    pub decision: RateDecision,
    /// The packet-pair estimate of the bottleneck, bit/s (0: none in this ACK).
    pub rate_hint_bps: u32,
    /// The send time of the packet (data or probe) that triggered this ACK.
    pub ts_echo: SimTime,
}

impl WtcpAck {
    /// The SACK blocks present.
    pub fn blocks(&self) -> &[(u32, u32)] {
        &self.sack[..usize::from(self.sack_count).min(SACK_BLOCKS)]
    }
}

/// What a packet is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WtcpBody {
    /// Opens the connection (`ts`: its send time, for the first RTT sample).
    Syn {
        ts: SimTime,
    },
    /// Accepts it, echoing the SYN's send time.
    SynAck {
        ts: SimTime,
        ts_echo: SimTime,
    },
    Data(WtcpData),
    Ack(WtcpAck),
    /// Asks the receiver for an ACK (the survey: "probe segments to elicit receiver ACKs").
    Probe {
        ts: SimTime,
    },
}

/// One WTCP-Sinha packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WtcpSegment {
    pub src_port: u16,
    pub dst_port: u16,
    pub body: WtcpBody,
}

impl WtcpSegment {
    /// The header's length in bytes (module notes).
    pub fn header_len(&self) -> u32 {
        match &self.body {
            WtcpBody::Syn { .. } | WtcpBody::Probe { .. } | WtcpBody::Data(_) => 20,
            WtcpBody::SynAck { .. } => 24,
            WtcpBody::Ack(a) => 28 + 8 * u32::from(a.sack_count),
        }
    }

    pub fn payload_len(&self) -> u32 {
        match &self.body {
            WtcpBody::Data(d) => d.len,
            _ => 0,
        }
    }

    /// The UDP datagram's length.
    pub fn datagram_len(&self) -> u32 {
        UDP_HEADER_LEN + self.header_len() + self.payload_len()
    }

    /// Data and FINs, whose loss WTCP-Sinha repairs.
    pub fn carries_data(&self) -> bool {
        matches!(&self.body, WtcpBody::Data(d) if d.len > 0 || d.fin)
    }
}
