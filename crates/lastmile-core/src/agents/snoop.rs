//! Snoop (Balakrishnan et al.), as the TULIP paper configured the BSD code it ran
//! (TULIP §2, §4, §5.2), with the implementation choices of `protocol-notes.md` §1.
//!
//! * **Cache**: every data segment from the fixed host is cached (up to `cache_packets`
//!   per connection, ns-2's `maxbufs`) and forwarded; the cache is freed by the mobile's
//!   cumulative ACKs. A sender retransmission of a cached segment is forwarded again and
//!   marked `sender_rxmit` (ns-2 `snoop_insert`): Snoop leaves the dupacks for it to the
//!   sender. A segment the mobile has already acknowledged is **dropped and the last ACK
//!   regenerated** to the fixed host (the Snoop paper's rule; ns-2 and Linux forward it,
//!   which only wastes the wireless hop — notes §1.9).
//! * **Duplicate ACKs** (ns-2 `snoop_ack`): dupacks below `dupack_threshold` are forwarded
//!   (ns-2 forwards the first; Click drops it); the `dupack_threshold`-th retransmits the
//!   missing segment locally — TULIP §4 "after the receipt of 2 duplicate
//!   acknowledgments" — and Snoop then expects one more dupack for each cached segment
//!   after the lost one and suppresses them. A segment is retransmitted on dupacks only
//!   once; later dupacks are forwarded.
//! * **Retransmission timer**: `max(min_timeout, timeout_factor·rtt)` = max(40 ms, 2·rtt)
//!   (TULIP §4), armed from now when the cache becomes non-empty and re-armed on each new
//!   ACK and each local retransmission (ns-2 `cleanbufs` / `snoop_rxmit`); no back-off
//!   (ns-2, Linux). On expiry the oldest segment is retransmitted if it is the one the
//!   mobile expects.
//! * **Persist timer**: every `persist` (200 ms, TULIP §4) while segments are cached; if no
//!   ACK came from the mobile and nothing was retransmitted during the whole period, the
//!   oldest segment is retransmitted. No public code has one (notes §1.6); this is TULIP's
//!   text ("a persist timer that senses idle periods") as the notes recommend. Where the
//!   base station's interface reports its transmissions (a cell: `AgentInput::Link`), a
//!   frame of the connection leaving it also counts as activity, and re-arms the
//!   retransmission timer ("measured from the last (re)transmission", notes §1.6): over a
//!   half-duplex radio (FAMA-NCS) the mobile's ACKs wait for the floor while the base
//!   station sends its queue of a whole window (~30 segments, > 300 ms at 1 Mbps), and that
//!   silence is a busy link, not an idle one. Snoop only observes, never commands, the MAC
//!   (TULIP §5); ns-2's Snoop likewise reads its interface queue.
//! * **Burst-loss rule** (BSD, notes §1.4): an ACK that frees a locally retransmitted
//!   segment and stops at the next one retransmits that one at once — but only when the
//!   ACK can answer the retransmission (Karn's ambiguity): not while that retransmission
//!   is still queued at the interface, and on a cell only if the mobile had reported the
//!   hole with a dupack. Without this, a spurious persist retransmission made the ACK for
//!   the *original* look partial, the rule then resent every following segment, and the
//!   receiver's re-ACKs of those duplicates (notes §1: not new losses) fed the dupack
//!   path: 13,315 redundant frames at BER 0 over FAMA.
//! * **RTT**: one segment timed at a time ("one rtt estimate per transmission window",
//!   TULIP §4), from its arrival at the base station to the first ACK covering it — or,
//!   where the interface reports its transmissions (a cell), from its **transmission**, and
//!   restarted when a local retransmission of a hole before it goes on the air (the ACK
//!   covering it waits for that copy): the timer is "measured from the last
//!   (re)transmission" (notes §1.6). Over the half-duplex FAMA-NCS cell timing from arrival
//!   counted the ~20–30 segments queued ahead (≈ 14 ms each) and, with a hole before the
//!   timed segment, the dupack-driven recovery behind them: srtt ≈ 200–800 ms, so
//!   2·rtt (0.4–1.6 s) never beat the 200 ms persist timer, and every lost retransmission,
//!   or loss too close to the end of a window to draw 2 dupacks, cost 200–400 ms of idle
//!   radio (≈ 300 persist retransmissions per 10 MB at BER 15e-6, ~330 kbps, 2–5 TCP
//!   timeouts). Measured on the air the samples are the radio's (~15–30 ms) and the 2·rtt
//!   timer (≥ 40 ms, re-armed by each frame leaving) recovers those in tens of ms. The
//!   first sample replaces the initial estimate; later ones follow ns-2's `snoop_rtt`
//!   smoothing, which weighs the new sample by 7/8 (notes §1.5, bug 2).
//!   With `fix = false` the timing survives retransmissions, so a sample spans the local
//!   recovery (timer waits included) — the inflation of TULIP §5.2: each such sample
//!   stretches the timer, which stretches the next such sample, until the persist timer
//!   drives recovery (on a cell: when the timed segment itself is retransmitted). With
//!   `fix = true` ("Snoop w/fix") a local or sender retransmission of the timed segment
//!   cancels the measurement (Karn's rule: no sample across a retransmission of it).
//!
//! Left out: the reverse direction (mobile as sender: ELN / NACK), ns-2's `integrate_`
//! heuristic and its process-wide dupack counter, interface-queue-length checks.

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, VecDeque};

use super::common::{AgentCounters, AgentTrace, Occupancy};
use super::config::SnoopSpec;
use super::{AgentInput, AgentOutbox, ConnKey, Side, Verdict};
use crate::engine::{SimDuration, SimTime};
use crate::ids::FlowId;
use crate::metrics::AgentSummary;
use crate::packet::{Control, Packet, SeqNumber};
use crate::wireless::signals::MacSignal;

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
}

/// The segment being timed for the rtt estimate.
#[derive(Copy, Clone, Debug)]
struct Timed {
    end: SeqNumber,
    /// When the timing started; `None` while the segment waits in the interface queue (a
    /// cell reports when it leaves).
    start: Option<SimTime>,
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
}

/// The Snoop agent: one `SnoopConn` per connection through the base station.
#[derive(Clone, Debug)]
pub struct SnoopAgent {
    spec: SnoopSpec,
    conns: BTreeMap<ConnKey, SnoopConn>,
    counters: AgentCounters,
    persist_retransmissions: u64,
    regenerated_acks: u64,
    occupancy: Occupancy,
}

impl SnoopAgent {
    pub fn new(spec: SnoopSpec) -> Self {
        SnoopAgent {
            spec,
            conns: BTreeMap::new(),
            counters: AgentCounters::default(),
            persist_retransmissions: 0,
            regenerated_acks: 0,
            occupancy: Occupancy::default(),
        }
    }

    pub fn counters(&self) -> AgentCounters {
        self.counters
    }
    /// Retransmissions driven by the persist timer (also counted as local ones).
    pub fn persist_retransmissions(&self) -> u64 {
        self.persist_retransmissions
    }
    /// The rtt estimate of the connection `key`, once it has one.
    pub fn rtt_estimate(&self, key: &ConnKey) -> Option<SimDuration> {
        self.conns.get(key).and_then(|c| c.srtt)
    }
    /// The retransmission timeout `key` would arm now.
    pub fn current_timeout(&self, key: &ConnKey) -> Option<SimDuration> {
        self.conns.get(key).map(|c| self.timeout(c))
    }
    /// Segments cached for `key`.
    pub fn cached_segments(&self, key: &ConnKey) -> usize {
        self.conns.get(key).map_or(0, |c| c.cache.len())
    }

    /// The liveness invariant (the world checks it after every input in debug builds): a
    /// connection with segments cached has its persist timer running, so an idle period
    /// with data outstanding is always noticed (module notes, "Persist timer").
    pub fn check(&self) -> Result<(), String> {
        for (key, c) in &self.conns {
            if !c.cache.is_empty() && c.persist_at.is_none() {
                return Err(format!(
                    "snoop {key:?}: {} segments cached and no persist timer",
                    c.cache.len()
                ));
            }
        }
        Ok(())
    }

    pub fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
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
            AgentInput::Link { .. } | AgentInput::Local { .. } => {}
        }
        self.occupancy.set(
            now,
            self.conns.values().map(|c| c.cached_bytes).sum::<u64>(),
        );
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.conns
            .values()
            .flat_map(|c| [c.rtx_at, c.persist_at])
            .flatten()
            .min()
    }

    pub fn summary(&self, end: SimTime) -> AgentSummary {
        AgentSummary {
            kind: "snoop".into(),
            local_retransmissions: self.counters.local_retransmissions,
            suppressed_dupacks: self.counters.suppressed_dupacks,
            timer_expiries: self.counters.timer_expiries,
            persist_retransmissions: Some(self.persist_retransmissions),
            rtt_samples: self.counters.rtt_samples,
            occupancy_max_bytes: self.occupancy.max(),
            occupancy_mean_bytes: self.occupancy.mean(end),
            residence_mean_s: None,
            residence_max_s: None,
            zero_window_advertisements: None,
            lle: None,
        }
    }

    /// The base station's wireless interface finished sending a frame (persist notes in
    /// the module doc): a segment of the connection on the air means it is not idle.
    fn on_sent(&mut self, now: SimTime, packet: &Packet) {
        if packet.payload_len() == 0 {
            return;
        }
        let Some(key) = ConnKey::of(Side::Wired, packet) else {
            return;
        };
        let timeout = self.timeout_for(&key);
        if let Some(c) = self.conns.get_mut(&key) {
            c.sees_link = true;
            let seq = packet.tcp().expect("keyed packets are TCP").header.seq;
            let mut rxmit_left = false;
            if let Some(x) = c.cache.iter_mut().find(|x| x.seq == seq) {
                rxmit_left = x.rxmit_queued;
                x.rxmit_queued = false;
            }
            let end = seq + packet.tcp().expect("keyed packets are TCP").seq_len();
            if let Some(t) = c.timed.as_mut() {
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
            c.active = true;
            if c.rtx_at.is_some() {
                c.rtx_at = Some(now + timeout);
            }
        }
    }

    fn timeout(&self, c: &SnoopConn) -> SimDuration {
        let rtt = c.srtt.unwrap_or(self.spec.initial_rtt.sim());
        (rtt * u64::from(self.spec.timeout_factor)).max(self.spec.min_timeout.sim())
    }

    // ---- data from the fixed host ------------------------------------------------------

    fn on_wired(&mut self, now: SimTime, packet: &mut Packet, out: &mut AgentOutbox) {
        let Some(key) = ConnKey::of(Side::Wired, packet) else {
            return;
        };
        let seg = *packet.tcp().expect("keyed packets are TCP");
        if seg.header.control == Control::Syn {
            // A new connection on this 4-tuple: start afresh (ns-2: seq 0 resets).
            self.conns.insert(key, SnoopConn::new(packet.flow));
            return;
        }
        if seg.payload_len == 0 {
            return; // Pure ACKs and bare FINs pass uncached.
        }
        let spec = self.spec.clone();
        let timeout = self.timeout_for(&key);
        let c = self
            .conns
            .entry(key)
            .or_insert_with(|| SnoopConn::new(packet.flow));
        let seq = seg.header.seq;
        let end = seq + seg.seq_len();
        if c.last_ack.is_some_and(|a| end <= a) {
            // The mobile has it already: drop, and tell the sender again.
            out.verdict = Verdict::Drop;
            if let Some(ack) = c.last_ack_packet {
                out.packets.push(ack);
                self.regenerated_acks += 1;
            }
            return;
        }
        if let Some(i) = c.cache.iter().position(|x| x.seq == seq) {
            // The sender retransmitted a cached segment: forward it again.
            let e = &mut c.cache[i];
            e.sender_rxmit = true;
            e.num_rxmit = 0;
            e.cached_at = now;
            if spec.fix && c.timed.is_some_and(|t| seq < t.end && t.end <= end) {
                c.timed = None;
            }
            c.rtx_at = Some(now + timeout);
            return;
        }
        if c.cache.len() >= spec.cache_packets as usize {
            return; // Full: forwarded uncached.
        }
        let highest = c.cache.back().map(|x| x.end);
        let i = c.cache.partition_point(|x| x.seq < seq);
        let reordered = highest.is_some_and(|h| seq < h);
        c.cache.insert(
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
            },
        );
        c.cached_bytes += u64::from(seg.payload_len);
        if !reordered && c.timed.is_none() {
            // Where the interface reports its transmissions, the clock starts when the
            // segment goes on the air: the queue in front of it is not the path's rtt.
            let start = (!c.sees_link).then_some(now);
            c.timed = Some(Timed { end, start });
        }
        if c.rtx_at.is_none() || reordered {
            c.rtx_at = Some(now + timeout);
        }
        if c.persist_at.is_none() {
            c.persist_at = Some(now + spec.persist.sim());
            c.active = false;
        }
    }

    fn timeout_for(&self, key: &ConnKey) -> SimDuration {
        match self.conns.get(key) {
            Some(c) => self.timeout(c),
            None => (self.spec.initial_rtt.sim() * u64::from(self.spec.timeout_factor))
                .max(self.spec.min_timeout.sim()),
        }
    }

    // ---- ACKs from the mobile ----------------------------------------------------------

    fn on_wireless(&mut self, now: SimTime, packet: &mut Packet, out: &mut AgentOutbox) {
        let Some(key) = ConnKey::of(Side::Wireless, packet) else {
            return;
        };
        let seg = *packet.tcp().expect("keyed packets are TCP");
        let Some(ack) = seg.header.ack else { return };
        if seg.payload_len > 0 || seg.header.control == Control::Syn {
            return; // Data from the mobile and its SYN pass untouched.
        }
        let Some(c) = self.conns.get_mut(&key) else {
            return;
        };
        c.active = true;
        match c.last_ack {
            Some(last) if ack < last => {} // An old ACK: forwarded (ns-2).
            Some(last) if ack == last && seg.seq_len() == 0 => {
                self.on_dupack(now, key, out);
            }
            _ => self.on_new_ack(now, key, ack, packet, out),
        }
    }

    fn on_new_ack(
        &mut self,
        now: SimTime,
        key: ConnKey,
        ack: SeqNumber,
        packet: &Packet,
        out: &mut AgentOutbox,
    ) {
        let persist = self.spec.persist.sim();
        let c = self.conns.get_mut(&key).expect("caller checked");
        let mut rxmit_acked: Option<SimTime> = None;
        while c.cache.front().is_some_and(|x| x.end <= ack) {
            let x = c.cache.pop_front().expect("checked");
            c.cached_bytes -= u64::from(x.packet.payload_len());
            if !x.rxmit_queued && (x.hole_reported || !c.sees_link) {
                rxmit_acked = rxmit_acked.max(x.rxmit_at);
            }
        }
        c.last_ack = Some(ack);
        c.last_ack_packet = Some(*packet);
        c.dupacks = 0;
        c.exp_dupacks = 0;
        if let Some(t) = c.timed.filter(|t| t.end <= ack) {
            c.timed = None;
            if let Some(start) = t.start {
                self.take_sample(key, now.saturating_since(start), out);
            }
        }
        let timeout = self.timeout_for(&key);
        let c = self.conns.get_mut(&key).expect("caller checked");
        if c.cache.is_empty() {
            c.rtx_at = None;
            c.persist_at = None;
        } else {
            c.rtx_at = Some(now + timeout);
            c.persist_at.get_or_insert(now + persist);
        }
        if let Some(t) = rxmit_acked {
            self.on_partial_ack(now, key, t, out);
        }
    }

    /// The BSD code's burst-loss rule (notes §1.4, "Click"): the ACK for a local
    /// retransmission stops at a segment forwarded *before* that retransmission, so FIFO
    /// delivery says it was lost too: retransmit it at once. The segments forwarded after the
    /// acknowledged retransmission are still on their way and will each bring a dupack.
    fn on_partial_ack(
        &mut self,
        now: SimTime,
        key: ConnKey,
        rxmit_at: SimTime,
        out: &mut AgentOutbox,
    ) {
        let c = self.conns.get_mut(&key).expect("caller checked");
        let Some(tail) = c.cache.front() else { return };
        let lost = Some(tail.seq) == c.last_ack
            && tail.cached_at < rxmit_at
            && tail.num_rxmit == 0
            && !tail.sender_rxmit;
        if !lost {
            return;
        }
        let behind = c
            .cache
            .iter()
            .skip(1)
            .filter(|x| x.cached_at > rxmit_at)
            .count() as u32;
        if self.retransmit_tail(now, key, out) {
            let c = self.conns.get_mut(&key).expect("caller checked");
            c.exp_dupacks = behind;
        }
    }

    /// ns-2 `snoop_rtt` smoothing: the first sample replaces the initial value; later ones
    /// weigh 7/8 (see the module notes).
    fn take_sample(&mut self, key: ConnKey, sample: SimDuration, out: &mut AgentOutbox) {
        if sample.is_zero() {
            return;
        }
        self.counters.rtt_samples += 1;
        let c = self.conns.get_mut(&key).expect("caller checked");
        c.srtt = Some(match c.srtt {
            None => sample,
            Some(s) => (s + sample * 7) / 8,
        });
        let (flow, rtt) = (c.flow, c.srtt.expect("just set"));
        let timeout = self.timeout_for(&key);
        out.trace.push(AgentTrace::Rtt { flow, rtt, timeout });
    }

    fn on_dupack(&mut self, now: SimTime, key: ConnKey, out: &mut AgentOutbox) {
        let threshold = self.spec.dupack_threshold;
        let timeout = self.timeout_for(&key);
        let c = self.conns.get_mut(&key).expect("caller checked");
        let Some(tail) = c.cache.front() else { return };
        if Some(tail.seq) != c.last_ack {
            return; // The missing segment is not cached: the sender must recover it.
        }
        c.cache[0].hole_reported = true;
        let tail = &c.cache[0];

        if c.rtx_at.is_some() {
            // The ACK clock still runs: the pipe ahead of a retransmission is draining.
            c.rtx_at = Some(now + timeout);
        }
        if c.exp_dupacks > 0 {
            c.exp_dupacks -= 1;
            self.counters.suppressed_dupacks += 1;
            out.verdict = Verdict::Drop;
            return;
        }
        c.dupacks += 1;
        if tail.sender_rxmit {
            return; // The sender is on it: forwarded.
        }
        if let Some(t) = tail.rxmit_at {
            // More dupacks than expected: they come from segments forwarded after our
            // retransmission, which FIFO delivery says was lost (ns-2's and Click's "one more
            // retransmission", repeated up to `max_local_retransmits`).
            let behind = c.cache.iter().filter(|x| x.cached_at > t).count() as u32;
            if behind > 0 && self.retransmit_tail(now, key, out) {
                let c = self.conns.get_mut(&key).expect("caller checked");
                c.exp_dupacks = behind - 1;
                self.counters.suppressed_dupacks += 1;
                out.verdict = Verdict::Drop;
            }
            return;
        }
        if c.dupacks != threshold {
            return; // Forwarded: below the threshold.
        }
        // Every cached segment after the lost one that reaches the mobile brings a dupack;
        // `threshold` of them have come already.
        let after = c.cache.len() as u32 - 1;
        if self.retransmit_tail(now, key, out) {
            let c = self.conns.get_mut(&key).expect("caller checked");
            c.exp_dupacks = after.saturating_sub(threshold);
            self.counters.suppressed_dupacks += 1;
            out.verdict = Verdict::Drop;
        }
    }

    /// Sends the oldest cached segment again (ns-2 `snoop_rxmit`); false at the limit.
    fn retransmit_tail(&mut self, now: SimTime, key: ConnKey, out: &mut AgentOutbox) -> bool {
        let (fix, max) = (self.spec.fix, self.spec.max_local_retransmits);
        let timeout = self.timeout_for(&key);
        let c = self.conns.get_mut(&key).expect("caller checked");
        let Some(tail) = c.cache.front_mut() else {
            return false;
        };
        if tail.num_rxmit >= max {
            c.rtx_at = None;
            return false;
        }
        tail.num_rxmit += 1;
        tail.rxmit_at = Some(now);
        tail.rxmit_queued = c.sees_link;
        out.packets.push(tail.packet);
        if fix
            && c.timed
                .is_some_and(|t| tail.seq < t.end && t.end <= tail.end)
        {
            c.timed = None;
        }
        c.rtx_at = Some(now + timeout);
        c.active = true;
        self.counters.local_retransmissions += 1;
        true
    }

    // ---- timers ------------------------------------------------------------------------

    fn on_timer(&mut self, now: SimTime, out: &mut AgentOutbox) {
        let due: Vec<ConnKey> = self
            .conns
            .iter()
            .filter(|(_, c)| {
                c.rtx_at.is_some_and(|t| t <= now) || c.persist_at.is_some_and(|t| t <= now)
            })
            .map(|(k, _)| *k)
            .collect();
        for key in due {
            self.on_conn_timer(now, key, out);
        }
    }

    fn on_conn_timer(&mut self, now: SimTime, key: ConnKey, out: &mut AgentOutbox) {
        let persist = self.spec.persist.sim();
        let c = self.conns.get_mut(&key).expect("from the map");
        let expects_tail = c
            .cache
            .front()
            .is_some_and(|t| c.last_ack.is_none_or(|a| t.seq == a));
        if c.rtx_at.is_some_and(|t| t <= now) {
            c.rtx_at = None;
            if expects_tail && self.retransmit_tail(now, key, out) {
                self.counters.timer_expiries += 1;
            }
        }
        let c = self.conns.get_mut(&key).expect("from the map");
        if c.persist_at.is_some_and(|t| t <= now) {
            if c.cache.is_empty() {
                c.persist_at = None;
                return;
            }
            let idle = !c.active;
            c.active = false;
            c.persist_at = Some(now + persist);
            if idle && expects_tail && self.retransmit_tail(now, key, out) {
                self.persist_retransmissions += 1;
            }
        }
    }
}
