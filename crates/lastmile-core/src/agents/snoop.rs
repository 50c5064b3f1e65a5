//! Snoop (Balakrishnan et al.), as the TULIP paper configured the BSD code it ran
//! (TULIP §2, §4, §5.2), with the implementation choices of `protocol-notes.md` §1.
//! `docs/models/snoop.md` gives each rule's reasons and the runs that shaped it.
//!
//! * **Cache**: every data segment from the fixed host is cached (up to `cache_packets`
//!   per connection, ns-2's `maxbufs`) and forwarded; the mobile's cumulative ACKs free
//!   it. A sender retransmission of a cached segment is forwarded again and marked
//!   `sender_rxmit` (ns-2 `snoop_insert`). A segment the mobile has already acknowledged is
//!   dropped and the last ACK regenerated to the fixed host (the Snoop paper's rule).
//! * **Duplicate ACKs** (ns-2 `snoop_ack`): those below `dupack_threshold` are forwarded;
//!   the `dupack_threshold`-th retransmits the missing segment locally (TULIP §4: "after
//!   the receipt of 2 duplicate acknowledgments"), and the dupacks then expected from the
//!   cached segments after it are suppressed. A segment is retransmitted on dupacks once;
//!   later dupacks are forwarded.
//! * **Retransmission timer**: max(`min_timeout`, `timeout_factor`·rtt) = max(40 ms,
//!   2·rtt) (TULIP §4), armed when the cache becomes non-empty and re-armed on each new
//!   ACK and each local retransmission; no back-off. On expiry the oldest segment is
//!   retransmitted if it is the one the mobile expects.
//! * **Persist timer** (TULIP §4: "a persist timer that senses idle periods"): every
//!   `persist` while segments are cached; after a whole period with no ACK from the mobile
//!   and no retransmission, the oldest segment is retransmitted. Where the base station's
//!   interface reports its transmissions (a cell: `AgentInput::Link`), a frame of the
//!   connection leaving it also counts as activity and re-arms the retransmission timer
//!   ("measured from the last (re)transmission", notes §1.6). Snoop observes the MAC, never
//!   commands it (TULIP §5).
//! * **Burst-loss rule** (BSD, notes §1.4): an ACK that frees a locally retransmitted
//!   segment and stops at the next one retransmits that one at once — only when the ACK
//!   can answer the retransmission (Karn's ambiguity): not while it is still queued at the
//!   interface, and on a cell only if the mobile had reported the hole with a dupack.
//! * **RTT**: one segment timed at a time (TULIP §4), from its arrival at the base station
//!   — or, where the interface reports its transmissions, from its transmission, restarted
//!   when a local retransmission of a hole before it goes on the air — to the first ACK
//!   covering it. The first sample replaces the initial estimate; later ones follow ns-2's
//!   `snoop_rtt`, which weighs the new sample by 7/8 (notes §1.5, bug 2). With `fix =
//!   false` a sample may span a local recovery: TULIP §5.2's rtt inflation. With `fix =
//!   true` ("Snoop w/fix") a retransmission of the timed segment cancels the measurement.
//!
//! * **SACK** (`sack = true`, `snoop/sack.rs`): a duplicate ACK with SACK blocks
//!   retransmits every hole the blocks name, not just the oldest.
//! * **Handoff** (docs/mobility.md): when a mobile leaves the base station's cell its
//!   connections' state is dropped (`handoff = "drop"`: the cache is soft state, and the
//!   new base station's Snoop starts from the packets it sees) or handed to the new base
//!   station's Snoop (`"transfer"`), which goes on from it. A Snoop on the gateway never
//!   sees a mobile leave and keeps its state.
//!
//! Left out: the reverse direction (mobile as sender: ELN / NACK), ns-2's `integrate_`
//! heuristic and its process-wide dupack counter, interface-queue-length checks.

mod sack;
mod spec;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use super::common::{AgentCounters, AgentTrace, ConnState, Conns, Occupancy, OnHandoff};
use super::{Agent, AgentInput, AgentOutbox, ConnKey, Handover, MobilityNotice, Side, Verdict};
use crate::engine::{SimDuration, SimTime};
use crate::ids::FlowId;
use crate::metrics::AgentSummary;
use crate::packet::{Control, Ipv4Addr, Packet, SeqNumber, TcpSegment};
use crate::wireless::signals::MacSignal;

pub use spec::SnoopSpec;

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
    /// When Snoop last retransmitted it.
    rxmit_at: Option<SimTime>,
    /// Snoop's last retransmission of it is still in the base station's interface queue
    /// (only known where the interface reports its transmissions: a cell). An ACK covering
    /// the segment then answers an earlier copy, not that retransmission.
    rxmit_queued: bool,
    /// The mobile said it lacks this segment: a duplicate ACK for it arrived. Over a FIFO
    /// hop the original copy was then lost, and an ACK covering it answers a retransmission.
    hole_reported: bool,
    /// A SACK block from the mobile covered it (`sack = true`): the mobile has it.
    sacked: bool,
}

/// The segment being timed for the rtt estimate.
#[derive(Copy, Clone, Debug)]
struct Timed {
    end: SeqNumber,
    /// When the timing started; `None` while the segment waits in the interface queue (a
    /// cell reports when it leaves).
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
    /// An ACK arrived or a retransmission left since the last persist tick.
    active: bool,
    /// The base station's interface reports the connection's transmissions (a cell).
    sees_link: bool,
}

/// The Snoop agent: one `SnoopConn` per connection through the base station.
#[derive(Clone, Debug)]
pub struct SnoopAgent {
    spec: SnoopSpec,
    conns: Conns<ConnKey, SnoopConn>,
    counters: SnoopCounters,
    occupancy: Occupancy,
}

impl SnoopAgent {
    pub fn new(spec: SnoopSpec) -> Self {
        SnoopAgent {
            spec,
            conns: Conns::default(),
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
        self.conns.get(key).and_then(|c| c.srtt)
    }
    /// The retransmission timeout `key` would arm now.
    pub fn current_timeout(&self, key: &ConnKey) -> Option<SimDuration> {
        self.conns.get(key).map(|c| c.timeout(&self.spec))
    }
    /// Segments cached for `key`.
    pub fn cached_segments(&self, key: &ConnKey) -> usize {
        self.conns.get(key).map_or(0, |c| c.cache.len())
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

    /// The base station's wireless interface finished sending a frame (module notes,
    /// persist timer): a segment of the connection on the air means it is not idle.
    fn on_sent(&mut self, now: SimTime, packet: &Packet) {
        let Some((key, seg)) = ConnKey::of(Side::Wired, packet) else {
            return;
        };
        if seg.payload_len > 0 {
            let spec = &self.spec;
            self.conns.update(&key, |c| c.on_sent(spec, now, &seg));
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
                signal: MacSignal::TxSuccess | MacSignal::TxFailure,
                packet: Some(packet),
            } => self.on_sent(now, packet),
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
        self.conns.earliest()
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
            persist_retransmissions: Some(c.persist_retransmissions),
            rtt_samples: c.common.rtt_samples,
            occupancy_max_bytes: self.occupancy.max(),
            occupancy_mean_bytes: self.occupancy.mean(end),
            residence_mean_s: None,
            residence_max_s: None,
            zero_window_advertisements: None,
            lle: None,
            notices_sent: None,
            dupacks_delayed: None,
        }
    }

    /// Snoop watches its interface's transmissions (persist and rtt notes above).
    fn wants_link_signals(&self) -> bool {
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

    /// A frame of this connection left the base station's interface.
    fn on_sent(&mut self, spec: &SnoopSpec, now: SimTime, seg: &TcpSegment) {
        let timeout = self.timeout(spec);
        self.sees_link = true;
        let seq = seg.header.seq;
        let mut rxmit_left = false;
        if let Some(x) = self.cache.iter_mut().find(|x| x.seq == seq) {
            rxmit_left = x.rxmit_queued;
            x.rxmit_queued = false;
        }
        let end = seq + seg.seq_len();
        if let Some(t) = self.timed.as_mut() {
            if t.end == end && t.start.is_none() {
                t.start = Some(now);
            } else if rxmit_left && t.start.is_some() && end < t.end {
                // A local retransmission of a hole before the timed segment went on the
                // air: the ACK covering the timed segment now waits for it, so the clock
                // runs from that last transmission (notes §1.6). A retransmission of the
                // timed segment itself cancels the timing with the fix and, without it,
                // leaves the clock running: TULIP §5.2's inflation.
                t.start = Some(now);
            }
        }
        self.active = true;
        if self.rtx_at.is_some() {
            self.rtx_at = Some(now + timeout);
        }
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
                rxmit_at: None,
                rxmit_queued: false,
                hole_reported: false,
                sacked: false,
            },
        );
        self.cached_bytes += u64::from(seg.payload_len);
        if !reordered && self.timed.is_none() {
            // Where the interface reports its transmissions, the clock starts when the
            // segment goes on the air: the queue in front of it is not the path's rtt.
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
        let mut rxmit_acked: Option<SimTime> = None;
        while self.cache.front().is_some_and(|x| x.end <= ack) {
            let Some(x) = self.cache.pop_front() else {
                break;
            };
            self.cached_bytes -= u64::from(x.packet.payload_len());
            if !x.rxmit_queued && (x.hole_reported || !self.sees_link) {
                rxmit_acked = rxmit_acked.max(x.rxmit_at);
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
        if let Some(t) = rxmit_acked {
            self.on_partial_ack(cx, now, t);
        }
    }

    /// The BSD code's burst-loss rule (notes §1.4, "Click"): the ACK for a local
    /// retransmission stops at a segment forwarded *before* that retransmission, so FIFO
    /// delivery says it was lost too: retransmit it at once. The segments forwarded after
    /// the acknowledged retransmission are still on their way and will each bring a dupack.
    fn on_partial_ack(&mut self, cx: &mut Cx<'_>, now: SimTime, rxmit_at: SimTime) {
        let Some(tail) = self.cache.front() else {
            return;
        };
        let lost = Some(tail.seq) == self.last_ack
            && tail.cached_at < rxmit_at
            && tail.num_rxmit == 0
            && !tail.sender_rxmit;
        if !lost {
            return;
        }
        let behind = self
            .cache
            .iter()
            .skip(1)
            .filter(|x| x.cached_at > rxmit_at)
            .count() as u32;
        if self.retransmit_tail(cx, now) {
            self.exp_dupacks = behind;
        }
    }

    /// ns-2 `snoop_rtt` smoothing: the first sample replaces the initial value; later ones
    /// weigh 7/8 (module notes).
    fn take_sample(&mut self, cx: &mut Cx<'_>, sample: SimDuration) {
        if sample.is_zero() {
            return;
        }
        cx.counters.common.rtt_samples += 1;
        let rtt = match self.srtt {
            None => sample,
            Some(s) => (s + sample * 7) / 8,
        };
        self.srtt = Some(rtt);
        let (flow, timeout) = (self.flow, self.timeout(cx.spec));
        cx.out.trace.push(AgentTrace::Rtt { flow, rtt, timeout });
    }

    fn on_dupack(&mut self, cx: &mut Cx<'_>, now: SimTime) {
        let threshold = cx.spec.dupack_threshold;
        let timeout = self.timeout(cx.spec);
        let last_ack = self.last_ack;
        let Some(tail) = self.cache.front_mut() else {
            return;
        };
        if Some(tail.seq) != last_ack {
            return; // The missing segment is not cached: the sender must recover it.
        }
        tail.hole_reported = true;
        let (sender_rxmit, rxmit_at) = (tail.sender_rxmit, tail.rxmit_at);
        if self.rtx_at.is_some() {
            // The ACK clock still runs: the pipe ahead of a retransmission is draining.
            self.rtx_at = Some(now + timeout);
        }
        if self.exp_dupacks > 0 {
            self.exp_dupacks -= 1;
            cx.counters.common.suppressed_dupacks += 1;
            cx.out.verdict = Verdict::Drop;
            return;
        }
        self.dupacks += 1;
        if sender_rxmit {
            return; // The sender is on it: forwarded.
        }
        if let Some(t) = rxmit_at {
            // More dupacks than expected: they come from segments forwarded after our
            // retransmission, which FIFO delivery says was lost (ns-2's and Click's "one
            // more retransmission", repeated up to `max_local_retransmits`).
            let behind = self.cache.iter().filter(|x| x.cached_at > t).count() as u32;
            if behind > 0 && self.retransmit_tail(cx, now) {
                self.exp_dupacks = behind - 1;
                cx.counters.common.suppressed_dupacks += 1;
                cx.out.verdict = Verdict::Drop;
            }
            return;
        }
        if self.dupacks != threshold {
            return; // Forwarded: below the threshold.
        }
        // Every cached segment after the lost one that reaches the mobile brings a dupack;
        // `threshold` of them have come already.
        let after = self.cache.len() as u32 - 1;
        if self.retransmit_tail(cx, now) {
            self.exp_dupacks = after.saturating_sub(threshold);
            cx.counters.common.suppressed_dupacks += 1;
            cx.out.verdict = Verdict::Drop;
        }
    }

    /// Sends the oldest cached segment again (ns-2 `snoop_rxmit`); false at the limit.
    fn retransmit_tail(&mut self, cx: &mut Cx<'_>, now: SimTime) -> bool {
        let timeout = self.timeout(cx.spec);
        let Some(tail) = self.cache.front_mut() else {
            return false;
        };
        if tail.num_rxmit >= cx.spec.max_local_retransmits {
            self.rtx_at = None;
            return false;
        }
        tail.num_rxmit += 1;
        tail.rxmit_at = Some(now);
        tail.rxmit_queued = self.sees_link;
        cx.out.packets.push(tail.packet);
        let (seq, end) = (tail.seq, tail.end);
        if cx.spec.fix && self.timed.is_some_and(|t| seq < t.end && t.end <= end) {
            self.timed = None;
        }
        self.rtx_at = Some(now + timeout);
        self.active = true;
        cx.counters.common.local_retransmissions += 1;
        true
    }

    /// The retransmission or the persist timer of this connection is due.
    fn on_timer(&mut self, cx: &mut Cx<'_>, now: SimTime) {
        let expects_tail = self
            .cache
            .front()
            .is_some_and(|t| self.last_ack.is_none_or(|a| t.seq == a));
        if self.rtx_at.is_some_and(|t| t <= now) {
            self.rtx_at = None;
            if expects_tail && self.retransmit_tail(cx, now) {
                cx.counters.common.timer_expiries += 1;
            }
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            if self.cache.is_empty() {
                self.persist_at = None;
                return;
            }
            let idle = !self.active;
            self.active = false;
            self.persist_at = Some(now + cx.spec.persist.sim());
            if idle && expects_tail && self.retransmit_tail(cx, now) {
                cx.counters.persist_retransmissions += 1;
            }
        }
    }
}
