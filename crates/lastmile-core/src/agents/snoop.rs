//! Snoop (Balakrishnan et al.), as the TULIP paper configured the BSD code it ran
//! (TULIP §2, §4, §5.2), with the implementation choices of `protocol-notes.md` §1.
//! `docs/models/snoop.md` gives each rule's reasons and the runs that shaped it;
//! `variant = "ns2"` runs ns-2.35's Snoop instead (`snoop/ns2.rs`).
//!
//! * **Cache**: every data segment from the fixed host is cached (up to `cache_packets`
//!   per connection, ns-2's `maxbufs`) and forwarded; the mobile's cumulative ACKs free
//!   it. A sender retransmission of a cached segment is forwarded again and marked
//!   `sender_rxmit` (ns-2 `snoop_insert`). A segment the mobile has already acknowledged is
//!   dropped and the last ACK regenerated to the fixed host (the Snoop paper's rule).
//! * **Local retransmissions** go ahead of the data queued at the base station's interface
//!   (Balakrishnan et al. 1995, Fig. 2: "Retransmit lost packet with high priority";
//!   `retransmit_ahead = false`: behind it, as ns-2). Duplicate ACKs, the burst-loss rule
//!   and the timers that trigger them: `snoop/recovery.rs`.
//! * **Duplicate ACKs**: those below `dupack_threshold` are forwarded; the
//!   `dupack_threshold`-th retransmits the missing segment (TULIP §4: "after the receipt of
//!   2 duplicate acknowledgments") and the dupacks still on their way are suppressed.
//! * **Burst-loss rule** (the BSD code): an ACK answering a local retransmission that stops
//!   at a segment sent before that retransmission retransmits it at once.
//! * **Retransmission timer**: max(`min_timeout`, `timeout_factor`·rtt) = max(40 ms,
//!   2·rtt) (TULIP §4), armed when the cache becomes non-empty and re-armed on each new
//!   ACK, each local retransmission and each frame of the connection leaving the
//!   interface; no back-off. On expiry the oldest segment is retransmitted if it is the
//!   one the mobile expects.
//! * **Persist timer** (TULIP §4: "a persist timer that senses idle periods"): every
//!   `persist` while segments are cached; after a whole period with no ACK from the
//!   mobile, no retransmission and no frame of the connection leaving the interface, the
//!   oldest segment is retransmitted. Snoop observes its interface, never commands it
//!   (TULIP §5; `snoop/air.rs`).
//! * **RTT**: one segment timed at a time (TULIP §4), from when it leaves the base
//!   station's interface queue for the link (its airtime included) — from its arrival
//!   where the interface reports nothing — to the first ACK covering it; restarted when a
//!   local retransmission of a hole before it leaves. The first sample replaces the
//!   initial estimate; later ones weigh 1/8 (RFC 6298's α; ns-2's `snoop_rtt` gives them
//!   7/8, which let one long sample stretch the 2·rtt timer past the persist period). With
//!   `fix = false` a sample may span a local recovery: TULIP §5.2's rtt inflation. With
//!   `fix = true` ("Snoop w/fix") a retransmission of the timed segment cancels the
//!   measurement.
//! * **SACK** (`sack = true`, `snoop/sack.rs`): a duplicate ACK with SACK blocks
//!   retransmits every hole the blocks name, not just the oldest.
//! * **Handoff** (docs/mobility.md): when a mobile leaves the base station's cell its
//!   connections' state is dropped (`handoff = "drop"`: the cache is soft state, and the
//!   new base station's Snoop starts from the packets it sees) or handed to the new base
//!   station's Snoop (`"transfer"`), which goes on from it. A Snoop on the gateway never
//!   sees a mobile leave and keeps its state.
//!
//! Left out: the reverse direction (mobile as sender: ELN / NACK), ns-2's `integrate_`
//! heuristic, interface-queue-length checks.

mod air;
mod ns2;
mod recovery;
mod sack;
mod spec;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use super::common::{AgentCounters, AgentTrace, ConnState, Conns, Occupancy, OnHandoff};
use super::{Agent, AgentInput, AgentOutbox, ConnKey, Handover, MobilityNotice, Side, Verdict};
use crate::engine::{SimDuration, SimTime};
use crate::ids::FlowId;
use crate::metrics::{AgentOwnMetrics, AgentSummary};
use crate::packet::{Control, Ipv4Addr, Packet, SeqNumber, TcpSegment};
use crate::wireless::signals::MacSignal;

pub use spec::{SnoopSpec, SnoopVariant};

/// A cached segment.
#[derive(Clone, Debug)]
struct Cached {
    packet: Packet,
    seq: SeqNumber,
    end: SeqNumber,
    /// Local retransmissions of this segment.
    num_rxmit: u32,
    /// The sender retransmitted it (ns-2 `senderRxmit`).
    sender_rxmit: bool,
    /// When it was (last) forwarded from the fixed host.
    cached_at: SimTime,
    /// When its last copy went on the air, where the interface reports it (`None`: not yet,
    /// or not known).
    sent_at: Option<SimTime>,
    /// When Snoop last retransmitted it.
    rxmit_at: Option<SimTime>,
    /// Where Snoop's last retransmission of it is (only known where the interface reports
    /// its frames): until it has left, an ACK covering the segment answers an earlier copy.
    rxmit: RxmitState,
    /// A SACK block from the mobile covered it (`sack = true`): the mobile has it.
    sacked: bool,
}

impl Cached {
    /// When this segment's last copy left for the mobile, as far as Snoop knows: on the
    /// air where the interface reports it, else when it was forwarded or retransmitted.
    fn left_at(&self, sees_link: bool) -> Option<SimTime> {
        if sees_link {
            self.sent_at
        } else {
            Some(self.rxmit_at.unwrap_or(self.cached_at).max(self.cached_at))
        }
    }
}

/// Where a local retransmission is, as the interface's reports tell.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum RxmitState {
    /// Waiting in the interface queue.
    Queued,
    /// On the air (started, not finished).
    OnAir,
    /// Gone, or never sent, or not known (no reports).
    Left,
}

/// The segment being timed for the rtt estimate.
#[derive(Copy, Clone, Debug)]
struct Timed {
    end: SeqNumber,
    /// When the timing started; `None` while the segment waits in the interface queue (the
    /// interface reports when it leaves).
    start: Option<SimTime>,
}

/// Snoop's counters beyond the common ones.
#[derive(Clone, Copy, Debug, Default)]
struct SnoopCounters {
    common: AgentCounters,
    persist_retransmissions: u64,
    regenerated_acks: u64,
}

/// What every connection's handlers share: the settings, the counters and the outbox.
struct Cx<'a> {
    spec: &'a SnoopSpec,
    counters: &'a mut SnoopCounters,
    out: &'a mut AgentOutbox,
}

/// Snoop's state for one connection.
#[derive(Clone, Debug)]
struct SnoopConn {
    flow: FlowId,
    /// Sorted by sequence number, oldest (the "tail" in ns-2's words) first.
    cache: VecDeque<Cached>,
    cached_bytes: u64,
    last_ack: Option<SeqNumber>,
    last_ack_packet: Option<Packet>,
    /// Duplicate ACKs for `last_ack` so far.
    dupacks: u32,
    /// Dupacks still expected after a local retransmission (to suppress).
    exp_dupacks: u32,
    srtt: Option<SimDuration>,
    timed: Option<Timed>,
    rtx_at: Option<SimTime>,
    persist_at: Option<SimTime>,
    /// An ACK arrived, a retransmission was sent or a frame left since the last persist
    /// tick.
    active: bool,
    /// The base station's interface reports the connection's frames (`snoop/air.rs`).
    sees_link: bool,
}

/// The Snoop agent: one `SnoopConn` per connection through the base station.
#[derive(Clone, Debug)]
pub struct SnoopAgent {
    spec: SnoopSpec,
    conns: Conns<ConnKey, SnoopConn>,
    /// `variant = "ns2"`: ns-2's Snoop runs every connection instead (`snoop/ns2.rs`).
    ns2: Option<ns2::Ns2Snoop>,
    counters: SnoopCounters,
    occupancy: Occupancy,
}

impl SnoopAgent {
    pub fn new(spec: SnoopSpec) -> Self {
        let ns2 = (spec.variant == SnoopVariant::Ns2).then(ns2::Ns2Snoop::default);
        SnoopAgent {
            spec,
            conns: Conns::default(),
            ns2,
            counters: SnoopCounters::default(),
            occupancy: Occupancy::default(),
        }
    }

    pub fn counters(&self) -> AgentCounters {
        self.counters.common
    }
    /// Retransmissions driven by the persist timer (also counted as local ones).
    pub fn persist_retransmissions(&self) -> u64 {
        self.counters.persist_retransmissions
    }
    /// The rtt estimate of the connection `key`, once it has one.
    pub fn rtt_estimate(&self, key: &ConnKey) -> Option<SimDuration> {
        match &self.ns2 {
            Some(n) => n.rtt_estimate(key),
            None => self.conns.get(key).and_then(|c| c.srtt),
        }
    }
    /// The retransmission timeout `key` would arm now.
    pub fn current_timeout(&self, key: &ConnKey) -> Option<SimDuration> {
        match &self.ns2 {
            Some(n) => n.current_timeout(key),
            None => self.conns.get(key).map(|c| c.timeout(&self.spec)),
        }
    }
    /// Segments cached for `key`.
    pub fn cached_segments(&self, key: &ConnKey) -> usize {
        match &self.ns2 {
            Some(n) => n.cached_segments(key),
            None => self.conns.get(key).map_or(0, |c| c.cache.len()),
        }
    }

    /// Runs `f` on connection `key` (if the agent tracks it) with the context its handlers
    /// share.
    fn with_conn<R>(
        &mut self,
        key: &ConnKey,
        out: &mut AgentOutbox,
        f: impl FnOnce(&mut SnoopConn, &mut Cx<'_>) -> R,
    ) -> Option<R> {
        let SnoopAgent {
            spec,
            conns,
            counters,
            ..
        } = self;
        conns.update(key, |c| {
            f(
                c,
                &mut Cx {
                    spec,
                    counters,
                    out,
                },
            )
        })
    }

    /// A segment from the fixed host.
    fn on_wired(&mut self, now: SimTime, packet: &mut Packet, out: &mut AgentOutbox) {
        let Some((key, seg)) = ConnKey::of(Side::Wired, packet) else {
            return;
        };
        if seg.header.control == Control::Syn {
            // A new connection on this 4-tuple: start afresh (ns-2: seq 0 resets).
            self.conns.insert(key, SnoopConn::new(packet.flow));
            return;
        }
        if seg.payload_len == 0 {
            return; // Pure ACKs and bare FINs pass uncached.
        }
        if !self.conns.contains(&key) {
            self.conns.insert(key, SnoopConn::new(packet.flow));
        }
        self.with_conn(&key, out, |c, cx| c.on_data(cx, now, packet, &seg));
    }

    /// A segment from the mobile.
    fn on_wireless(&mut self, now: SimTime, packet: &mut Packet, out: &mut AgentOutbox) {
        let Some((key, seg)) = ConnKey::of(Side::Wireless, packet) else {
            return;
        };
        let Some(ack) = seg.header.ack else { return };
        if seg.payload_len > 0 || seg.header.control == Control::Syn {
            return; // Data from the mobile and its SYN pass untouched.
        }
        self.with_conn(&key, out, |c, cx| c.on_ack(cx, now, ack, &seg, packet));
    }

    /// A frame of the base station's interface towards the mobile started (`Trans`) or
    /// finished (module notes, "Frames on the air").
    fn on_frame(&mut self, now: SimTime, signal: MacSignal, packet: &Packet) {
        let Some((key, seg)) = ConnKey::of(Side::Wired, packet) else {
            return;
        };
        if seg.payload_len > 0 {
            let spec = &self.spec;
            let started = signal == MacSignal::Trans;
            self.conns
                .update(&key, |c| c.on_frame(spec, now, started, &seg));
        }
    }

    fn on_timer(&mut self, now: SimTime, out: &mut AgentOutbox) {
        for key in self.conns.due(now) {
            self.with_conn(&key, out, |c, cx| c.on_timer(cx, now));
        }
    }

    /// `mobile` left the cell: its connections go, to the next Snoop or nowhere.
    fn on_left(&mut self, mobile: Ipv4Addr, out: &mut AgentOutbox) {
        let taken = self.conns.take_where(|k| k.mh.0 == mobile);
        if self.spec.handoff == OnHandoff::Transfer && !taken.is_empty() {
            let latency = self.spec.handoff_latency.sim();
            out.handover = Some((Handover::Snoop(SnoopHandover(taken)), latency));
        }
    }

    /// The previous base station's Snoop handed over a mobile's connections.
    fn on_handover(&mut self, h: SnoopHandover) {
        for (key, conn) in h.0 {
            self.conns.insert(key, conn);
        }
    }
}

/// A mobile's connections as one Snoop hands them to the next (`handoff = "transfer"`).
#[derive(Clone, Debug)]
pub struct SnoopHandover(Vec<(ConnKey, SnoopConn)>);

impl Agent for SnoopAgent {
    fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        if let Some(n) = self.ns2.as_mut() {
            n.handle(&self.spec, &mut self.counters, now, input, out);
            self.occupancy.set(now, n.held_bytes());
            return;
        }
        match input {
            AgentInput::Packet {
                side: Side::Wired,
                packet,
            } => self.on_wired(now, packet, out),
            AgentInput::Packet {
                side: Side::Wireless,
                packet,
            } => self.on_wireless(now, packet, out),
            AgentInput::Timer => self.on_timer(now, out),
            AgentInput::Link {
                signal: signal @ (MacSignal::Trans | MacSignal::TxSuccess | MacSignal::TxFailure),
                packet: Some(packet),
            } => self.on_frame(now, signal, packet),
            AgentInput::Mobility(MobilityNotice::Left { mobile }) => self.on_left(mobile, out),
            AgentInput::Handover(Handover::Snoop(h)) => self.on_handover(h),
            AgentInput::Link { .. }
            | AgentInput::Local { .. }
            | AgentInput::Mobility(_)
            | AgentInput::Handover(_) => {}
        }
        self.occupancy.set(now, self.conns.held_bytes());
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        match &self.ns2 {
            Some(n) => n.poll_timeout(),
            None => self.conns.earliest(),
        }
    }

    /// A connection with segments cached has its persist timer running, so an idle period
    /// with data outstanding is always noticed (module notes, "Persist timer").
    fn check(&self) -> Result<(), String> {
        for (key, c) in self.conns.iter() {
            if !c.cache.is_empty() && c.persist_at.is_none() {
                return Err(format!(
                    "snoop {key:?}: {} segments cached and no persist timer",
                    c.cache.len()
                ));
            }
        }
        Ok(())
    }

    fn summary(&self, end: SimTime) -> AgentSummary {
        let c = &self.counters;
        AgentSummary {
            kind: "snoop".into(),
            local_retransmissions: c.common.local_retransmissions,
            suppressed_dupacks: c.common.suppressed_dupacks,
            timer_expiries: c.common.timer_expiries,
            own: AgentOwnMetrics::Snoop {
                persist_retransmissions: c.persist_retransmissions,
            },
            rtt_samples: c.common.rtt_samples,
            occupancy_max_bytes: self.occupancy.max(),
            occupancy_mean_bytes: self.occupancy.mean(end),
        }
    }

    /// Snoop watches its interface's transmissions (module notes, "Frames on the air").
    fn wants_link_signals(&self) -> bool {
        true
    }
    fn wants_departures(&self) -> bool {
        true
    }
}

impl ConnState for SnoopConn {
    fn deadline(&self) -> Option<SimTime> {
        [self.rtx_at, self.persist_at].into_iter().flatten().min()
    }
    fn held_bytes(&self) -> u64 {
        self.cached_bytes
    }
}

impl SnoopConn {
    fn new(flow: FlowId) -> Self {
        SnoopConn {
            flow,
            cache: VecDeque::new(),
            cached_bytes: 0,
            last_ack: None,
            last_ack_packet: None,
            dupacks: 0,
            exp_dupacks: 0,
            srtt: None,
            timed: None,
            rtx_at: None,
            persist_at: None,
            active: false,
            sees_link: false,
        }
    }

    /// max(`min_timeout`, `timeout_factor`·rtt), with the initial rtt before a sample.
    fn timeout(&self, spec: &SnoopSpec) -> SimDuration {
        let rtt = self.srtt.unwrap_or(spec.initial_rtt.sim());
        (rtt * u64::from(spec.timeout_factor)).max(spec.min_timeout.sim())
    }

    /// A data segment from the fixed host.
    fn on_data(&mut self, cx: &mut Cx<'_>, now: SimTime, packet: &Packet, seg: &TcpSegment) {
        let timeout = self.timeout(cx.spec);
        let seq = seg.header.seq;
        let end = seq + seg.seq_len();
        if self.last_ack.is_some_and(|a| end <= a) {
            // The mobile has it already: drop, and tell the sender again.
            cx.out.verdict = Verdict::Drop;
            if let Some(ack) = self.last_ack_packet {
                cx.out.packets.push(ack);
                cx.counters.regenerated_acks += 1;
            }
            return;
        }
        if let Some(e) = self.cache.iter_mut().find(|x| x.seq == seq) {
            // The sender retransmitted a cached segment: forward it again.
            e.sender_rxmit = true;
            e.num_rxmit = 0;
            e.cached_at = now;
            e.sent_at = None;
            if cx.spec.fix && self.timed.is_some_and(|t| seq < t.end && t.end <= end) {
                self.timed = None;
            }
            self.rtx_at = Some(now + timeout);
            return;
        }
        if self.cache.len() >= cx.spec.cache_packets as usize {
            return; // Full: forwarded uncached.
        }
        let highest = self.cache.back().map(|x| x.end);
        let i = self.cache.partition_point(|x| x.seq < seq);
        let reordered = highest.is_some_and(|h| seq < h);
        self.cache.insert(
            i,
            Cached {
                packet: *packet,
                seq,
                end,
                num_rxmit: 0,
                sender_rxmit: reordered && i == 0,
                cached_at: now,
                sent_at: None,
                rxmit_at: None,
                rxmit: RxmitState::Left,
                sacked: false,
            },
        );
        self.cached_bytes += u64::from(seg.payload_len);
        if !reordered && self.timed.is_none() {
            // Where the interface reports its frames, the clock starts when the segment
            // goes on the air: the queue in front of it is not the link's rtt.
            let start = (!self.sees_link).then_some(now);
            self.timed = Some(Timed { end, start });
        }
        if self.rtx_at.is_none() || reordered {
            self.rtx_at = Some(now + timeout);
        }
        if self.persist_at.is_none() {
            self.persist_at = Some(now + cx.spec.persist.sim());
            self.active = false;
        }
    }

    /// A pure ACK from the mobile.
    fn on_ack(
        &mut self,
        cx: &mut Cx<'_>,
        now: SimTime,
        ack: SeqNumber,
        seg: &TcpSegment,
        packet: &Packet,
    ) {
        self.active = true;
        match self.last_ack {
            Some(last) if ack < last => {} // An old ACK: forwarded (ns-2).
            Some(last) if ack == last && seg.seq_len() == 0 => {
                let blocks = seg.header.options.sack_blocks;
                if cx.spec.sack && !blocks.is_empty() {
                    self.on_sack_dupack(cx, now, blocks.as_slice());
                } else {
                    self.on_dupack(cx, now);
                }
            }
            _ => self.on_new_ack(cx, now, ack, packet),
        }
    }

    fn on_new_ack(&mut self, cx: &mut Cx<'_>, now: SimTime, ack: SeqNumber, packet: &Packet) {
        // The latest local retransmission this ACK can answer: one that has left the
        // interface (Karn's ambiguity: an ACK arriving before that answers an earlier copy).
        let mut answered: Option<SimTime> = None;
        while self.cache.front().is_some_and(|x| x.end <= ack) {
            let Some(x) = self.cache.pop_front() else {
                break;
            };
            self.cached_bytes -= u64::from(x.packet.payload_len());
            if x.num_rxmit > 0 && x.rxmit == RxmitState::Left {
                answered = answered.max(x.left_at(self.sees_link));
            }
        }
        self.last_ack = Some(ack);
        self.last_ack_packet = Some(*packet);
        self.dupacks = 0;
        self.exp_dupacks = 0;
        if let Some(t) = self.timed.filter(|t| t.end <= ack) {
            self.timed = None;
            if let Some(start) = t.start {
                self.take_sample(cx, now.saturating_since(start));
            }
        }
        let timeout = self.timeout(cx.spec);
        if self.cache.is_empty() {
            self.rtx_at = None;
            self.persist_at = None;
        } else {
            self.rtx_at = Some(now + timeout);
            self.persist_at.get_or_insert(now + cx.spec.persist.sim());
        }
        if let Some(t) = answered {
            self.on_partial_ack(cx, now, t);
        }
    }

    /// The first sample replaces the initial value; later ones weigh 1/8 (RFC 6298 (2.3)'s
    /// α; module notes, "RTT").
    fn take_sample(&mut self, cx: &mut Cx<'_>, sample: SimDuration) {
        if sample.is_zero() {
            return;
        }
        cx.counters.common.rtt_samples += 1;
        let rtt = match self.srtt {
            None => sample,
            Some(s) => (s * 7 + sample) / 8,
        };
        self.srtt = Some(rtt);
        let (flow, timeout) = (self.flow, self.timeout(cx.spec));
        cx.out.trace.push(AgentTrace::Rtt { flow, rtt, timeout });
    }
}
