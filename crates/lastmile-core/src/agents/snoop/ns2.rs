//! Snoop as ns-2.35 implements it (`variant = "ns2"`; tcp/snoop.cc and tcl/lan/ns-ll.tcl,
//! read at hbatmit/ns2.35 @ f95482f; protocol-notes §1): the Snoop of most published ns-2
//! studies, offered so that a run can be set beside ns-2's `LL/LLSnoop` like for like. The
//! default (`variant = "tulip"`, `snoop.rs`) is the BSD code as the TULIP paper ran it.
//!
//! What it does, in ns-2's terms (ns-2 counts packets; here `lastAck` is the mobile's
//! cumulative ACK, the next byte it expects):
//! * **Data** (`snoop_data`, `snoop_insert`): cached unless the mobile has it (then it is
//!   forwarded all the same), in sequence order; a segment cached before is a sender
//!   retransmission (`senderRxmit`, its send time reset, the timer restarted); one arriving
//!   below the highest seen and landing at the tail is marked `senderRxmit` too. Beyond
//!   `cache_packets` new segments pass uncached. The timer is armed from now when none runs.
//! * **ACKs** (`snoop_ack`): an old ACK is forwarded. A new one frees the cache, takes an rtt
//!   sample from the send time of the *last* segment it frees (set when the segment was
//!   cached, or last retransmitted by Snoop or the sender: the ambiguity TULIP §5.2 fixes),
//!   re-arms the timer from now and clears the dupack state. A dupack for an uncached
//!   segment, or one the sender retransmitted, is forwarded. Otherwise, expecting none, the
//!   dupack goes through `thresh`: every other such dupack is forwarded — ns-2's counter is
//!   a function-static shared by every connection and never reset by a new ACK (here: by
//!   every connection of this agent) — and on the next one Snoop expects (cached segments
//!   from `expNextAck` to the head) − 2 more, and retransmits the hole if it never did
//!   (suppressing that dupack), else forwards it. Expected dupacks are suppressed; with −1
//!   expected ("inconsistent") the hole goes again while it has gone fewer than twice; below
//!   that they are forwarded.
//! * **Retransmission** (`snoop_rxmit`): a copy joins the tail of the interface queue (ns-2
//!   has no priority; `retransmit_ahead = true` puts it at the head), its send time is now,
//!   and the timer is re-armed; after `max_local_retransmits` the dupack is forwarded and no
//!   timer is armed.
//! * **Timer**: `max(srtt + 4·rttvar, snoopTick)`, no back-off, with srtt starting at
//!   `initial_rtt` (100 ms, ns-ll.tcl's `srtt_`), rttvar at 250 ms and snoopTick 100 ms. On expiry the tail is retransmitted
//!   if it is the segment the mobile expects; otherwise the timer lapses until the next event
//!   arms it. The estimator (`snoop_rtt`): srtt = g·srtt + (1 − g)·sample, then rttvar =
//!   g·|sample − srtt| + (1 − g)·rttvar, g = 1/8 — the new sample weighs 7/8 (notes §1.5).
//! * No persist timer, no burst-loss rule, no ACK regeneration (none exist in ns-2).
//!
//! Left out: the reverse direction (ELN), `integrate_`, the interface-queue-length check
//! before caching (a packet is cached only while the queue holds fewer than limit − 1; the
//! validation family's windows never fill it), `lru_`, and caching the SYN (ns-2's one-way
//! TCP sends it as packet 0 and Snoop caches it; ours passes uncached).

use super::*;

/// ns-ll.tcl: `Snoop set rttvar_ 0.25`.
const RTTVAR_INIT: SimDuration = SimDuration::from_millis(250);
/// ns-ll.tcl: `LL/LLSnoop set snoopTick_ 0.1`: the timer's floor.
const SNOOP_TICK: SimDuration = SimDuration::from_millis(100);
/// snoop.cc `RTX_THRESH`: dupacks forwarded before one is acted on.
const RTX_THRESH: u32 = 1;
/// snoop.h `SNOOP_MAXWIND`: the ring size ns-2 wraps `expDupacks` with.
const SNOOP_MAXWIND: i64 = 100;

/// A cached segment (ns-2 `hdr_snoop`).
#[derive(Clone, Debug)]
struct Entry {
    packet: Packet,
    seq: SeqNumber,
    end: SeqNumber,
    num_rxmit: u32,
    sender_rxmit: bool,
    snd_time: SimTime,
}

/// One connection's state (ns-2 `Snoop`).
#[derive(Clone, Debug)]
pub(super) struct Ns2Conn {
    flow: FlowId,
    /// Oldest first; `tail_slot` is the ring index of the front (ns-2 `buftail_`, counted
    /// without wrapping), the head is `tail_slot + len` (`bufhead_`).
    cache: VecDeque<Entry>,
    tail_slot: i64,
    cached_bytes: u64,
    /// The start of the highest segment seen (`lastSeen_`).
    last_seen: Option<SeqNumber>,
    /// The mobile's cumulative ACK (`lastAck_`).
    last_ack: Option<SeqNumber>,
    /// `expNextAck_`, a ring index.
    exp_next_ack: i64,
    /// `expDupacks_`.
    exp_dupacks: i64,
    srtt: SimDuration,
    rttvar: SimDuration,
    rtx_at: Option<SimTime>,
}

impl ConnState for Ns2Conn {
    fn deadline(&self) -> Option<SimTime> {
        self.rtx_at
    }
    fn held_bytes(&self) -> u64 {
        self.cached_bytes
    }
}

/// ns-2's Snoop for every connection through the base station.
#[derive(Clone, Debug, Default)]
pub(super) struct Ns2Snoop {
    conns: Conns<ConnKey, Ns2Conn>,
    /// snoop.cc's function-static `thresh`, shared by the connections.
    thresh: u32,
}

/// What the handlers share.
struct Ns2Cx<'a> {
    spec: &'a SnoopSpec,
    counters: &'a mut SnoopCounters,
    out: &'a mut AgentOutbox,
    thresh: &'a mut u32,
}

impl Ns2Snoop {
    pub(super) fn held_bytes(&self) -> u64 {
        self.conns.held_bytes()
    }
    pub(super) fn poll_timeout(&self) -> Option<SimTime> {
        self.conns.earliest()
    }
    pub(super) fn cached_segments(&self, key: &ConnKey) -> usize {
        self.conns.get(key).map_or(0, |c| c.cache.len())
    }
    pub(super) fn rtt_estimate(&self, key: &ConnKey) -> Option<SimDuration> {
        self.conns.get(key).map(|c| c.srtt)
    }
    pub(super) fn current_timeout(&self, key: &ConnKey) -> Option<SimDuration> {
        self.conns.get(key).map(Ns2Conn::timeout)
    }

    pub(super) fn handle(
        &mut self,
        spec: &SnoopSpec,
        counters: &mut SnoopCounters,
        now: SimTime,
        input: AgentInput<'_>,
        out: &mut AgentOutbox,
    ) {
        let Ns2Snoop { conns, thresh } = self;
        let mut cx = Ns2Cx {
            spec,
            counters,
            out,
            thresh,
        };
        match input {
            AgentInput::Packet {
                side: Side::Wired,
                packet,
            } => {
                let Some((key, seg)) = ConnKey::of(Side::Wired, packet) else {
                    return;
                };
                if seg.header.control == Control::Syn {
                    conns.insert(key, Ns2Conn::new(spec, packet.flow));
                } else if seg.payload_len > 0 {
                    if !conns.contains(&key) {
                        conns.insert(key, Ns2Conn::new(spec, packet.flow));
                    }
                    conns.update(&key, |c| c.on_data(&mut cx, now, packet, &seg));
                }
            }
            AgentInput::Packet {
                side: Side::Wireless,
                packet,
            } => {
                let Some((key, seg)) = ConnKey::of(Side::Wireless, packet) else {
                    return;
                };
                let Some(ack) = seg.header.ack else { return };
                if seg.payload_len == 0 && seg.header.control != Control::Syn {
                    conns.update(&key, |c| c.on_ack(&mut cx, now, ack));
                }
            }
            AgentInput::Timer => {
                for key in conns.due(now) {
                    conns.update(&key, |c| c.on_timer(&mut cx, now));
                }
            }
            AgentInput::Link { .. }
            | AgentInput::Local { .. }
            | AgentInput::Mobility(_)
            | AgentInput::Handover(_) => {}
        }
    }
}

impl Ns2Conn {
    fn new(spec: &SnoopSpec, flow: FlowId) -> Self {
        Ns2Conn {
            flow,
            cache: VecDeque::new(),
            tail_slot: 0,
            cached_bytes: 0,
            last_seen: None,
            last_ack: None,
            exp_next_ack: 0,
            exp_dupacks: 0,
            srtt: spec.initial_rtt.sim(),
            rttvar: RTTVAR_INIT,
            rtx_at: None,
        }
    }

    /// `timeout()`: max(srtt + 4·rttvar, snoopTick).
    fn timeout(&self) -> SimDuration {
        (self.srtt + self.rttvar * 4).max(SNOOP_TICK)
    }

    fn head_slot(&self) -> i64 {
        self.tail_slot + self.cache.len() as i64
    }

    /// `snoop_data`: the packet is forwarded whatever happens here.
    fn on_data(&mut self, cx: &mut Ns2Cx<'_>, now: SimTime, packet: &Packet, seg: &TcpSegment) {
        let seq = seg.header.seq;
        if self.cache.len() >= cx.spec.cache_packets as usize {
            // SNOOP_FULL without lru: not cached.
            self.last_seen = self.last_seen.max(Some(seq));
            return;
        }
        if self.insert(now, packet, seg) {
            self.rtx_at = None; // SNOOP_TAIL: the timer restarts below.
        }
        if self.rtx_at.is_none() && !self.cache.is_empty() {
            self.rtx_at = Some(now + self.timeout());
        }
    }

    /// `snoop_insert`; true for ns-2's SNOOP_TAIL (restart the timer).
    fn insert(&mut self, now: SimTime, packet: &Packet, seg: &TcpSegment) -> bool {
        let seq = seg.header.seq;
        let end = seq + seg.seq_len();
        if self.last_ack.is_some_and(|a| end <= a) {
            return false; // The mobile has it: forwarded uncached.
        }
        let entry = Entry {
            packet: *packet,
            seq,
            end,
            num_rxmit: 0,
            sender_rxmit: false,
            snd_time: now,
        };
        let i = if self.last_seen.is_none_or(|s| seq > s) || self.cache.is_empty() {
            self.cache.len()
        } else if self.cache.front().is_some_and(|t| seq < t.seq) {
            self.tail_slot -= 1;
            0
        } else if let Some(e) = self.cache.iter_mut().find(|e| e.seq == seq) {
            // Cached before: a sender retransmission.
            e.num_rxmit = 0;
            e.sender_rxmit = true;
            e.snd_time = now;
            return true;
        } else {
            // A hole inside the cache: ns-2 moves the entries before it one slot back (and
            // appends at the head when none is above it).
            let i = self.cache.partition_point(|e| e.seq < seq);
            if i < self.cache.len() {
                self.tail_slot -= 1;
            }
            i
        };
        self.cache.insert(i, entry);
        self.cached_bytes += u64::from(seg.payload_len);
        if self.last_seen.is_some_and(|s| seq < s) {
            if i == 0 {
                let tail = &mut self.cache[0];
                tail.sender_rxmit = true;
                tail.num_rxmit = 0;
            }
            self.exp_next_ack = self.tail_slot;
            true
        } else {
            self.last_seen = Some(seq);
            false
        }
    }

    /// `snoop_ack`.
    fn on_ack(&mut self, cx: &mut Ns2Cx<'_>, now: SimTime, ack: SeqNumber) {
        match self.last_ack {
            Some(last) if ack < last => {} // Out of order: forwarded.
            Some(last) if ack == last => self.on_dupack(cx, now, ack),
            _ => self.on_new_ack(cx, now, ack),
        }
    }

    fn on_new_ack(&mut self, cx: &mut Ns2Cx<'_>, now: SimTime, ack: SeqNumber) {
        // `snoop_cleanbufs_`: the send time of the last segment freed.
        self.rtx_at = None;
        let mut snd_time = None;
        while self.cache.front().is_some_and(|e| e.end <= ack) {
            let Some(e) = self.cache.pop_front() else {
                break;
            };
            self.tail_slot += 1;
            self.cached_bytes -= u64::from(e.packet.payload_len());
            snd_time = Some(e.snd_time);
        }
        if !self.cache.is_empty() {
            self.rtx_at = Some(now + self.timeout());
        }
        if let Some(t) = snd_time {
            self.take_sample(cx, now.saturating_since(t));
        }
        self.exp_dupacks = 0;
        self.exp_next_ack = self.tail_slot;
        self.last_ack = Some(ack);
    }

    /// `snoop_rtt`; ns-2 ignores samples of zero.
    fn take_sample(&mut self, cx: &mut Ns2Cx<'_>, sample: SimDuration) {
        if sample.is_zero() {
            return;
        }
        cx.counters.common.rtt_samples += 1;
        self.srtt = (self.srtt + sample * 7) / 8;
        let delta = if sample > self.srtt {
            sample - self.srtt
        } else {
            self.srtt - sample
        };
        self.rttvar = if self.rttvar.is_zero() {
            delta
        } else {
            (delta + self.rttvar * 7) / 8
        };
        let (flow, rtt, timeout) = (self.flow, self.srtt, self.timeout());
        cx.out.trace.push(AgentTrace::Rtt { flow, rtt, timeout });
    }

    fn on_dupack(&mut self, cx: &mut Ns2Cx<'_>, now: SimTime, ack: SeqNumber) {
        let Some(tail) = self.cache.front() else {
            return; // Nothing cached: forwarded.
        };
        if tail.seq > ack {
            return; // The missing segment is not cached: forwarded.
        }
        let (sender_rxmit, num_rxmit) = (tail.sender_rxmit, tail.num_rxmit);
        if self.exp_dupacks == 0 {
            let thresh = *cx.thresh;
            *cx.thresh += 1;
            if thresh < RTX_THRESH {
                return; // Forwarded.
            }
            *cx.thresh = 0;
            if sender_rxmit {
                return;
            }
            let mut expected = self.head_slot() - self.exp_next_ack;
            if expected < 0 {
                expected += SNOOP_MAXWIND;
            }
            self.exp_dupacks = expected - i64::from(RTX_THRESH + 1);
            self.exp_next_ack = self.tail_slot + 1;
            if num_rxmit == 0 {
                self.suppress_if(cx, now);
            }
        } else if self.exp_dupacks > 0 {
            self.exp_dupacks -= 1;
            cx.counters.common.suppressed_dupacks += 1;
            cx.out.verdict = Verdict::Drop;
        } else if self.exp_dupacks == -1 && num_rxmit < 2 {
            self.suppress_if(cx, now);
        }
    }

    /// `return snoop_rxmit(tail)` on a dupack: suppressed if it was sent.
    fn suppress_if(&mut self, cx: &mut Ns2Cx<'_>, now: SimTime) {
        if self.retransmit_tail(cx, now) {
            cx.counters.common.suppressed_dupacks += 1;
            cx.out.verdict = Verdict::Drop;
        }
    }

    /// `snoop_rxmit` of the tail; false at the limit (ns-2's SNOOP_PROPAGATE, the timer
    /// left as it is).
    fn retransmit_tail(&mut self, cx: &mut Ns2Cx<'_>, now: SimTime) -> bool {
        let timeout = self.timeout();
        let Some(tail) = self.cache.front_mut() else {
            return false;
        };
        if tail.num_rxmit >= cx.spec.max_local_retransmits {
            return false;
        }
        tail.snd_time = now;
        tail.num_rxmit += 1;
        if cx.spec.retransmit_ahead.unwrap_or(false) {
            cx.out.ahead.push(tail.packet);
        } else {
            cx.out.packets.push(tail.packet);
        }
        cx.counters.common.local_retransmissions += 1;
        self.rtx_at = Some(now + timeout);
        true
    }

    /// `SnoopRxmitHandler::handle`.
    fn on_timer(&mut self, cx: &mut Ns2Cx<'_>, now: SimTime) {
        if self.rtx_at.is_none_or(|t| t > now) {
            return;
        }
        self.rtx_at = None;
        // ns-2: the tail is `lastAck_ + 1` (before any ACK, `lastAck_` is −1: the first).
        let expected = self
            .cache
            .front()
            .is_some_and(|t| self.last_ack.is_none_or(|a| t.seq == a));
        if expected && self.retransmit_tail(cx, now) {
            cx.counters.common.timer_expiries += 1;
            self.exp_next_ack = self.tail_slot + 1;
        }
    }
}
