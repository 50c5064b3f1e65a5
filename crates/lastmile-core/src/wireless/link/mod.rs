//! Link layers for the wireless hop. Each is a pure state machine driven by
//! `handle(now, input, out)` with `poll_timeout()`, talking to its MAC through
//! [`crate::wireless::signals::MacSignal`].
//!
//! - `none`: pass-through, one frame at the MAC at a time (the interface queue holds the
//!   rest); no recovery.
//! - [`stop_and_wait`]: alternating-bit ARQ with a retry limit, the baseline.
//! - [`tulip`] (Parsa & Garcia-Luna-Aceves).
//! - [`rlp`]: GSM's non-transparent Radio Link Protocol (GSM 04.22), selective-reject ARQ.
//! - [`airmail`] (Ayanoglu et al. 1995): asymmetric, status bit-maps, over the hop's FEC.
//! - `stream`: the datagram stream the fragmenting link layers cut into frames.
//! - [`dda`]: the TCP-unaware selective repeat of Delayed Duplicate Acknowledgements
//!   (Vaidya et al.), without in-order delivery.
//!
//! `spec` holds the one list of link layers (`link_layers!`): the scenario's `link` table
//! (`LinkLayerSpec`), each one's configuration on its cell and how an instance is built.
//! Adding a link layer: its module here with its settings in `<link>/spec.rs`, a variant of
//! `AnyLinkLayer` and `LinkFrame`, one line of `link_layers!`.
//!
//! [`AnyLinkLayer`] dispatches over them by enum; one instance serves one peer (TULIP's
//! logical link is per pair of stations, §3.3.1). The cell pulls packets from the station's
//! interface queue into a link layer while [`AnyLinkLayer::can_accept`] says so, so queueing
//! happens in one drop-tail place, not inside the protocols.

pub mod airmail;
pub mod dda;
pub mod rlp;
pub mod spec;
pub mod stop_and_wait;
pub mod stream;
pub mod tulip;

use crate::engine::SimTime;
use crate::packet::Packet;
use crate::wireless::signals::MacSignal;

use airmail::{AirFrame, Airmail, AirmailInput, AirmailOutput};
use dda::{DdaFrame, DdaInput, DdaLink, DdaOutput};
use rlp::{Rlp, RlpFrame, RlpInput, RlpOutput};
use stop_and_wait::{SawFrame, SawInput, SawMetrics, SawOutput, StopAndWait};
use tulip::{TulipConfig, TulipFrame, TulipInput, TulipLink, TulipOutbox, TulipOutput};

/// What a link layer hands its MAC (and gets back from the peer's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkFrame {
    /// `none`: the datagram as it is.
    Plain(Packet),
    StopAndWait(SawFrame),
    Tulip(TulipFrame),
    /// An RLP frame and its length (every RLP frame of a link has the same).
    Rlp {
        frame: RlpFrame,
        bytes: u32,
    },
    /// An AIRMAIL frame and its length.
    Airmail {
        frame: AirFrame,
        bytes: u32,
    },
    Dda(DdaFrame),
}

impl LinkFrame {
    /// Bytes above the MAC (the MSDU).
    pub fn size_bytes(&self, tulip: Option<&TulipConfig>) -> u32 {
        match self {
            LinkFrame::Plain(p) => p.size_bytes(),
            LinkFrame::StopAndWait(f) => f.size_bytes(),
            LinkFrame::Tulip(f) => f.size_bytes(tulip.expect("a TULIP frame needs its config")),
            LinkFrame::Rlp { bytes, .. } | LinkFrame::Airmail { bytes, .. } => *bytes,
            LinkFrame::Dda(f) => f.size_bytes(),
        }
    }
    /// Link-level control frames (LACKs, link ACKs): their MAC outcome concerns nobody. RLP
    /// has none: it hands the MAC one frame at a time, S frames too, and takes its next turn
    /// on each frame's `TxSuccess`. Nor are DDA's link ACKs: that link layer hands the MAC
    /// one frame at a time, ACKs included, and waits for each one's outcome.
    pub fn is_control(&self) -> bool {
        match self {
            LinkFrame::Plain(_) | LinkFrame::Rlp { .. } | LinkFrame::Airmail { .. } => false,
            LinkFrame::StopAndWait(f) => matches!(f, SawFrame::Ack { .. }),
            LinkFrame::Tulip(f) => f.is_lack(),
            LinkFrame::Dda(_) => false,
        }
    }
    /// The IP datagram crossing the air in this frame: a data frame's, or the one a LACK
    /// piggybacks (for capture and traces).
    pub fn carried_packet(&self) -> Option<&Packet> {
        match self {
            LinkFrame::Tulip(TulipFrame::Lack { piggyback, .. })
            | LinkFrame::Dda(DdaFrame::Ack { piggyback, .. }) => piggyback.as_ref(),
            _ => self.data_packet(),
        }
    }
    /// For a capture: the frame's datagram (if it carries one), a comment on its link-layer
    /// fields, and the bytes standing for a control frame that carries no datagram.
    pub fn describe(&self) -> (Option<&Packet>, Option<String>, Option<Vec<u8>>) {
        match self {
            LinkFrame::Plain(p) => (Some(p), None, None),
            LinkFrame::StopAndWait(SawFrame::Data { seq, packet }) => (
                Some(packet),
                Some(format!("stop-and-wait data, bit {seq}")),
                None,
            ),
            LinkFrame::StopAndWait(SawFrame::Unreliable { packet }) => {
                (Some(packet), Some("stop-and-wait unreliable".into()), None)
            }
            LinkFrame::StopAndWait(SawFrame::Ack { seq }) => (
                None,
                Some(format!("stop-and-wait link ACK, bit {seq}")),
                Some(vec![b'S', b'W', b'A', *seq]),
            ),
            LinkFrame::Tulip(TulipFrame::Data { seq, packet, lack }) => (
                Some(packet),
                Some(match lack {
                    None => format!("TULIP data (RLP), seq {}", seq.0),
                    Some(l) => format!("TULIP data (RLP), seq {}, with LACK {l}", seq.0),
                }),
                None,
            ),
            LinkFrame::Tulip(TulipFrame::Unreliable { packet }) => {
                (Some(packet), Some("TULIP unreliable (ULP)".into()), None)
            }
            LinkFrame::Tulip(TulipFrame::Lack { lack, piggyback }) => {
                let received: String = (0..lack.window.saturating_sub(1))
                    .map(|i| if lack.is_received(i) { '1' } else { '0' })
                    .collect();
                let mut text = format!(
                    "TULIP LACK: CumACK {}, bit vector {received} (W = {})",
                    lack.cum_ack.0, lack.window
                );
                if piggyback.is_some() {
                    text.push_str(", piggybacking this datagram (MAC acceleration)");
                }
                let mut fields = b"TLAK".to_vec();
                fields.extend_from_slice(&lack.cum_ack.0.to_be_bytes());
                fields.extend_from_slice(&lack.window.to_be_bytes());
                fields.extend_from_slice(&lack.bits.to_be_bytes());
                (piggyback.as_ref(), Some(text), Some(fields))
            }
            LinkFrame::Rlp { frame, .. } => {
                let (text, fields) = frame.describe();
                (frame.completes(), Some(text), Some(fields))
            }
            LinkFrame::Airmail { frame, .. } => {
                let (text, fields) = frame.describe();
                (frame.completes(), Some(text), Some(fields))
            }
            LinkFrame::Dda(DdaFrame::Data { seq, una, packet }) => (
                Some(packet),
                Some(format!("DDA link data, seq {seq}, una {una}")),
                None,
            ),
            LinkFrame::Dda(DdaFrame::Unreliable { packet }) => {
                (Some(packet), Some("DDA link unreliable".into()), None)
            }
            LinkFrame::Dda(DdaFrame::Ack {
                next,
                got,
                also,
                piggyback,
            }) => {
                let mut fields = b"DDAA".to_vec();
                fields.extend_from_slice(&next.to_be_bytes());
                fields.extend_from_slice(&got.to_be_bytes());
                for g in also {
                    fields.extend_from_slice(&g.to_be_bytes());
                }
                (
                    piggyback.as_ref(),
                    Some(format!(
                        "DDA link ACK, next {next}, got {got}, also {also:?}"
                    )),
                    Some(fields),
                )
            }
        }
    }

    /// The datagram a data frame carries (not a LACK's piggyback). A fragmenting link layer
    /// (RLP) names the first datagram whose last byte the frame carries, so per-datagram
    /// counters see each datagram once per transmission of its final frame.
    pub fn data_packet(&self) -> Option<&Packet> {
        match self {
            LinkFrame::Rlp { frame, .. } => frame.completes(),
            LinkFrame::Airmail { frame, .. } => frame.completes(),
            LinkFrame::Plain(p) => Some(p),
            LinkFrame::StopAndWait(SawFrame::Data { packet, .. })
            | LinkFrame::StopAndWait(SawFrame::Unreliable { packet }) => Some(packet),
            LinkFrame::Tulip(TulipFrame::Data { packet, .. })
            | LinkFrame::Tulip(TulipFrame::Unreliable { packet })
            | LinkFrame::Dda(DdaFrame::Data { packet, .. })
            | LinkFrame::Dda(DdaFrame::Unreliable { packet }) => Some(packet),
            _ => None,
        }
    }
}

/// What drives any link layer.
#[derive(Clone, Debug)]
pub enum LinkInput {
    FromNetwork(Packet),
    FrameReceived(LinkFrame),
    MacSignal(MacSignal),
    Timeout,
}

/// Its effects, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkOutput {
    ToMac(LinkFrame),
    ToNetwork(Packet),
    /// A link layer with its own ARQ found that one attempt at this datagram failed (the
    /// cell tells its station's agent, as a `TxFailure` for the datagram).
    AttemptFailed(Packet),
}

/// Counters common to the link layers (zero where a protocol has no such thing).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkMetrics {
    pub retransmissions: u64,
    /// LACKs (TULIP) or link ACKs (stop-and-wait) sent.
    pub acks_sent: u64,
    /// LACKs / link ACKs received.
    pub acks_received: u64,
    /// Reliable frames released in order to the network layer.
    pub frames_released: u64,
    /// Reliable frames given up at the retry limit (RLP: datagrams lost to link resets).
    pub drops: u64,
    /// Frames received again though the receiver had them: redundant link retransmissions.
    pub duplicates_received: u64,
    /// TCP data segments handed to the link layer that it had been given before: TCP's
    /// retransmissions on top of the link's (RLP; the survey §2.1's "duplicated effort").
    pub tcp_duplicates: u64,
    /// Link resets (RLP after N2 unanswered polls).
    pub resets: u64,
}

/// `none`: hands each datagram to the MAC, one at a time.
#[derive(Clone, Debug, Default)]
pub struct NoLink {
    at_mac: bool,
}

/// Any link layer, for one peer.
#[derive(Clone, Debug)]
pub enum AnyLinkLayer {
    None(NoLink),
    StopAndWait(Box<StopAndWait>, SawAcks),
    Tulip(Box<TulipLink>),
    Rlp(Box<Rlp>),
    Airmail(Box<Airmail>),
    Dda(Box<DdaLink>),
}

/// Link ACKs received by a stop-and-wait sender (its own metrics count the sender side).
#[derive(Copy, Clone, Debug, Default)]
pub struct SawAcks(pub u64);

impl AnyLinkLayer {
    pub fn tulip_config(&self) -> Option<&TulipConfig> {
        match self {
            AnyLinkLayer::Tulip(t) => Some(t.sender().config()),
            _ => None,
        }
    }

    /// True when the layer wants `next`, the packet at the head of the interface queue.
    pub fn can_accept(&self, next: &Packet) -> bool {
        match self {
            AnyLinkLayer::None(n) => !n.at_mac,
            AnyLinkLayer::StopAndWait(s, _) => s.queued_packets() == 0,
            AnyLinkLayer::Tulip(t) => t.sender().can_accept(next),
            AnyLinkLayer::Rlp(r) => r.can_accept(),
            AnyLinkLayer::Airmail(a) => a.can_accept(),
            AnyLinkLayer::Dda(d) => d.queued_packets() == 0,
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            AnyLinkLayer::None(_) => None,
            AnyLinkLayer::StopAndWait(s, _) => s.poll_timeout(),
            AnyLinkLayer::Tulip(t) => t.poll_timeout(),
            AnyLinkLayer::Rlp(r) => r.poll_timeout(),
            AnyLinkLayer::Airmail(a) => a.poll_timeout(),
            AnyLinkLayer::Dda(d) => d.poll_timeout(),
        }
    }

    pub fn handle(&mut self, now: SimTime, input: LinkInput, out: &mut Vec<LinkOutput>) {
        match self {
            AnyLinkLayer::None(n) => n.handle(input, out),
            AnyLinkLayer::StopAndWait(s, acks) => {
                let input = match input {
                    LinkInput::FromNetwork(p) => SawInput::FromNetwork(p),
                    LinkInput::FrameReceived(LinkFrame::StopAndWait(f)) => {
                        if matches!(f, SawFrame::Ack { .. }) {
                            acks.0 += 1;
                        }
                        SawInput::FrameReceived(f)
                    }
                    LinkInput::FrameReceived(_) => return,
                    LinkInput::MacSignal(sig) => SawInput::MacSignal(sig),
                    LinkInput::Timeout => SawInput::Timeout,
                };
                let mut o = Vec::new();
                s.handle(now, input, &mut o);
                out.extend(o.into_iter().map(|x| match x {
                    SawOutput::ToMac(f) => LinkOutput::ToMac(LinkFrame::StopAndWait(f)),
                    SawOutput::ToNetwork(p) => LinkOutput::ToNetwork(p),
                }));
            }
            AnyLinkLayer::Tulip(t) => {
                let input = match input {
                    LinkInput::FromNetwork(p) => TulipInput::FromNetwork(p),
                    LinkInput::FrameReceived(LinkFrame::Tulip(f)) => TulipInput::FrameReceived(f),
                    LinkInput::FrameReceived(_) => return,
                    LinkInput::MacSignal(sig) => TulipInput::MacSignal(sig),
                    LinkInput::Timeout => TulipInput::Timeout,
                };
                let mut o = TulipOutbox::new();
                t.handle(now, input, &mut o);
                for x in o.drain() {
                    match x {
                        TulipOutput::ToMac(f) => out.push(LinkOutput::ToMac(LinkFrame::Tulip(f))),
                        TulipOutput::ToNetwork(p) => out.push(LinkOutput::ToNetwork(p)),
                        TulipOutput::Event(_) => {}
                    }
                }
            }
            AnyLinkLayer::Rlp(r) => {
                let input = match input {
                    LinkInput::FromNetwork(p) => RlpInput::FromNetwork(p),
                    LinkInput::FrameReceived(LinkFrame::Rlp { frame, .. }) => {
                        RlpInput::FrameReceived(frame)
                    }
                    LinkInput::FrameReceived(_) => return,
                    LinkInput::MacSignal(sig) => RlpInput::MacSignal(sig),
                    LinkInput::Timeout => RlpInput::Timeout,
                };
                let bytes = r.config().frame_bytes();
                let mut o = Vec::new();
                r.handle(now, input, &mut o);
                out.extend(o.into_iter().map(|x| match x {
                    RlpOutput::ToMac(frame) => LinkOutput::ToMac(LinkFrame::Rlp { frame, bytes }),
                    RlpOutput::ToNetwork(p) => LinkOutput::ToNetwork(p),
                }));
            }
            AnyLinkLayer::Airmail(a) => {
                let input = match input {
                    LinkInput::FromNetwork(p) => AirmailInput::FromNetwork(p),
                    LinkInput::FrameReceived(LinkFrame::Airmail { frame, .. }) => {
                        AirmailInput::FrameReceived(frame)
                    }
                    LinkInput::FrameReceived(_) => return,
                    LinkInput::MacSignal(sig) => AirmailInput::MacSignal(sig),
                    LinkInput::Timeout => AirmailInput::Timeout,
                };
                let mut o = Vec::new();
                a.handle(now, input, &mut o);
                for x in o {
                    out.push(match x {
                        AirmailOutput::ToMac(frame) => {
                            let bytes = a.config().frame_bytes(&frame);
                            LinkOutput::ToMac(LinkFrame::Airmail { frame, bytes })
                        }
                        AirmailOutput::ToNetwork(p) => LinkOutput::ToNetwork(p),
                    });
                }
            }
            AnyLinkLayer::Dda(d) => dda_handle(d, now, input, out),
        }
    }

    pub fn metrics(&self) -> LinkMetrics {
        match self {
            AnyLinkLayer::None(_) => LinkMetrics::default(),
            AnyLinkLayer::StopAndWait(s, acks) => {
                let SawMetrics {
                    retransmissions,
                    drops,
                    acks_sent,
                    frames_released,
                    ..
                } = s.metrics();
                LinkMetrics {
                    retransmissions,
                    acks_sent,
                    acks_received: acks.0,
                    frames_released,
                    drops,
                    duplicates_received: s.metrics().duplicates_discarded,
                    ..LinkMetrics::default()
                }
            }
            AnyLinkLayer::Tulip(t) => {
                let (s, r) = (t.sender().metrics(), t.receiver().metrics());
                LinkMetrics {
                    retransmissions: s.retransmissions,
                    acks_sent: r.lacks_sent,
                    acks_received: s.lacks_received,
                    frames_released: r.frames_released,
                    drops: 0,
                    ..LinkMetrics::default()
                }
            }
            AnyLinkLayer::Rlp(r) => {
                let m = r.metrics();
                LinkMetrics {
                    retransmissions: m.retransmissions,
                    acks_sent: m.s_frames_sent,
                    acks_received: m.s_frames_received,
                    frames_released: m.frames_released,
                    drops: m.datagrams_dropped,
                    duplicates_received: m.duplicates_received,
                    tcp_duplicates: m.tcp_duplicates,
                    resets: m.resets,
                }
            }
            AnyLinkLayer::Airmail(a) => {
                let m = a.metrics();
                LinkMetrics {
                    retransmissions: m.retransmissions,
                    acks_sent: m.statuses_sent,
                    acks_received: m.statuses_received,
                    frames_released: m.blocks_released,
                    drops: 0,
                    duplicates_received: m.duplicates_received,
                    tcp_duplicates: m.tcp_duplicates,
                    resets: 0,
                }
            }
            AnyLinkLayer::Dda(d) => {
                let m = d.metrics();
                LinkMetrics {
                    retransmissions: m.retransmissions,
                    acks_sent: m.acks_sent,
                    acks_received: m.acks_received,
                    frames_released: m.frames_released,
                    drops: m.drops,
                    duplicates_received: m.duplicates_discarded,
                    ..LinkMetrics::default()
                }
            }
        }
    }
}

/// The DDA link layer behind `AnyLinkLayer::handle`.
fn dda_handle(d: &mut DdaLink, now: SimTime, input: LinkInput, out: &mut Vec<LinkOutput>) {
    let input = match input {
        LinkInput::FromNetwork(p) => DdaInput::FromNetwork(p),
        LinkInput::FrameReceived(LinkFrame::Dda(f)) => DdaInput::FrameReceived(f),
        LinkInput::FrameReceived(_) => return,
        LinkInput::MacSignal(sig) => DdaInput::MacSignal(sig),
        LinkInput::Timeout => DdaInput::Timeout,
    };
    let mut o = Vec::new();
    d.handle(now, input, &mut o);
    out.extend(o.into_iter().map(|x| match x {
        DdaOutput::ToMac(f) => LinkOutput::ToMac(LinkFrame::Dda(f)),
        DdaOutput::ToNetwork(p) => LinkOutput::ToNetwork(p),
        DdaOutput::AttemptFailed(p) => LinkOutput::AttemptFailed(p),
    }));
}

impl NoLink {
    fn handle(&mut self, input: LinkInput, out: &mut Vec<LinkOutput>) {
        match input {
            LinkInput::FromNetwork(p) => {
                self.at_mac = true;
                out.push(LinkOutput::ToMac(LinkFrame::Plain(p)));
            }
            LinkInput::FrameReceived(LinkFrame::Plain(p)) => out.push(LinkOutput::ToNetwork(p)),
            LinkInput::MacSignal(MacSignal::TxSuccess | MacSignal::TxFailure) => {
                self.at_mac = false
            }
            _ => {}
        }
    }
}
