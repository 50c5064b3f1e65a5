//! TULIP, the Transport Unaware Link Improvement Protocol (C. Parsa and J. J. Garcia-Luna-Aceves,
//! "Improving TCP Performance over Wireless Networks at the Link Layer"), as pure state
//! machines.
//!
//! What is modelled, by section of the paper:
//! - **§3.1 service classes.** TULIP is service-aware, not protocol-aware: the network layer
//!   marks each packet [`Service::Reliable`] (TCP data, carried in reliable link-level packets,
//!   RLPs) or [`Service::Unreliable`] (TCP ACKs, UDP: unreliable link-level packets, ULPs, sent
//!   once). TULIP reads `packet.service` and sizes only; it never parses a TCP header.
//! - **§3.2 basic operation.** A sliding window of `W` frames, sequence numbers modulo `2W`
//!   ([`SeqSpace`]), a receiver buffer of `W`, and LACKs made of a cumulative ACK plus a bit
//!   vector of `W − 1` ([`Lack`]). The sender keeps a transmission buffer and a retransmission
//!   list rebuilt from every LACK; it paces itself with timer T1 = Δt1 of equation (1) started
//!   on TRANS, and holds down for Δt2 on WAIT. The send rule is Figure 2's `send_packet`
//!   ([`TulipSender`]), the receive rule Figure 3's `process_incoming_pkt` ([`TulipReceiver`]).
//! - **§3.3 MAC acceleration.** With `mac_acceleration`, a LACK may carry a queued packet of at
//!   most [`MAC_ACCEL_PIGGYBACK_MAX_BYTES`] (a TCP ACK) ([`TulipLink`] does the piggybacking);
//!   Δt1's `t_ACK` then covers a LACK plus such a packet. How the MAC sends the LACK (inside its
//!   own ACK, or with a fresh RTS when larger) is the MAC's business: it reads
//!   [`TulipFrame::size_bytes`] and [`TulipFrame::is_lack`].
//! - **Bidirectional traffic** (§3.2, §3.3, Figure 3; §3.3.1 is cut off in the seed) is the
//!   [`TulipLink`]: one sender and one receiver per peer, sharing the MAC. The LACK for the
//!   peer's data frame goes back on this side's own data frame when one is waiting (Figure
//!   3's `PiggyBack_ACK_pkt`; Figure 4(b)'s "large ACK packet (encapsulated data packet)"):
//!   the frame already at the MAC, handed again with the LACK (the MAC gives the first copy
//!   back), or the one Figure 2 sends next; a queued packet of ≤ 40 bytes rides on the LACK
//!   inside the floor first (§3.3). So the two directions' data frames alternate, each
//!   acknowledging the other's; WAIT keeps a side from sending into the other's floor. A
//!   TCP ACK held for a LACK to carry it does not hold back the data behind it.
//! - **§3.4 / Figure 6**, the worked example with losses, is the test
//!   `fig6_lack_bitvector_rebuilds_retransmission_list`.
//!
//! Deliberate choices where the paper is silent or ambiguous:
//! - Bit `i` of the vector stands for `CumACK + 1 + i`, `i < W − 1`, as the slides' Figure 6
//!   legend reads "CumACK N [0100…0]: sequence N+1 NACK'ed". A frame at `CumACK + W` is
//!   therefore buffered but not reported; the sender treats it as unknown, not lost.
//! - The receiver answers **every** data frame with a LACK, duplicates included (§3.2: "The
//!   receiver sends a LACK every time it receives a data packet"). Figure 3's indentation would
//!   drop duplicates silently, which would defeat the liveness rule of §3.2 ("retransmits the
//!   oldest unacknowledged packet in its window to force a LACK back").
//! - Header sizes are not given by the paper beyond "a one byte bit vector" for `W = 8` (§3.4):
//!   we take one type byte plus one sequence byte per data frame ([`TULIP_HEADER_BYTES`]) and
//!   type + CumACK + ⌈(W−1)/8⌉ bit-vector bytes per LACK ([`TulipConfig::lack_bytes`]).
//! - The default Δt1 terms come from the IEEE 802.11 DSSS PHY the paper assumes (§3.2, §5);
//!   see [`TulipConfig`].
//! - Connection establishment ("much the same as ... selective repeat protocols \[8\]") is left
//!   out: both ends start at sequence 0 with CumACK = −1.

mod receiver;
mod sender;
mod seq;
pub mod spec;
#[cfg(test)]
mod tests;

pub use receiver::{TulipReceiver, TulipReceiverMetrics};
pub use sender::{RetxEntry, TulipSender, TulipSenderMetrics};
pub use seq::{LinkSeq, SeqSpace};
pub use spec::TulipSpec;

use std::fmt;

use crate::engine::{SimDuration, SimTime};
use crate::packet::{Packet, Service};
use crate::wireless::signals::MacSignal;

/// Bytes TULIP adds to a data frame (RLP or ULP): a frame-type byte and a sequence byte
/// (sequence numbers are modulo 2W ≤ 256). The paper gives no layout; this is our choice.
pub const TULIP_HEADER_BYTES: u32 = 2;

/// The largest packet a LACK may carry with MAC acceleration: "If there is a data packet
/// waiting to be returned and the packet payload is 40 bytes or less (which is large enough to
/// carry a TCP ACK packet), then this packet is piggybacked with the TULIP ACK" (§3.3).
pub const MAC_ACCEL_PIGGYBACK_MAX_BYTES: u32 = 40;

/// The largest window the bit vector (a `u128` of W − 1 bits) can carry.
pub const W_MAX: u16 = 128;

/// TULIP's parameters. `Default` is the paper's set-up: W = 8 (§5), a 1 Mbps 802.11 DSSS radio
/// (§4, §5), MAC acceleration on (§4: "Our implementation of TULIP runs on top of FAMA-NCS
/// with the MAC acceleration feature").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TulipConfig {
    /// W: the sliding window, in frames; sequence numbers run modulo 2W (§3.2). Default 8 (§5).
    pub window: u16,
    /// Radio rate, used for `t_PKT` and `t_ACK` of equation (1). Default 1 Mbps (§5).
    pub rate_bps: u64,
    /// τ: the maximum propagation delay over the wireless link (eq. (1), counted twice: data and
    /// LACK). Default 1 µs, 802.11's aAirPropagationTime (the paper gives no number).
    pub tau: SimDuration,
    /// t_TR: radio ramp-up/ramp-down time (eq. (1), counted twice). Default 5 µs, the 802.11
    /// DSSS aRxTxTurnaroundTime.
    pub t_tr: SimDuration,
    /// t_c: time to get capture, "including framing and preamble bits" (eq. (1), counted
    /// twice). Default 192 µs, the 802.11 DSSS long PLCP preamble and header at 1 Mbps.
    pub t_c: SimDuration,
    /// t_p: "overhead and processing time at sender and receiver" (eq. (1)). Default 10 µs
    /// (one 802.11 SIFS; our choice).
    pub t_p: SimDuration,
    /// t_ACK: time to transmit a LACK "which could contain data" (eq. (1)). `None` derives it
    /// from `rate_bps`: a LACK of `lack_bytes`, plus [`MAC_ACCEL_PIGGYBACK_MAX_BYTES`] when
    /// `mac_acceleration` is on.
    pub t_ack: Option<SimDuration>,
    /// The lower bound of the WAIT hold-down: the sender holds for `max(Δt2, delta_t2_min)`,
    /// where Δt2 comes with the MAC's WAIT (§3.2, Figure 2). Default zero: trust the MAC.
    pub delta_t2_min: SimDuration,
    /// MAC acceleration (§3.3): LACKs piggyback a queued packet of ≤ 40 bytes.
    pub mac_acceleration: bool,
    /// With MAC acceleration: how long a queued unreliable packet of ≤ 40 bytes (a TCP ACK)
    /// waits for a LACK to carry it before it takes a sending turn of its own. For Figure
    /// 4(a)'s exchange the TCP ACK must already be waiting when the next data frame arrives
    /// (it is made after the LACK of the frame it acknowledges); the paper does not say how
    /// long it may wait. Default zero (no wait: piggyback only what happens to be queued);
    /// the cell sets about one FAMA floor when it runs TULIP over FAMA-NCS.
    pub piggyback_hold: SimDuration,
    /// Size of a LACK frame in bytes. Default for W = 8: type 1 + CumACK 1 + a "one byte bit
    /// vector" (§3.4) = 3.
    pub lack_bytes: u32,
    /// Bytes the MAC adds to every data frame (802.11: 28 B header and FCS + 8 B LLC/SNAP),
    /// counted in t_PKT of equation (1) — the time the data frame occupies the channel.
    /// Default 0; the cell sets its MAC's.
    pub mac_overhead_bytes: u32,
}

impl Default for TulipConfig {
    fn default() -> Self {
        let window = 8;
        TulipConfig {
            window,
            rate_bps: 1_000_000,
            tau: SimDuration::from_micros(1),
            t_tr: SimDuration::from_micros(5),
            t_c: SimDuration::from_micros(192),
            t_p: SimDuration::from_micros(10),
            t_ack: None,
            delta_t2_min: SimDuration::ZERO,
            mac_acceleration: true,
            piggyback_hold: SimDuration::ZERO,
            lack_bytes: Self::lack_bytes_for_window(window),
            mac_overhead_bytes: 0,
        }
    }
}

/// A configuration TULIP cannot run with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TulipConfigError {
    #[error("tulip.window: {0} is out of range, expected 2..={W_MAX}")]
    Window(u16),
    #[error("tulip.rate_bps: must be positive")]
    Rate,
}

impl TulipConfig {
    /// Type byte + CumACK byte + ⌈(W − 1)/8⌉ bit-vector bytes (§3.2, §3.4).
    pub fn lack_bytes_for_window(window: u16) -> u32 {
        2 + u32::from(window.saturating_sub(1)).div_ceil(8)
    }

    pub fn validate(&self) -> Result<(), TulipConfigError> {
        if !(2..=W_MAX).contains(&self.window) {
            return Err(TulipConfigError::Window(self.window));
        }
        if self.rate_bps == 0 {
            return Err(TulipConfigError::Rate);
        }
        Ok(())
    }

    /// Airtime of `bytes` at the radio rate.
    pub fn airtime(&self, bytes: u32) -> SimDuration {
        SimDuration::transmission(u64::from(bytes) * 8, self.rate_bps)
    }

    /// t_ACK of equation (1).
    pub fn t_ack(&self) -> SimDuration {
        self.t_ack.unwrap_or_else(|| {
            let piggyback = if self.mac_acceleration {
                MAC_ACCEL_PIGGYBACK_MAX_BYTES
            } else {
                0
            };
            self.airtime(self.lack_bytes + piggyback)
        })
    }

    /// Δt1 = t_PKT + 2τ + t_ACK + 2t_TR + 2t_c + t_p, equation (1), for a frame of
    /// `frame_bytes` (its `t_PKT`).
    pub fn delta_t1(&self, frame_bytes: u32) -> SimDuration {
        self.airtime(frame_bytes + self.mac_overhead_bytes)
            + self.tau * 2
            + self.t_ack()
            + self.t_tr * 2
            + self.t_c * 2
            + self.t_p
    }
}

/// A link-level acknowledgment: the cumulative ACK and the bit vector (§3.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Lack {
    /// The highest sequence number received in order (CumACK; −1 is `2W − 1`).
    pub cum_ack: LinkSeq,
    /// Bit `i` (`i < W − 1`) is 1 when `CumACK + 1 + i` has been received.
    pub bits: u128,
    /// W, for printing the vector with its length.
    pub window: u16,
}

impl Lack {
    /// True when bit `i` reports `CumACK + 1 + i` received.
    pub fn is_received(&self, i: u16) -> bool {
        i + 1 < self.window && (self.bits >> i) & 1 == 1
    }
}

impl fmt::Display for Lack {
    /// The paper's notation (§3.4): the CumACK, then the bit vector in brackets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [", self.cum_ack)?;
        for i in 0..self.window - 1 {
            write!(f, "{}", u8::from(self.is_received(i)))?;
        }
        write!(f, "]")
    }
}

/// A TULIP frame: what TULIP hands its MAC and receives from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TulipFrame {
    /// A reliable link-level packet (RLP) with its sequence number, and the LACK for the
    /// peer's last data frame when it rides on this one (Figure 3's
    /// `PiggyBack_ACK_pkt(CumACK, BitVector, DataPkt)`, Figure 4(b)).
    Data {
        seq: LinkSeq,
        packet: Packet,
        lack: Option<Lack>,
    },
    /// An unreliable link-level packet (ULP): sent once, never numbered.
    Unreliable { packet: Packet },
    /// A LACK, with (MAC acceleration) at most one piggybacked packet of ≤ 40 bytes.
    Lack {
        lack: Lack,
        piggyback: Option<Packet>,
    },
}

impl TulipFrame {
    /// Bytes on the air above the MAC: the packet plus TULIP's header, or the LACK (plus its
    /// piggybacked packet). MAC headers are the MAC's to add.
    pub fn size_bytes(&self, config: &TulipConfig) -> u32 {
        match self {
            TulipFrame::Data { packet, lack, .. } => {
                TULIP_HEADER_BYTES
                    + packet.size_bytes()
                    + lack.as_ref().map_or(0, |_| config.lack_bytes)
            }
            TulipFrame::Unreliable { packet } => TULIP_HEADER_BYTES + packet.size_bytes(),
            TulipFrame::Lack { piggyback, .. } => {
                config.lack_bytes + piggyback.as_ref().map_or(0, Packet::size_bytes)
            }
        }
    }
    pub fn is_lack(&self) -> bool {
        matches!(self, TulipFrame::Lack { .. })
    }
    /// A LACK, or a data frame a LACK rides on: the receiver's answer to a data frame.
    pub fn carries_lack(&self) -> bool {
        matches!(
            self,
            TulipFrame::Lack { .. } | TulipFrame::Data { lack: Some(_), .. }
        )
    }
    /// The packet a data frame carries.
    pub fn packet(&self) -> Option<&Packet> {
        match self {
            TulipFrame::Data { packet, .. } | TulipFrame::Unreliable { packet } => Some(packet),
            TulipFrame::Lack { piggyback, .. } => piggyback.as_ref(),
        }
    }
}

/// What drives a TULIP machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TulipInput {
    /// A packet from the network layer; `packet.service` chooses RLP or ULP (§3.1).
    FromNetwork(Packet),
    /// A frame the MAC received correctly.
    FrameReceived(TulipFrame),
    /// A signal from the MAC (TRANS, WAIT, tx-success, tx-failure).
    MacSignal(MacSignal),
    /// The deadline from `poll_timeout` was reached.
    Timeout,
}

/// A trace event, for metrics and debugging.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TulipEvent {
    /// A new reliable frame was sent for the first time.
    DataSent { seq: LinkSeq },
    /// A reliable frame was sent again (from the retransmission list, or the liveness rule).
    Retransmission { seq: LinkSeq },
    /// A LACK rebuilt the retransmission list, which now holds `len` frames.
    RetransmissionListBuilt { len: usize },
    /// A LACK was sent.
    LackSent { lack: Lack },
    /// A reliable frame was released to the network layer, in order.
    Released { seq: LinkSeq },
    /// A data frame already buffered or released arrived again and was dropped.
    DuplicateDiscarded { seq: LinkSeq },
}

/// An effect for the engine to apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TulipOutput {
    /// Hand a frame to the MAC.
    ToMac(TulipFrame),
    /// Release a packet to the network layer.
    ToNetwork(Packet),
    Event(TulipEvent),
}

/// Where TULIP machines put their effects, in order.
#[derive(Clone, Debug, Default)]
pub struct TulipOutbox {
    pub outputs: Vec<TulipOutput>,
}

impl TulipOutbox {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn push(&mut self, output: TulipOutput) {
        self.outputs.push(output);
    }
    pub fn drain(&mut self) -> std::vec::Drain<'_, TulipOutput> {
        self.outputs.drain(..)
    }
    pub fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }
}

/// One end of a TULIP logical link (§3.3.1): the sender of this node's frames towards the peer
/// and the receiver of the peer's frames, sharing one MAC.
#[derive(Clone, Debug)]
pub struct TulipLink {
    sender: TulipSender,
    receiver: TulipReceiver,
}

impl TulipLink {
    pub fn new(config: TulipConfig) -> Result<Self, TulipConfigError> {
        Ok(TulipLink {
            sender: TulipSender::new(config.clone())?,
            receiver: TulipReceiver::new(config)?,
        })
    }
    pub fn sender(&self) -> &TulipSender {
        &self.sender
    }
    pub fn receiver(&self) -> &TulipReceiver {
        &self.receiver
    }

    /// Data frames go to the receiver, and a LACK riding on one to the sender; everything
    /// else drives the sender. The receiver's LACK goes back (Figure 3, §3.3): with a queued
    /// packet of ≤ 40 bytes when MAC acceleration is on (inside the floor, Figure 4(a));
    /// else on the data frame the sender sends next if Figure 2 would send a reliable one
    /// now (a "large ACK packet (encapsulated data packet)", Figure 4(b)); else alone.
    pub fn handle(&mut self, now: SimTime, input: TulipInput, out: &mut TulipOutbox) {
        match input {
            TulipInput::FrameReceived(TulipFrame::Data { seq, packet, lack }) => {
                let turn = lack.is_some();
                if let Some(lack) = lack {
                    self.sender.on_piggybacked_lack(lack, out);
                }
                let reply = self.receiver.accept(seq, packet, out);
                let piggyback = if self.sender.config().mac_acceleration {
                    self.sender.take_piggyback()
                } else {
                    None
                };
                let unsent = match piggyback {
                    Some(_) => Some(reply),
                    None => self.sender.send_with_lack(reply, out),
                };
                if let Some(reply) = unsent {
                    self.receiver.send_lack(reply, piggyback, out);
                }
                if turn {
                    // The piggybacked LACK gave the sender a turn the reply did not take.
                    self.sender.resume(out);
                }
            }
            TulipInput::FrameReceived(TulipFrame::Unreliable { packet }) => {
                self.receiver.on_unreliable(packet, out);
            }
            other => self.sender.handle(now, other, out),
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.sender.poll_timeout()
    }
}

/// True for packets TULIP must deliver reliably (§3.1).
fn is_reliable(packet: &Packet) -> bool {
    packet.service == Service::Reliable
}
