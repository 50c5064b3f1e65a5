//! LLE-TCP (Kliazovich, Granelli & Gerla, "Performance improvement in wireless networks
//! using cross-layer ARQ", §3): TCP ACKs generated from the link layer's ARQ outcome at the
//! wireless sender instead of crossing the air from the receiver. `docs/models/lle.md`
//! gives the reasons for each rule below and what was measured.
//!
//! One state machine, `LleAgent`, plays both of the paper's modules (`LleRole`):
//! * the **ARQ agent** (§3.1) on the wireless sender — the base station, or the TCP sender
//!   itself in ad hoc — takes the connections opened from its side. For every segment of
//!   that side that occupies sequence space (data, FIN) it "prepares" the ACK the receiver
//!   would send; the MAC's `TxSuccess` for that frame releases it towards the sender,
//!   `TxFailure` drops it (Fig. 3);
//! * the **ARQ client** (§3.1) on the receiver takes the connections opened from the far
//!   side and drops the local TCP's standalone, non-duplicate ACKs.
//!
//! Each node does both halves for its own side, which gives §3.2's phases: the third
//! handshake ACK is suppressed by the agent, data ACKs by the client, and the FINs' ACKs
//! are generated — no standalone ACK crosses the air. **Never suppressed** (§3.2, §3.3):
//! duplicate ACKs (same ACK number and window as the previous), and ACKs that announce or
//! lift a zero window. **Piggybacked ACKs** (§3.2) that acknowledge nothing new are
//! neutralised: the paper clears their ACK flag, but a standard TCP drops a segment without
//! ACK in a synchronized state (RFC 9293 §3.10.7.4: "if the ACK bit is off, drop the
//! segment"), so the mobile's data would never arrive (a request/response flow delivered
//! nothing). Their ACK number is set to the last one the agent generated instead: it
//! acknowledges nothing new, and carrying data it is no duplicate ACK (RFC 5681 §2) —
//! §3.2's intent, on a segment the fixed host accepts.
//!
//! **Never ahead of the receiver** (`after_give_up = "resync"`, the default): the agent
//! models the receiver's in-order edge `rcv_nxt` and the ranges above a hole; a
//! `TxSuccess` adds its frame's range and an ACK is released, acknowledging `rcv_nxt`,
//! only when the edge moves. After a `TxFailure` (the MAC gave up — usually because only
//! its ACKs were lost) the segment goes back to the MAC up to `MAX_GIVE_UP_RESENDS` times,
//! so that a `TxSuccess` settles the doubt; this resending is not in the paper. With
//! `after_give_up = "paper"` the ACK released on `TxSuccess` acknowledges up to the frame's
//! end, as §3.1 says ("acknowledges the packet just transmitted"), covering earlier frames
//! the MAC gave up on.
//!
//! **The generated ACK** copies the receiver's header fields (§3.1): addresses, ports, its
//! next sequence number, its last advertised window — with `advertise_buffer`, at most
//! the free part of `buffer` (§3.3) — and timestamps (TSecr = the TSval of the segment that
//! moved `rcv_nxt`, RFC 7323 §4.3; TSval = the latest seen from the receiver).
//!
//! **Some mobiles only** (`mobiles`, §4.4's "LLE-TCP enabled for 5 out of 10 evaluated
//! flows"): the ARQ agent takes only the connections to the listed receivers' addresses
//! (`serving_only`) and only those receivers get a client; the other connections pass the
//! base station untouched, as plain TCP.
//!
//! Left out: the receiver's clock between its packets, window changes it made without
//! telling, SACK blocks, delayed-ACK pacing; generating the third handshake ACK at the
//! receiver's side, negotiation of LLE with the base station (§3.1, "switching off ARQ
//! client"), link layers below the MAC's ARQ.

mod spec;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use super::{Agent, AgentInput, AgentOutbox, LocalDir, Side, Verdict};
use crate::engine::SimTime;
use crate::ids::FlowId;
use crate::metrics::{AgentOwnMetrics, AgentSummary, LleSummary};
use crate::packet::{
    Control, Ipv4Addr, Ipv4Header, Packet, PacketId, SeqNumber, Service, TcpHeader, TcpOptions,
    TcpSegment, Transport, DEFAULT_TTL, PROTO_TCP,
};
use crate::wireless::signals::MacSignal;

pub use spec::{LleAfterGiveUp, LleSpec};

/// Times one segment is handed back to the MAC after give-ups before the agent leaves it to
/// the sender's own recovery (`after_give_up = "resync"`).
pub const MAX_GIVE_UP_RESENDS: u32 = 3;

/// Which of the paper's two modules an `LleAgent` is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LleRole {
    /// The ARQ agent on the wireless sender (base station / ad hoc sender).
    Agent,
    /// The ARQ client on the receiver.
    Client,
}

/// A connection as one LLE node sees it: its own ("near") endpoint and the far one.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LleKey {
    pub near: (Ipv4Addr, u16),
    pub far: (Ipv4Addr, u16),
}

/// Where a packet is going relative to the air.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Way {
    /// From this node's side, heading onto the air.
    TowardAir,
    /// From across the air, heading to this node's side.
    FromAir,
}

impl LleKey {
    /// The key of `p`'s connection and its TCP segment; `None` for a packet that is not TCP.
    fn of(way: Way, p: &Packet) -> Option<(LleKey, TcpSegment)> {
        let seg = *p.tcp()?;
        let (src, dst) = (
            (p.ip.src, seg.header.src_port),
            (p.ip.dst, seg.header.dst_port),
        );
        let key = match way {
            Way::TowardAir => LleKey {
                near: src,
                far: dst,
            },
            Way::FromAir => LleKey {
                near: dst,
                far: src,
            },
        };
        Some((key, seg))
    }
}

/// Per-connection state.
#[derive(Clone, Debug, Default)]
struct LleConn {
    flow: FlowId,
    /// The far side's model: in-order edge of the near side's stream it holds.
    rcv_nxt: Option<SeqNumber>,
    /// Ranges of the near side's stream delivered above `rcv_nxt` (start → end).
    above: BTreeMap<u32, SeqNumber>,
    /// The far side's next sequence number, last advertised window and latest TSval.
    far_snd_nxt: Option<SeqNumber>,
    far_window: u32,
    far_tsval: Option<u32>,
    /// The last acknowledgement this node generated for the far side.
    last_generated: Option<SeqNumber>,
    /// The last ACK number and window the near TCP sent (suppressed or not).
    near_last_ack: Option<(SeqNumber, u32)>,
    /// Whether the near side sent the SYN (and its handshake ACK is still to come).
    awaiting_handshake_ack: bool,
    /// Near-side segments waiting at this node for the air (seq → bytes), for §3.3.
    waiting: BTreeMap<u32, u32>,
    /// The segment last handed back to the MAC after a give-up, and how many times.
    resent: Option<(SeqNumber, u32)>,
}

/// What every connection's handlers share: the settings, the counters and the outbox.
struct Cx<'a> {
    spec: &'a LleSpec,
    counters: &'a mut LleSummary,
    out: &'a mut AgentOutbox,
}

/// LLE-TCP's ARQ agent or ARQ client (module notes).
#[derive(Clone, Debug)]
pub struct LleAgent {
    role: LleRole,
    spec: LleSpec,
    conns: BTreeMap<LleKey, LleConn>,
    counters: LleSummary,
    /// The receivers the ARQ agent serves (`mobiles`); `None`: every one.
    serves: Option<BTreeSet<Ipv4Addr>>,
}

impl LleAgent {
    pub fn new(role: LleRole, spec: LleSpec) -> Self {
        LleAgent {
            role,
            spec,
            conns: BTreeMap::new(),
            counters: LleSummary::default(),
            serves: None,
        }
    }

    /// The same agent taking only connections to (ARQ agent) the receivers at `addresses`;
    /// the others pass untouched, as through a base station without LLE-TCP.
    pub fn serving_only(mut self, addresses: BTreeSet<Ipv4Addr>) -> Self {
        self.serves = Some(addresses);
        self
    }

    pub fn role(&self) -> LleRole {
        self.role
    }

    /// The counters so far.
    pub fn counters(&self) -> &LleSummary {
        &self.counters
    }

    /// The acknowledgement number of the last ACK generated for `key`.
    pub fn last_generated(&self, key: &LleKey) -> Option<SeqNumber> {
        self.conns.get(key).and_then(|c| c.last_generated)
    }

    /// The receiver's in-order edge as this node models it.
    pub fn modeled_rcv_nxt(&self, key: &LleKey) -> Option<SeqNumber> {
        self.conns.get(key).and_then(|c| c.rcv_nxt)
    }

    /// Whether a connection whose SYN goes `syn_way` is this node's to serve.
    fn takes(&self, syn_way: Way, key: &LleKey) -> bool {
        match self.role {
            LleRole::Agent => {
                syn_way == Way::TowardAir
                    && self.serves.as_ref().is_none_or(|s| s.contains(&key.far.0))
            }
            LleRole::Client => syn_way == Way::FromAir,
        }
    }

    /// Splits the agent into a connection's state and the context its handlers share.
    fn conn_and_cx<'a>(
        &'a mut self,
        key: &LleKey,
        out: &'a mut AgentOutbox,
    ) -> Option<(&'a mut LleConn, Cx<'a>)> {
        let c = self.conns.get_mut(key)?;
        let cx = Cx {
            spec: &self.spec,
            counters: &mut self.counters,
            out,
        };
        Some((c, cx))
    }

    fn on_packet(&mut self, way: Way, packet: &mut Packet, out: &mut AgentOutbox) {
        let Some((key, seg)) = LleKey::of(way, packet) else {
            return;
        };
        if seg.header.control == Control::Syn && seg.header.ack.is_none() && self.takes(way, &key) {
            self.conns.insert(
                key,
                LleConn {
                    flow: packet.flow,
                    awaiting_handshake_ack: way == Way::TowardAir,
                    ..LleConn::default()
                },
            );
        }
        let Some((c, mut cx)) = self.conn_and_cx(&key, out) else {
            return;
        };
        match way {
            Way::TowardAir => c.on_near_segment(&mut cx, &seg),
            Way::FromAir => c.on_far_segment(&mut cx, packet),
        }
    }

    /// The MAC's verdict on a frame of this station.
    fn on_link(&mut self, signal: MacSignal, p: &Packet, out: &mut AgentOutbox) {
        let Some((key, seg)) = LleKey::of(Way::TowardAir, p) else {
            return;
        };
        if let Some((c, mut cx)) = self.conn_and_cx(&key, out) {
            c.on_link(&mut cx, key, signal, &seg, p);
        }
    }
}

impl Agent for LleAgent {
    fn handle(&mut self, _now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        match input {
            AgentInput::Packet { side, packet } => {
                let way = match side {
                    Side::Wired => Way::TowardAir,
                    Side::Wireless => Way::FromAir,
                };
                self.on_packet(way, packet, out);
            }
            AgentInput::Local { dir, packet } => {
                let way = match dir {
                    LocalDir::Sent => Way::TowardAir,
                    LocalDir::Delivered => Way::FromAir,
                    LocalDir::Corrupted => return, // Never asked for.
                };
                self.on_packet(way, packet, out);
            }
            AgentInput::Link {
                signal,
                packet: Some(p),
            } => self.on_link(signal, p, out),
            AgentInput::Link { packet: None, .. }
            | AgentInput::Timer
            | AgentInput::Mobility(_)
            | AgentInput::Handover(_) => {}
        }
    }

    /// LLE-TCP has no timers.
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }

    /// LLE-TCP holds no data and has no timers: its liveness rests on the MAC's signals,
    /// which `on_link` always answers. What it checks is that the model is never ahead of
    /// what was acknowledged: no generated ACK beyond the modelled edge.
    fn check(&self) -> Result<(), String> {
        for (key, c) in &self.conns {
            if let (Some(g), Some(edge)) = (c.last_generated, c.rcv_nxt) {
                if g > edge {
                    return Err(format!(
                        "lle {key:?}: generated an ACK for {g:?} beyond the modelled edge {edge:?}"
                    ));
                }
            }
        }
        Ok(())
    }

    fn summary(&self, _end: SimTime) -> AgentSummary {
        AgentSummary {
            kind: "lle".into(),
            own: AgentOwnMetrics::Lle(self.counters.clone()),
            ..AgentSummary::default()
        }
    }

    /// The ARQ agent acts on its station's `TxSuccess` / `TxFailure`.
    fn wants_link_signals(&self) -> bool {
        true
    }

    /// The ARQ agent (ad hoc) and the client sit on end hosts: they see the local TCP's
    /// packets.
    fn wants_local_packets(&self) -> bool {
        true
    }
}

impl LleConn {
    /// Counts one more resend of the segment at `start` after a give-up; false once it was
    /// resent `MAX_GIVE_UP_RESENDS` times in a row (module notes, "After a give-up").
    fn resend_after_give_up(&mut self, start: SeqNumber, len: u32) -> bool {
        let count = match self.resent {
            Some((s, n)) if s == start => n + 1,
            _ => 1,
        };
        if count > MAX_GIVE_UP_RESENDS {
            return false;
        }
        self.resent = Some((start, count));
        self.waiting.insert(start.0, len);
        true
    }

    fn waiting_bytes(&self) -> u64 {
        self.waiting.values().map(|&b| u64::from(b)).sum()
    }

    /// Moves `rcv_nxt` over the ranges delivered above it; the new edge if it moved.
    fn advance_to(&mut self, ack: SeqNumber) -> Option<SeqNumber> {
        let old = self.rcv_nxt?;
        let mut edge = old.max(ack);
        while let Some((&start, &end)) = self.above.iter().find(|(&s, _)| SeqNumber(s) <= edge) {
            self.above.remove(&start);
            edge = edge.max(end);
        }
        self.rcv_nxt = Some(edge);
        self.waiting.retain(|&s, _| SeqNumber(s) >= edge);
        (edge > old).then_some(edge)
    }

    /// A segment of the near side heading onto the air.
    fn on_near_segment(&mut self, cx: &mut Cx<'_>, seg: &TcpSegment) {
        let h = &seg.header;
        if h.control == Control::Syn {
            self.rcv_nxt = Some(h.seq + 1);
        } else if seg.seq_len() > 0 {
            self.waiting.insert(h.seq.0, seg.seq_len());
            cx.counters.acks_prepared += 1;
        }
        let Some(ack) = h.ack else { return };
        let previous = self.near_last_ack.replace((ack, h.window));
        if !seg.is_pure_ack() || h.control == Control::Rst {
            return;
        }
        let duplicate = previous == Some((ack, h.window));
        // §3.3: "not to block" packets that specify buffer exhaustion (or lift it).
        let window_news = h.window == 0 || previous.is_some_and(|(_, w)| w == 0);
        if duplicate || window_news {
            cx.counters.acks_passed += 1;
            return;
        }
        cx.out.verdict = Verdict::Drop;
        if std::mem::take(&mut self.awaiting_handshake_ack) {
            cx.counters.handshake_acks_suppressed += 1;
        } else {
            cx.counters.acks_suppressed += 1;
        }
    }

    /// A segment of the far side arriving from the air: learn its header fields; neutralise
    /// a piggybacked ACK that acknowledges nothing new (§3.2; module notes: its ACK number
    /// becomes the last generated one rather than its flag being cleared).
    fn on_far_segment(&mut self, cx: &mut Cx<'_>, packet: &mut Packet) {
        let Some(seg) = packet.tcp_mut() else {
            return;
        };
        let h = seg.header;
        let end = h.seq + seg.seq_len();
        self.far_snd_nxt = Some(self.far_snd_nxt.map_or(end, |n| n.max(end)));
        self.far_window = h.window;
        if let Some((tsval, _)) = h.options.timestamp {
            self.far_tsval = Some(self.far_tsval.map_or(tsval, |t| t.max(tsval)));
        }
        let Some(ack) = h.ack else { return };
        if self.rcv_nxt.is_some() && h.control != Control::Syn {
            self.advance_to(ack);
        }
        if let Some(g) = self.last_generated.filter(|&g| ack <= g) {
            if seg.payload_len > 0 && h.control != Control::Syn {
                seg.header.ack = Some(g);
                cx.counters.piggybacked_acks_neutralised += 1;
            }
        }
    }

    /// The MAC's verdict on frame `p` (segment `seg`) of this connection.
    fn on_link(
        &mut self,
        cx: &mut Cx<'_>,
        key: LleKey,
        signal: MacSignal,
        seg: &TcpSegment,
        p: &Packet,
    ) {
        if seg.seq_len() == 0 || seg.header.control == Control::Syn {
            return;
        }
        let (start, end) = (seg.header.seq, seg.header.seq + seg.seq_len());
        let paper = cx.spec.after_give_up == LleAfterGiveUp::Paper;
        match signal {
            MacSignal::TxSuccess => {
                self.waiting.remove(&start.0);
                let Some(edge) = self.rcv_nxt else { return };
                if end > edge {
                    // §3.1 literally: the packet just transmitted is acknowledged, whatever
                    // failed before it.
                    let from = if paper { edge.0 } else { start.0.max(edge.0) };
                    let e = self.above.entry(from).or_insert(end);
                    *e = (*e).max(end);
                }
                let Some(ack) = self.advance_to(edge) else {
                    return; // Above a hole (or old): the receiver's own dupack says so.
                };
                let ack = self.make_ack(cx, key, seg, ack);
                cx.out.packets.push(ack);
            }
            MacSignal::TxFailure => {
                self.waiting.remove(&start.0);
                cx.counters.acks_dropped_on_failure += 1;
                let in_doubt = self.rcv_nxt.is_some_and(|edge| end > edge);
                if !paper && in_doubt && self.resend_after_give_up(start, seg.seq_len()) {
                    cx.counters.give_up_resends += 1;
                    cx.out.packets.push(*p);
                }
            }
            MacSignal::Trans | MacSignal::Wait { .. } => {}
        }
    }

    /// The far side's ACK of everything up to `ack` = `rcv_nxt` (module notes: what it
    /// reproduces).
    fn make_ack(
        &mut self,
        cx: &mut Cx<'_>,
        key: LleKey,
        trigger: &TcpSegment,
        ack: SeqNumber,
    ) -> Packet {
        self.last_generated = Some(ack);
        let mut window = self.far_window;
        if cx.spec.advertise_buffer {
            let free = cx.spec.buffer.bytes().saturating_sub(self.waiting_bytes());
            window = window.min(free.min(u64::from(u32::MAX)) as u32);
        }
        let timestamp = match (trigger.header.options.timestamp, self.far_tsval) {
            (Some((tsval, _)), Some(far)) => Some((far, tsval)),
            _ => None,
        };
        cx.counters.acks_generated += 1;
        let mut p = Packet {
            id: PacketId(0),
            origin_time: SimTime::ZERO,
            ip: Ipv4Header {
                src: key.far.0,
                dst: key.near.0,
                protocol: PROTO_TCP,
                ttl: DEFAULT_TTL,
                total_len: 0,
                ident: 0,
                ecn: crate::packet::Ecn::NotEct,
            },
            transport: Transport::Tcp(TcpSegment {
                header: TcpHeader {
                    src_port: key.far.1,
                    dst_port: key.near.1,
                    seq: self.far_snd_nxt.unwrap_or(SeqNumber(0)),
                    ack: Some(ack),
                    control: Control::None,
                    window,
                    options: TcpOptions {
                        timestamp,
                        ..TcpOptions::default()
                    },
                    ece: false,
                    cwr: false,
                    sender_in_slow_start: false,
                },
                payload_len: 0,
            }),
            flow: self.flow,
            service: Service::Unreliable,
        };
        p.fix_length();
        p
    }
}
