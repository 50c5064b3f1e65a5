//! WTCP (Ratnam & Matta, ISCC '98; the seed's §3–4): the base station buffers the fixed
//! host's segments and delivers them to the mobile under its own flow control, while the
//! fixed host's acknowledgements stay end to end.
//!
//! * **From the fixed host** (§3, "WTCP receives data segment from source"): the next
//!   expected segment is stored and the expected sequence number advances (over any
//!   buffered segments it now joins); a later one is buffered without advancing it; an
//!   earlier one is ignored (dropped). Segments that would overflow `buffer` (Table I:
//!   20 KB) are dropped — the highest first: one that would fit in place of held segments
//!   beyond it displaces them, so the segment filling a hole is never refused (`make_room`).
//!   With the paper's settings no overflow happens (§4).
//! * **To the mobile** (§3): "WTCP transmits from its buffer all the segments that fall
//!   within the wireless link transmission window", a window kept, as TCP's, from "the
//!   sequence number of last acknowledgment received from the mobile host": a held segment
//!   goes out when it ends within `window` (3, §4) segments of the mobile's ACK point —
//!   segments measured as the largest the source has sent on the connection — and within
//!   the mobile's advertised window. Segments beyond a hole in the fixed host's data are
//!   sent too when they fall in the window: the mobile's dupacks for a hole the base
//!   station does not hold are forwarded, so the source recovers its own losses, and its
//!   retransmission, which fills the hole at the ACK point, is always within the window
//!   and goes out at once (`docs/models/wtcp.md`: why not count segments in flight).
//! * **Acknowledgements** (§3): the fixed host gets the mobile's ACKs, forwarded
//!   unchanged, and nothing else — end-to-end semantics are kept. A new ACK frees the
//!   buffer and reopens the window fully ("the transmission window size is set to the
//!   window size advertised by the receiver", bounded by `window`). An ACK that only
//!   changes the advertised window is a window update, not a duplicate (RFC 5681 §2).
//! * **Local recovery** (§3): a duplicate ACK for a held segment retransmits it at once,
//!   without touching the window, **once per segment**; all further dupacks for it (the
//!   ones the other outstanding segments bring, and any later) are neither acted on nor
//!   forwarded — the fixed host has nothing to learn from them. On a timeout the window
//!   drops to one segment and sending resumes from the mobile's ACK point (go-back-N as
//!   TCP does after an RTO; the paper says only that the window drops to one): the
//!   segment there is retransmitted if the base station holds it; if it does not (a wired
//!   loss), nothing is sent and the source's own retransmission will fill it.
//! * **Timer** (§4): one segment timed at a time (the next new one sent when none is), the
//!   sample counted in ticks of the base station's `clock` (10 ms; at least one tick); no
//!   smoothing; timeout = `timeout_factor`·RTT = 1.5·RTT, the same after every expiry
//!   ("linear back-off"), firing on clock ticks. A segment retransmitted while timed gives
//!   no sample (Karn; the paper is silent). The timer is armed when a segment is sent and
//!   none is pending (§3), restarted by each new ACK while segments are outstanding, and
//!   stopped when none is. **Liveness** (`check`, asserted after every input in debug
//!   builds): whenever a segment is in flight, or the segment the mobile waits for is
//!   held (e.g. shut out by a zero window: the expiry then sends it as a probe), the timer
//!   runs; and no held segment within the window is left unsent.
//! * **Timestamps** (§3.1, §4): `none` forwards the source's TSval, so the source's RTT
//!   includes the residence time; `exact` adds the residence time (arrival at the base
//!   station to this transmission) rounded to ticks of the source's clock
//!   (`source_clock`); `recent` stamps the segment with the most recent TSval received
//!   from the source, or removes the option when the base station has retransmitted
//!   anything since that segment arrived (this transmission included). Because the
//!   mobile's TCP follows RFC 7323 §4.3 and would otherwise echo an older TS.Recent, an
//!   ACK whose first acknowledged segment went without the option has its own removed
//!   on the way to the source (in the paper's ns the sink echoed the triggering segment,
//!   so such an ACK carried no echo either). With `none`, what the source sees of the
//!   residence time depends on that echo: the paper's sink ("each acknowledgment contains
//!   the timestamp of the segment that generated it", §3.1; `tcp.ts_echo = "segment"`)
//!   shows it the residence of segments held behind a wired loss, RFC 7323's TS.Recent
//!   hides most of it (`docs/models/wtcp.md`, "Table II").
//!
//! * **Handoff** (docs/mobility.md): WTCP §6 runs WTCP on the gateway, which keeps its
//!   state across handoffs. On a base station a mobile leaves, its connections are dropped
//!   (`handoff = "drop"`) or handed to the new base station's WTCP (`"transfer"`). A
//!   connection a WTCP first sees mid-stream (after a handoff) takes the mobile's first
//!   ACK below its start as the ACK point, and holds any segment the mobile has not
//!   acknowledged that it does not hold yet, so that the source's retransmissions of what
//!   the old base station lost get through.
//!
//! Left out: the mobile as sender, SACK.

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

pub use spec::{WtcpSpec, WtcpTimestamps};

/// A segment held at the base station.
#[derive(Clone, Debug)]
struct Held {
    packet: Packet,
    seq: SeqNumber,
    end: SeqNumber,
    arrived: SimTime,
    /// Sent and not yet acknowledged (cleared by a timeout's go-back).
    outstanding: bool,
    transmissions: u32,
    last_sent: Option<SimTime>,
    /// Already retransmitted on a duplicate ACK.
    dupack_retransmitted: bool,
    /// Its last transmission had the timestamp option removed (`recent`).
    sent_without_ts: bool,
}

#[derive(Clone, Debug)]
struct WtcpConn {
    flow: FlowId,
    held: VecDeque<Held>,
    held_bytes: u64,
    /// The next sequence number expected from the fixed host.
    rcv_nxt: SeqNumber,
    /// The mobile's cumulative ACK.
    snd_una: SeqNumber,
    /// The wireless window in segments (§3: `window`, or 1 after a timeout).
    window: u32,
    /// The largest segment the source has sent: the unit of the window.
    smss: u32,
    peer_window: u64,
    rtt: SimDuration,
    timed: Option<(SeqNumber, SimTime)>,
    rtx_at: Option<SimTime>,
    /// The most recent TSval from the source and when it arrived.
    recent_ts: Option<(u32, SimTime)>,
    last_local_retransmission: Option<SimTime>,
    /// First seen mid-stream, without its SYN (after a handoff, module notes).
    mid_stream: bool,
}

/// WTCP's counters beyond the common ones.
#[derive(Clone, Copy, Debug, Default)]
struct WtcpCounters {
    common: AgentCounters,
    buffer_drops: u64,
    residence_sum_s: f64,
    residence_count: u64,
    residence_max: SimDuration,
}

/// What every connection's handlers share: the settings, the counters and the outbox.
struct Cx<'a> {
    spec: &'a WtcpSpec,
    counters: &'a mut WtcpCounters,
    out: &'a mut AgentOutbox,
}

impl Cx<'_> {
    /// `timeout_factor` × an RTT (§4).
    fn timeout(&self, rtt: SimDuration) -> SimDuration {
        SimDuration::from_secs_f64(rtt.as_secs_f64() * self.spec.timeout_factor)
    }
    /// A deadline `d` from now, on the base station's clock ticks.
    fn deadline(&self, now: SimTime, d: SimDuration) -> SimTime {
        (now + d).ceil_to(self.spec.clock.sim())
    }
}

/// The WTCP agent.
#[derive(Clone, Debug)]
pub struct WtcpAgent {
    spec: WtcpSpec,
    conns: Conns<ConnKey, WtcpConn>,
    counters: WtcpCounters,
    occupancy: Occupancy,
}

impl WtcpAgent {
    pub fn new(spec: WtcpSpec) -> Self {
        WtcpAgent {
            spec,
            conns: Conns::default(),
            counters: WtcpCounters::default(),
            occupancy: Occupancy::default(),
        }
    }

    pub fn counters(&self) -> AgentCounters {
        self.counters.common
    }
    /// Segments dropped because the buffer was full.
    pub fn buffer_drops(&self) -> u64 {
        self.counters.buffer_drops
    }
    /// The wireless window (segments) of connection `key`.
    pub fn window(&self, key: &ConnKey) -> Option<u32> {
        self.conns.get(key).map(|c| c.window)
    }
    /// The last wireless RTT sample of `key` (or the initial value).
    pub fn rtt(&self, key: &ConnKey) -> Option<SimDuration> {
        self.conns.get(key).map(|c| c.rtt)
    }
    /// Segments held for `key`.
    pub fn held_segments(&self, key: &ConnKey) -> usize {
        self.conns.get(key).map_or(0, |c| c.held.len())
    }

    /// Runs `f` on connection `key` (if the agent tracks it) with the context its handlers
    /// share.
    fn with_conn<R>(
        &mut self,
        key: &ConnKey,
        out: &mut AgentOutbox,
        f: impl FnOnce(&mut WtcpConn, &mut Cx<'_>) -> R,
    ) -> Option<R> {
        let WtcpAgent {
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
        let seq = seg.header.seq;
        if seg.header.control == Control::Syn {
            let conn = WtcpConn::new(&self.spec, packet.flow, seq + 1);
            self.conns.insert(key, conn);
            return;
        }
        if seg.seq_len() == 0 {
            return; // The fixed host's pure ACKs pass.
        }
        if !self.conns.contains(&key) {
            let mut conn = WtcpConn::new(&self.spec, packet.flow, seq);
            conn.mid_stream = true;
            self.conns.insert(key, conn);
        }
        self.with_conn(&key, out, |c, cx| c.on_data(cx, now, packet, &seg));
    }

    /// A segment from the mobile.
    fn on_wireless(&mut self, now: SimTime, packet: &mut Packet, out: &mut AgentOutbox) {
        let Some((key, seg)) = ConnKey::of(Side::Wireless, packet) else {
            return;
        };
        self.with_conn(&key, out, |c, cx| c.on_segment(cx, now, &seg, packet));
    }

    fn on_timer(&mut self, now: SimTime, out: &mut AgentOutbox) {
        for key in self.conns.due(now) {
            self.with_conn(&key, out, |c, cx| c.on_timeout(cx, now));
        }
    }

    /// `mobile` left the cell: its connections go, to the next WTCP or nowhere.
    fn on_left(&mut self, mobile: Ipv4Addr, out: &mut AgentOutbox) {
        let taken = self.conns.take_where(|k| k.mh.0 == mobile);
        if self.spec.handoff == OnHandoff::Transfer && !taken.is_empty() {
            let latency = self.spec.handoff_latency.sim();
            out.handover = Some((Handover::Wtcp(WtcpHandover(taken)), latency));
        }
    }
}

/// A mobile's connections as one WTCP hands them to the next (`handoff = "transfer"`).
#[derive(Clone, Debug)]
pub struct WtcpHandover(Vec<(ConnKey, WtcpConn)>);

impl Agent for WtcpAgent {
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
            AgentInput::Mobility(MobilityNotice::Left { mobile }) => self.on_left(mobile, out),
            AgentInput::Handover(Handover::Wtcp(h)) => {
                for (key, conn) in h.0 {
                    self.conns.insert(key, conn);
                }
            }
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

    /// A segment in flight, or the one the mobile waits for, is covered by the timer, and
    /// nothing within the window waits unsent (module notes, "Liveness").
    fn check(&self) -> Result<(), String> {
        for (key, c) in self.conns.iter() {
            if c.needs_timer() && c.rtx_at.is_none() {
                return Err(format!(
                    "wtcp {key:?}: {} segments held, {} in flight, and no timer armed",
                    c.held.len(),
                    c.held.iter().filter(|h| h.outstanding).count()
                ));
            }
            let limit = c.window_bytes();
            let unsent = (0..c.held.len())
                .take_while(|&i| c.beyond_ack_point(i) <= limit)
                .find(|&i| !c.held[i].outstanding);
            if let Some(i) = unsent {
                return Err(format!(
                    "wtcp {key:?}: held segment at {:?} is within the window and unsent",
                    c.held[i].seq
                ));
            }
        }
        Ok(())
    }

    fn summary(&self, end: SimTime) -> AgentSummary {
        let c = &self.counters;
        AgentSummary {
            kind: "wtcp".into(),
            local_retransmissions: c.common.local_retransmissions,
            suppressed_dupacks: c.common.suppressed_dupacks,
            timer_expiries: c.common.timer_expiries,
            rtt_samples: c.common.rtt_samples,
            occupancy_max_bytes: self.occupancy.max(),
            occupancy_mean_bytes: self.occupancy.mean(end),
            own: AgentOwnMetrics::Wtcp {
                residence_mean_s: if c.residence_count == 0 {
                    0.0
                } else {
                    c.residence_sum_s / c.residence_count as f64
                },
                residence_max_s: c.residence_max.as_secs_f64(),
            },
        }
    }
}

impl ConnState for WtcpConn {
    fn deadline(&self) -> Option<SimTime> {
        self.rtx_at
    }
    fn held_bytes(&self) -> u64 {
        self.held_bytes
    }
}

impl WtcpConn {
    fn new(spec: &WtcpSpec, flow: FlowId, next: SeqNumber) -> Self {
        WtcpConn {
            flow,
            held: VecDeque::new(),
            held_bytes: 0,
            rcv_nxt: next,
            snd_una: next,
            window: spec.window,
            smss: 1,
            peer_window: u64::MAX,
            rtt: spec.initial_rtt.sim(),
            timed: None,
            rtx_at: None,
            recent_ts: None,
            last_local_retransmission: None,
            mid_stream: false,
        }
    }

    /// The wireless window in bytes: `window` segments, capped by the mobile's window.
    fn window_bytes(&self) -> u64 {
        (u64::from(self.window) * u64::from(self.smss)).min(self.peer_window)
    }
    /// How far beyond the mobile's ACK point held segment `i` ends.
    fn beyond_ack_point(&self, i: usize) -> u64 {
        u64::from(self.held[i].end.wrapping_diff(self.snd_una).max(0) as u32)
    }
    /// A segment is in flight, or the one the mobile waits for is held.
    fn needs_timer(&self) -> bool {
        self.held.iter().any(|h| h.outstanding)
            || self.held.front().is_some_and(|h| h.seq <= self.snd_una)
    }

    // ---- from the fixed host -----------------------------------------------------------

    /// A data segment from the fixed host (§3, "WTCP receives data segment from source").
    fn on_data(&mut self, cx: &mut Cx<'_>, now: SimTime, packet: &Packet, seg: &TcpSegment) {
        let seq = seg.header.seq;
        self.smss = self.smss.max(seg.payload_len);
        cx.out.verdict = Verdict::Consume;
        if let Some((tsval, _)) = seg.header.options.timestamp {
            self.recent_ts = Some((tsval, now));
        }
        let end = seq + seg.seq_len();
        // Mid-stream, what the mobile has not acknowledged and is not held may be a
        // retransmission of what the old base station lost (module notes, "Handoff").
        let expected_from = match self.mid_stream {
            true => self.snd_una,
            false => self.rcv_nxt,
        };
        if end <= expected_from || self.held.iter().any(|h| h.seq == seq) {
            cx.out.verdict = Verdict::Drop; // Old or already held: ignored (§3).
            return;
        }
        if !self.make_room(cx, seq, seg.payload_len) {
            cx.out.verdict = Verdict::Drop;
            cx.counters.buffer_drops += 1;
            return;
        }
        let i = self.held.partition_point(|h| h.seq < seq);
        self.held.insert(
            i,
            Held {
                packet: *packet,
                seq,
                end,
                arrived: now,
                outstanding: false,
                transmissions: 0,
                last_sent: None,
                dupack_retransmitted: false,
                sent_without_ts: false,
            },
        );
        self.held_bytes += u64::from(seg.payload_len);
        // The expected sequence number advances over what is now contiguous.
        for h in &self.held {
            if h.seq <= self.rcv_nxt && h.end > self.rcv_nxt {
                self.rcv_nxt = h.end;
            }
        }
        self.send_window(cx, now);
        self.ensure_timer(cx, now);
    }

    /// Room in the buffer for `len` bytes at `seq`: when it is full, segments held *beyond*
    /// `seq` give way, highest first (each counted as a buffer drop), and one at or below
    /// every held segment is never refused for them. Without this, a buffer filled with
    /// segments beyond a hole refuses the very segment that fills it — the source's
    /// retransmission — and the connection deadlocks (a source window larger than
    /// `buffer` did it with no loss at all: the overflow made the hole). The evicted
    /// segments are the source's to resend, as any other buffer drop. Returns false when
    /// the segment itself must be dropped (it is the highest).
    fn make_room(&mut self, cx: &mut Cx<'_>, seq: SeqNumber, len: u32) -> bool {
        let limit = cx.spec.buffer.bytes();
        while self.held_bytes + u64::from(len) > limit {
            match self.held.back() {
                Some(last) if last.seq > seq => {
                    self.held_bytes -= u64::from(last.packet.payload_len());
                    self.held.pop_back();
                    cx.counters.buffer_drops += 1;
                }
                _ => return self.held.is_empty(),
            }
        }
        true
    }

    // ---- from the mobile ---------------------------------------------------------------

    fn on_segment(&mut self, cx: &mut Cx<'_>, now: SimTime, seg: &TcpSegment, packet: &mut Packet) {
        let window = u64::from(seg.header.window);
        let window_changed = window != self.peer_window;
        self.peer_window = window;
        let Some(ack) = seg.header.ack else { return };
        if seg.payload_len > 0 || seg.header.control == Control::Syn {
            return;
        }
        if self.mid_stream && ack < self.snd_una && self.held.front().is_none_or(|h| ack < h.seq) {
            // The mobile's ACK point, below where this base station came in.
            self.snd_una = ack;
        }
        if ack > self.snd_una {
            self.on_new_ack(cx, now, ack, packet);
        } else if ack == self.snd_una && seg.seq_len() == 0 && !window_changed {
            self.on_dupack(cx, now);
        } else {
            // A window update (RFC 5681 §2: not a duplicate) may let held segments out.
            self.send_window(cx, now);
        }
        self.ensure_timer(cx, now);
    }

    fn on_new_ack(&mut self, cx: &mut Cx<'_>, now: SimTime, ack: SeqNumber, packet: &mut Packet) {
        // The mobile echoes the TSval of the first segment this ACK covers (RFC 7323 §4.3:
        // the one at its old ACK point); if that went without the option, so does the ACK.
        let strip_ts = self
            .held
            .front()
            .is_some_and(|h| h.end <= ack && h.sent_without_ts);
        while self.held.front().is_some_and(|h| h.end <= ack) {
            let Some(h) = self.held.pop_front() else {
                break;
            };
            self.held_bytes -= u64::from(h.packet.payload_len());
            if let Some(sent) = h.last_sent {
                let r = sent.saturating_since(h.arrived);
                cx.counters.residence_sum_s += r.as_secs_f64();
                cx.counters.residence_count += 1;
                cx.counters.residence_max = cx.counters.residence_max.max(r);
            }
        }
        self.snd_una = ack;
        self.window = cx.spec.window;
        let sample = self
            .timed
            .filter(|(end, _)| *end <= ack)
            .map(|(_, sent)| sent);
        if sample.is_some() {
            self.timed = None;
        }
        if strip_ts {
            if let Some(seg) = packet.tcp_mut() {
                seg.header.options.timestamp = None;
            }
            packet.fix_length();
        }
        if let Some(sent) = sample {
            self.take_sample(cx, now, sent);
        }
        let any_outstanding = self.held.iter().any(|h| h.outstanding);
        let timeout = cx.timeout(self.rtt);
        self.rtx_at = any_outstanding.then(|| cx.deadline(now, timeout));
        self.send_window(cx, now);
    }

    /// One sample: ticks of the base station's clock between sending and the ACK.
    fn take_sample(&mut self, cx: &mut Cx<'_>, now: SimTime, sent: SimTime) {
        let clock = cx.spec.clock.sim();
        let ticks = (now.as_nanos() / clock.as_nanos())
            .saturating_sub(sent.as_nanos() / clock.as_nanos())
            .max(1);
        let rtt = clock * ticks;
        let timeout = cx.timeout(rtt);
        self.rtt = rtt;
        cx.counters.common.rtt_samples += 1;
        cx.out.trace.push(AgentTrace::Rtt {
            flow: self.flow,
            rtt,
            timeout,
        });
    }

    fn on_dupack(&mut self, cx: &mut Cx<'_>, now: SimTime) {
        let Some(head) = self.held.front_mut() else {
            return;
        };
        if head.seq != self.snd_una {
            return; // A hole in the fixed host's data: its own recovery needs the dupack.
        }
        cx.out.verdict = Verdict::Drop;
        cx.counters.common.suppressed_dupacks += 1;
        if head.outstanding && !head.dupack_retransmitted {
            head.dupack_retransmitted = true;
            self.transmit(cx, now, 0);
        }
    }

    // ---- sending -----------------------------------------------------------------------

    /// Sends every held segment not yet in flight that ends within the wireless window
    /// and the mobile's window, both counted from the mobile's ACK point (module notes).
    fn send_window(&mut self, cx: &mut Cx<'_>, now: SimTime) {
        let limit = self.window_bytes();
        let due: Vec<usize> = (0..self.held.len())
            .take_while(|&i| self.beyond_ack_point(i) <= limit)
            .filter(|&i| !self.held[i].outstanding)
            .collect();
        for i in due {
            self.transmit(cx, now, i);
        }
    }

    /// Arms the timer while a segment is in flight or the one the mobile waits for is held
    /// (if none is pending, §3), stops it otherwise (module notes, "Liveness").
    fn ensure_timer(&mut self, cx: &Cx<'_>, now: SimTime) {
        let at = cx.deadline(now, cx.timeout(self.rtt));
        if self.needs_timer() {
            self.rtx_at.get_or_insert(at);
        } else {
            self.rtx_at = None;
        }
    }

    /// Sends held segment `i` to the mobile, with its timestamp handled per `timestamps`.
    fn transmit(&mut self, cx: &mut Cx<'_>, now: SimTime, i: usize) {
        let source_clock = cx.spec.source_clock.sim();
        let retransmission = self.held[i].transmissions > 0;
        if retransmission {
            self.last_local_retransmission = Some(now);
            cx.counters.common.local_retransmissions += 1;
        }
        let (recent, last_rexmit) = (self.recent_ts, self.last_local_retransmission);
        let h = &mut self.held[i];
        h.transmissions += 1;
        h.outstanding = true;
        h.last_sent = Some(now);
        h.sent_without_ts = false;
        let mut p = h.packet;
        if let Some(seg) = p.tcp_mut() {
            if let Some((tsval, ecr)) = seg.header.options.timestamp {
                match cx.spec.timestamps {
                    WtcpTimestamps::None => {}
                    WtcpTimestamps::Exact => {
                        let residence = now.saturating_since(h.arrived).as_nanos();
                        let ticks =
                            (residence + source_clock.as_nanos() / 2) / source_clock.as_nanos();
                        seg.header.options.timestamp =
                            Some((tsval.wrapping_add(ticks as u32), ecr));
                    }
                    WtcpTimestamps::Recent => match recent {
                        Some((ts, arrived)) if last_rexmit.is_none_or(|r| r < arrived) => {
                            seg.header.options.timestamp = Some((ts, ecr));
                        }
                        _ => {
                            seg.header.options.timestamp = None;
                            h.sent_without_ts = true;
                        }
                    },
                }
            }
        }
        p.fix_length();
        let (seq, end) = (h.seq, h.end);
        cx.out.packets.push(p);
        match self.timed {
            None if !retransmission => self.timed = Some((end, now)),
            Some((t_end, _)) if retransmission && seq < t_end => self.timed = None,
            _ => {}
        }
        if self.rtx_at.is_none() {
            self.rtx_at = Some(cx.deadline(now, cx.timeout(self.rtt)));
        }
    }

    // ---- timer -------------------------------------------------------------------------

    fn on_timeout(&mut self, cx: &mut Cx<'_>, now: SimTime) {
        self.rtx_at = None;
        // §3: "the transmission window ... is reduced to just one segment"; go back to the
        // mobile's ACK point. If the base station holds the segment there it goes out again
        // (past a zero window too, as a probe); if not, the source's retransmission will
        // fill it and go out on arrival.
        self.window = 1;
        for h in self.held.iter_mut() {
            h.outstanding = false;
        }
        if self.held.front().is_some_and(|h| h.seq <= self.snd_una) {
            cx.counters.common.timer_expiries += 1;
            self.transmit(cx, now, 0);
        }
        self.ensure_timer(cx, now);
    }
}
