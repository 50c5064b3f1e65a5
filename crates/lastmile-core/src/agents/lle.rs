//! LLE-TCP (Kliazovich, Granelli & Gerla, "Performance improvement in wireless networks
//! using cross-layer ARQ", §3): TCP ACKs generated from the link layer's ARQ outcome at the
//! wireless sender instead of crossing the air from the receiver.
//!
//! One state machine, `LleAgent`, plays both of the paper's modules; its `LleRole` says
//! which connections it takes:
//!
//! * **ARQ agent** (`LleRole::Agent`, §3.1) on the wireless sender — the base station, or
//!   the TCP sender itself in the single-hop ad hoc case (§3.1, last paragraphs). It takes
//!   the connections **opened from its side** (the SYN heads onto the air). For every
//!   segment of that side that occupies sequence space (data, FIN; never a SYN) and is
//!   handed towards the MAC, the ACK the receiver would send is "prepared"; on the MAC's
//!   `TxSuccess` for that very frame it is released towards the sender (forwarded to the
//!   fixed host, or delivered to the local TCP), on `TxFailure` it is dropped (Fig. 3).
//! * **ARQ client** (`LleRole::Client`, §3.1) on the receiver: takes the connections
//!   **opened from the far side**, and silently drops the local TCP's standalone,
//!   non-duplicate ACKs.
//!
//! Both modules do both halves for their own side, so the rules hold in each direction:
//! an LLE node **suppresses** its own side's standalone non-duplicate ACKs and
//! **generates** the far side's ACKs for its own side's sequence-consuming segments. In a
//! one-way transfer this gives §3.2's phases exactly:
//! * establishment: SYN and SYN-ACK cross the air; the third ACK is suppressed by the agent
//!   (the receiver enters ESTABLISHED on the first data segment's ACK, RFC 9293 §3.10.7.4);
//! * data: the receiver's ACKs are suppressed by the client, the agent generates them;
//! * teardown: the agent generates the ACK of the sender's FIN; the receiver's FIN crosses
//!   the air and the client generates its ACK on `TxSuccess`, while the agent suppresses
//!   the sender's own ACK of it — no standalone ACK crosses the air.
//!
//! **Duplicate ACKs are never suppressed** (§3.2): a pure ACK whose acknowledgement number
//! and window equal those of the previous ACK its TCP sent passes. Nor are ACKs that
//! announce buffer exhaustion (window 0) or reopen a zero window (§3.3, "not to block").
//! **Piggybacked ACKs** (§3.2): data from the far side whose ACK acknowledges nothing beyond
//! what this node already generated has its ACK flag cleared. (An RFC 9293 TCP drops a
//! segment without ACK in a synchronized state; lastmile's applications write only at the
//! source, so no lastmile connection carries data both ways.)
//!
//! **Never ahead of the receiver** (`after_give_up = "resync"`, the default): the agent keeps
//! a model of what the receiver holds — its in-order edge `rcv_nxt` and the ranges delivered
//! above a hole. A `TxSuccess` adds the frame's range; an ACK is released only when
//! `rcv_nxt` moves, and acknowledges `rcv_nxt`. After a `TxFailure` the edge stays at the
//! frame until something proves the receiver holds it; the cumulative ACK then covers
//! everything delivered above. The far side's own ACKs that get through (duplicates) also
//! move the edge.
//!
//! **After a give-up** the agent cannot tell a lost frame from one whose MAC ACKs were all
//! lost (at PER 0.3 both ways about 97 % of give-ups are the latter). Left alone, the second
//! case is a phantom hole: the receiver holds the data and sends new ACKs, which its client
//! suppresses as non-duplicates, so the agent hears nothing, generates nothing for the
//! frames above, and the sender waits for its RTO — one timeout per give-up. So with
//! `resync` the agent hands the segment back to the MAC (the datagram the `TxFailure`
//! carried), up to `MAX_GIVE_UP_RESENDS` times per segment: the copy's `TxSuccess` proves
//! the receiver holds it either way (a real loss is filled; a phantom one is a duplicate,
//! which the receiver answers with a duplicate ACK that passes its client, §3.2), and the
//! cumulative ACK follows. Nothing the receiver lacks is ever acknowledged. If every copy
//! fails too, the sender's own recovery (fast retransmit on the receiver's duplicate ACKs,
//! or its RTO) takes over, as before. This resending is not in the paper; a client that
//! let the receiver's ACKs through after a give-up would need a signal from the sender's
//! side that the paper does not have.
//!
//! **The paper's rule** (`after_give_up = "paper"`): §3.1's generated ACK "acknowledges the
//! packet just transmitted": on `TxSuccess` it acknowledges up to the frame's end, covering
//! any earlier frame the MAC gave up on whether the receiver got it or not. A really lost
//! segment is then acknowledged and never resent by the sender (its receiver waits for it
//! for good), which is why it is not the default; it is there for comparison (LLE Fig. 7).
//!
//! **What the generated ACK reproduces** (it copies the receiver's header fields, §3.1):
//! addresses and ports; seq = the receiver's next sequence number (from every segment it
//! sent that this node saw); ack = `rcv_nxt`; window = the last window the receiver
//! advertised (its SYN-ACK, later ACKs that passed) — or, with `advertise_buffer`,
//! min(that, `buffer` − this connection's bytes waiting at this node for the air) (§3.3);
//! timestamps: TSecr = the TSval of the segment that moved `rcv_nxt` (RFC 7323 §4.3), TSval =
//! the latest TSval seen from the receiver. **Not reproduced**: the receiver's clock (its
//! TSval does not advance between the packets it sends over the air), window changes it
//! made without telling, SACK blocks (never needed: an ACK is generated only for in-order
//! data), and delayed-ACK pacing (one ACK per sequence-consuming frame, as in the paper).
//!
//! Left out: generating the third handshake ACK at the receiver's side, negotiation of LLE
//! with the base station (§3.1, "switching off ARQ client"), link layers below the MAC's
//! ARQ (signals are the MAC's).

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use super::{AgentInput, AgentOutbox, LocalDir, Side, Verdict};
use crate::engine::SimTime;
use crate::ids::FlowId;
use crate::metrics::{AgentSummary, LleSummary};
use crate::packet::{
    Control, Ipv4Addr, Ipv4Header, Packet, PacketId, SeqNumber, Service, TcpHeader, TcpOptions,
    TcpSegment, Transport, DEFAULT_TTL, PROTO_TCP,
};
use crate::wireless::signals::MacSignal;

pub use super::config::{LleAfterGiveUp, LleSpec};

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
    fn of(way: Way, p: &Packet) -> Option<LleKey> {
        let seg = p.tcp()?;
        let (src, dst) = (
            (p.ip.src, seg.header.src_port),
            (p.ip.dst, seg.header.dst_port),
        );
        Some(match way {
            Way::TowardAir => LleKey {
                near: src,
                far: dst,
            },
            Way::FromAir => LleKey {
                near: dst,
                far: src,
            },
        })
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

    /// Moves `rcv_nxt` over the ranges delivered above it; true if it moved.
    fn advance_to(&mut self, ack: SeqNumber) -> bool {
        let Some(old) = self.rcv_nxt else {
            return false;
        };
        let mut edge = old.max(ack);
        while let Some((&start, &end)) = self.above.iter().find(|(&s, _)| SeqNumber(s) <= edge) {
            self.above.remove(&start);
            edge = edge.max(end);
        }
        self.rcv_nxt = Some(edge);
        let acked = edge;
        self.waiting.retain(|&s, _| SeqNumber(s) >= acked);
        edge > old
    }
}

/// LLE-TCP's ARQ agent or ARQ client (module notes).
#[derive(Clone, Debug)]
pub struct LleAgent {
    role: LleRole,
    spec: LleSpec,
    conns: BTreeMap<LleKey, LleConn>,
    counters: LleSummary,
}

impl LleAgent {
    pub fn new(role: LleRole, spec: LleSpec) -> Self {
        LleAgent {
            role,
            spec,
            conns: BTreeMap::new(),
            counters: LleSummary::default(),
        }
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

    pub fn handle(&mut self, _now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
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
                };
                self.on_packet(way, packet, out);
            }
            AgentInput::Link {
                signal,
                packet: Some(p),
            } => self.on_link(signal, p, out),
            AgentInput::Link { packet: None, .. } | AgentInput::Timer => {}
        }
    }

    /// LLE-TCP holds no data and has no timers: its liveness rests on the MAC's signals,
    /// which `on_link` always answers. What it checks is that the model is never ahead of
    /// what was acknowledged: no generated ACK beyond the modelled edge.
    pub fn check(&self) -> Result<(), String> {
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

    /// LLE-TCP has no timers.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        None
    }

    pub fn summary(&self, _end: SimTime) -> AgentSummary {
        AgentSummary {
            kind: "lle".into(),
            lle: Some(self.counters.clone()),
            ..AgentSummary::default()
        }
    }

    fn takes(&self, syn_way: Way) -> bool {
        match self.role {
            LleRole::Agent => syn_way == Way::TowardAir,
            LleRole::Client => syn_way == Way::FromAir,
        }
    }

    fn on_packet(&mut self, way: Way, packet: &mut Packet, out: &mut AgentOutbox) {
        let Some(key) = LleKey::of(way, packet) else {
            return;
        };
        let seg = *packet.tcp().expect("keyed");
        if seg.header.control == Control::Syn && seg.header.ack.is_none() && self.takes(way) {
            self.conns.insert(
                key,
                LleConn {
                    flow: packet.flow,
                    awaiting_handshake_ack: way == Way::TowardAir,
                    ..LleConn::default()
                },
            );
        }
        if !self.conns.contains_key(&key) {
            return;
        }
        match way {
            Way::TowardAir => self.on_near_segment(key, &seg, out),
            Way::FromAir => self.on_far_segment(key, packet),
        }
    }

    /// A segment of the near side heading onto the air.
    fn on_near_segment(&mut self, key: LleKey, seg: &TcpSegment, out: &mut AgentOutbox) {
        let c = self.conns.get_mut(&key).expect("present");
        let h = &seg.header;
        if h.control == Control::Syn {
            c.rcv_nxt = Some(h.seq + 1);
        } else if seg.seq_len() > 0 {
            c.waiting.insert(h.seq.0, seg.seq_len());
            self.counters.acks_prepared += 1;
        }
        let Some(ack) = h.ack else { return };
        let previous = c.near_last_ack.replace((ack, h.window));
        if !seg.is_pure_ack() || h.control == Control::Rst {
            return;
        }
        let duplicate = previous == Some((ack, h.window));
        // §3.3: "not to block" packets that specify buffer exhaustion (or lift it).
        let window_news = h.window == 0 || previous.is_some_and(|(_, w)| w == 0);
        if duplicate || window_news {
            self.counters.acks_passed += 1;
            return;
        }
        out.verdict = Verdict::Drop;
        if std::mem::take(&mut c.awaiting_handshake_ack) {
            self.counters.handshake_acks_suppressed += 1;
        } else {
            self.counters.acks_suppressed += 1;
        }
    }

    /// A segment of the far side arriving from the air: learn its header fields; clear a
    /// piggybacked ACK that acknowledges nothing new (§3.2).
    fn on_far_segment(&mut self, key: LleKey, packet: &mut Packet) {
        let c = self.conns.get_mut(&key).expect("present");
        let seg = packet.tcp_mut().expect("keyed");
        let h = seg.header;
        let end = h.seq + seg.seq_len();
        c.far_snd_nxt = Some(c.far_snd_nxt.map_or(end, |n| n.max(end)));
        c.far_window = h.window;
        if let Some((tsval, _)) = h.options.timestamp {
            c.far_tsval = Some(c.far_tsval.map_or(tsval, |t| t.max(tsval)));
        }
        let Some(ack) = h.ack else { return };
        if c.rcv_nxt.is_some() && h.control != Control::Syn {
            c.advance_to(ack);
        }
        let stale = c.last_generated.is_some_and(|g| ack <= g);
        if seg.payload_len > 0 && stale && h.control != Control::Syn {
            seg.header.ack = None;
            self.counters.ack_flags_cleared += 1;
        }
    }

    /// The MAC's verdict on a frame of this station.
    fn on_link(&mut self, signal: MacSignal, p: &Packet, out: &mut AgentOutbox) {
        let Some(key) = LleKey::of(Way::TowardAir, p) else {
            return;
        };
        let seg = *p.tcp().expect("keyed");
        let Some(c) = self.conns.get_mut(&key) else {
            return;
        };
        if seg.seq_len() == 0 || seg.header.control == Control::Syn {
            return;
        }
        let (start, end) = (seg.header.seq, seg.header.seq + seg.seq_len());
        let paper = self.spec.after_give_up == LleAfterGiveUp::Paper;
        match signal {
            MacSignal::TxSuccess => {
                c.waiting.remove(&start.0);
                let Some(edge) = c.rcv_nxt else { return };
                if end > edge {
                    // §3.1 literally: the packet just transmitted is acknowledged, whatever
                    // failed before it.
                    let from = if paper { edge.0 } else { start.0.max(edge.0) };
                    let e = c.above.entry(from).or_insert(end);
                    *e = (*e).max(end);
                }
                if !c.advance_to(edge) {
                    return; // Above a hole (or old): the receiver's own dupack says so.
                }
                let ack = self.make_ack(key, &seg);
                out.packets.push(ack);
            }
            MacSignal::TxFailure => {
                c.waiting.remove(&start.0);
                self.counters.acks_dropped_on_failure += 1;
                let in_doubt = c.rcv_nxt.is_some_and(|edge| end > edge);
                if !paper && in_doubt && c.resend_after_give_up(start, seg.seq_len()) {
                    self.counters.give_up_resends += 1;
                    out.packets.push(*p);
                }
            }
            MacSignal::Trans | MacSignal::Wait { .. } => {}
        }
    }

    /// The far side's ACK of everything up to `rcv_nxt` (module notes: what it reproduces).
    fn make_ack(&mut self, key: LleKey, trigger: &TcpSegment) -> Packet {
        let c = self.conns.get_mut(&key).expect("present");
        let ack = c.rcv_nxt.expect("modelled");
        c.last_generated = Some(ack);
        let mut window = c.far_window;
        if self.spec.advertise_buffer {
            let free = self.spec.buffer.bytes().saturating_sub(c.waiting_bytes());
            window = window.min(free.min(u64::from(u32::MAX)) as u32);
        }
        let timestamp = match (trigger.header.options.timestamp, c.far_tsval) {
            (Some((tsval, _)), Some(far)) => Some((far, tsval)),
            _ => None,
        };
        self.counters.acks_generated += 1;
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
                    seq: c.far_snd_nxt.unwrap_or(SeqNumber(0)),
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
            flow: c.flow,
            service: Service::Unreliable,
        };
        p.fix_length();
        p
    }
}
