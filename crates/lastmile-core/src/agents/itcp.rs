//! I-TCP (Bakre & Badrinath 1995; notes §4.2), as the WTCP paper simulated it (§4): the base
//! station **splits the connection and breaks TCP's end-to-end semantics** — the fixed
//! host's data is acknowledged as soon as the base station has buffered it, whether or not
//! the mobile ever gets it.
//!
//! * The fixed host's SYN to the mobile is intercepted: a `TcpConnection` at the base
//!   station, listening with the mobile's address and port, accepts it transparently, and
//!   a second one, with the fixed host's address and port, opens a connection to the
//!   mobile. Both use `tcp` (default Tahoe with a 10 ms clock, WTCP §4).
//! * Bytes delivered in order by the first are written to the second, and the mobile's
//!   bytes delivered by the second (a request/response client's requests) to the first.
//!   The relay buffer is what the second has not had acknowledged by the mobile; the first
//!   advertises what is free of `buffer` as its window (zero when full, reopened — with a window update —
//!   only once a full segment fits: WTCP §4, after Stevens), so a fast fixed host is held
//!   by a zero window and probes with its persist timer.
//! * Every packet of a split connection is consumed; the packets the two connections emit
//!   are sent in the names of the mobile (towards the fixed host) and of the fixed host
//!   (towards the mobile). The per-packet delay keeps the fixed host's origin times.
//!
//! Metrics: retransmissions and RTOs of the base station's TCP towards the mobile count as
//! local retransmissions and timer expiries; its RTT samples feed `agent_rtt`; the relay
//! buffer is the occupancy; ACKs advertising a zero window are counted.
//!
//! **Handoff** (Bakre & Badrinath 1995; docs/mobility.md): on a base station a mobile
//! leaves, its split connections — both halves with their buffers, timers and sequence
//! state — are handed to the new base station's I-TCP, where they arrive
//! `handoff_latency` after the mobile joins it; meanwhile neither base station answers for
//! them. An I-TCP on the gateway (WTCP §6) never sees a mobile leave.
//!
//! Left out: a window or buffer limit on the mobile's bytes towards the fixed host
//! (requests are small).

mod spec;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, VecDeque};

use super::common::{AgentTrace, ConnState, Conns, Occupancy};
use super::{Agent, AgentInput, AgentOutbox, ConnKey, Handover, MobilityNotice, Side, Verdict};
use crate::engine::{RngStream, SimTime};
use crate::ids::FlowId;
use crate::metrics::{AgentOwnMetrics, AgentSummary};
use crate::packet::{
    Control, Ipv4Addr, Ipv4Header, Packet, PacketId, Service, TcpSegment, Transport, DEFAULT_TTL,
    PROTO_TCP,
};
use crate::tcp::{TcpConfig, TcpConnection, TcpOutbox, TcpState, TcpTraceEvent};

pub use spec::ItcpSpec;

/// One split connection.
#[derive(Clone, Debug)]
struct Split {
    key: ConnKey,
    flow: FlowId,
    /// Faces the fixed host, in the mobile's name.
    wired: TcpConnection,
    /// Faces the mobile, in the fixed host's name.
    wireless: TcpConnection,
    wireless_isn: u32,
    /// Bytes relayed so far.
    relayed: u64,
    /// (stream offset, origin time) of each relayed piece, for per-packet delay.
    origins: VecDeque<(u64, SimTime)>,
    closing: bool,
}

/// A mobile's split connections on their way to its new base station.
#[derive(Clone, Debug)]
pub struct ItcpHandover(Vec<(ConnKey, Split)>);

/// What every split's handlers share: the counters and the outbox.
struct Cx<'a> {
    zero_windows: &'a mut u64,
    rtt_samples: &'a mut u64,
    out: &'a mut AgentOutbox,
}

/// The I-TCP agent.
#[derive(Clone, Debug)]
pub struct ItcpAgent {
    spec: ItcpSpec,
    isn: RngStream,
    splits: Conns<ConnKey, Split>,
    /// Splits whose both halves are done; forgotten at the next timer expiry.
    finished: BTreeSet<ConnKey>,
    occupancy: Occupancy,
    zero_windows: u64,
    rtt_samples: u64,
}

impl ItcpAgent {
    pub fn new(spec: ItcpSpec, isn: RngStream) -> Self {
        ItcpAgent {
            spec,
            isn,
            splits: Conns::default(),
            finished: BTreeSet::new(),
            occupancy: Occupancy::default(),
            zero_windows: 0,
            rtt_samples: 0,
        }
    }

    /// Bytes in the relay buffer of `key`.
    pub fn buffered(&self, key: &ConnKey) -> Option<u64> {
        self.splits
            .get(key)
            .map(|s| s.wireless.unacknowledged_bytes())
    }
    /// ACKs to the fixed host that advertised a zero window.
    pub fn zero_window_advertisements(&self) -> u64 {
        self.zero_windows
    }

    /// Runs `f` on split connection `key` (if there is one) with the context its handlers
    /// share.
    fn with_split<R>(
        &mut self,
        key: &ConnKey,
        out: &mut AgentOutbox,
        f: impl FnOnce(&mut Split, &mut Cx<'_>) -> R,
    ) -> Option<R> {
        let ItcpAgent {
            splits,
            finished,
            zero_windows,
            rtt_samples,
            ..
        } = self;
        splits.update(key, |split| {
            let r = f(
                split,
                &mut Cx {
                    zero_windows,
                    rtt_samples,
                    out,
                },
            );
            if split.wired.state() == TcpState::Closed && split.wireless.is_finished() {
                finished.insert(*key);
            }
            r
        })
    }

    fn on_packet(&mut self, now: SimTime, side: Side, packet: &mut Packet, out: &mut AgentOutbox) {
        let Some((key, seg)) = ConnKey::of(side, packet) else {
            return;
        };
        if !self.splits.contains(&key) {
            let is_open = side == Side::Wired
                && seg.header.control == Control::Syn
                && seg.header.ack.is_none();
            if !is_open {
                return; // Not a connection we split: forwarded.
            }
            let split = self.open(key, packet.flow);
            self.splits.insert(key, split);
            self.with_split(&key, out, |split, cx| {
                let mut tcp_out = TcpOutbox::default();
                split.wireless.connect(now, &mut tcp_out);
                split.apply(cx, now, Side::Wireless, &tcp_out);
            });
        }
        let origin = packet.origin_time;
        self.with_split(&key, out, |split, cx| {
            cx.out.verdict = Verdict::Consume;
            let mut tcp_out = TcpOutbox::default();
            let half = match side {
                Side::Wired => &mut split.wired,
                Side::Wireless => &mut split.wireless,
            };
            half.on_segment(now, &seg, origin, &mut tcp_out);
            split.apply(cx, now, side, &tcp_out);
            split.relay(cx, now);
        });
    }

    /// The fixed host's SYN: both halves, the one facing it listening.
    fn open(&mut self, key: ConnKey, flow: FlowId) -> Split {
        let t = &self.spec.tcp;
        let mut wired_cfg =
            TcpConfig::from_spec(t, key.mh, key.fh, self.isn.next_u64() as u32, true);
        wired_cfg.rwnd_bytes = self.spec.buffer.bytes().min(u64::from(u32::MAX)) as u32;
        wired_cfg.trace = false;
        let wireless_isn = self.isn.next_u64() as u32;
        let mut wired = TcpConnection::new(wired_cfg);
        wired.listen();
        let wireless =
            TcpConnection::new(TcpConfig::from_spec(t, key.fh, key.mh, wireless_isn, true));
        Split {
            key,
            flow,
            wired,
            wireless,
            wireless_isn,
            relayed: 0,
            origins: VecDeque::new(),
            closing: false,
        }
    }

    /// `mobile` left the cell: its splits go to its new base station's I-TCP.
    fn on_left(&mut self, mobile: Ipv4Addr, out: &mut AgentOutbox) {
        let taken = self.splits.take_where(|k| k.mh.0 == mobile);
        self.finished.retain(|k| k.mh.0 != mobile);
        if !taken.is_empty() {
            let latency = self.spec.handoff_latency.sim();
            out.handover = Some((Handover::Itcp(ItcpHandover(taken)), latency));
        }
    }

    fn on_timer(&mut self, now: SimTime, out: &mut AgentOutbox) {
        // Splits not due have nothing to send: their relay ran after their last input.
        for key in self.splits.due(now) {
            self.with_split(&key, out, |split, cx| split.on_timer(cx, now));
        }
        for key in std::mem::take(&mut self.finished) {
            self.splits.remove(&key);
        }
    }
}

impl Agent for ItcpAgent {
    fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        match input {
            AgentInput::Packet { side, packet } => self.on_packet(now, side, packet, out),
            AgentInput::Timer => self.on_timer(now, out),
            AgentInput::Mobility(MobilityNotice::Left { mobile }) => self.on_left(mobile, out),
            AgentInput::Handover(Handover::Itcp(h)) => {
                for (key, split) in h.0 {
                    self.splits.insert(key, split);
                }
            }
            AgentInput::Link { .. }
            | AgentInput::Local { .. }
            | AgentInput::Mobility(_)
            | AgentInput::Handover(_) => {}
        }
        self.occupancy.set(now, self.splits.held_bytes());
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.splits.earliest()
    }

    /// Each half with bytes its peer has not acknowledged has a timer running
    /// (retransmission or persist), so relayed data is never left without a way forward.
    fn check(&self) -> Result<(), String> {
        for (key, s) in self.splits.iter() {
            for (half, conn) in [("wired", &s.wired), ("wireless", &s.wireless)] {
                if conn.unacknowledged_bytes() > 0 && conn.poll_timeout().is_none() {
                    return Err(format!(
                        "itcp {key:?}: the {half} half has {} bytes unacknowledged and no timer",
                        conn.unacknowledged_bytes()
                    ));
                }
            }
        }
        Ok(())
    }

    fn summary(&self, end: SimTime) -> AgentSummary {
        let (mut rexmt, mut timeouts) = (0, 0);
        for s in self.splits.values() {
            rexmt += s.wireless.stats().retransmits;
            timeouts += s.wireless.stats().timeouts;
        }
        AgentSummary {
            kind: "itcp".into(),
            local_retransmissions: rexmt,
            suppressed_dupacks: 0,
            timer_expiries: timeouts,
            rtt_samples: self.rtt_samples,
            occupancy_max_bytes: self.occupancy.max(),
            occupancy_mean_bytes: self.occupancy.mean(end),
            own: AgentOwnMetrics::ZeroWindows {
                zero_window_advertisements: self.zero_windows,
            },
        }
    }
}

impl ConnState for Split {
    fn deadline(&self) -> Option<SimTime> {
        [self.wired.poll_timeout(), self.wireless.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }
    /// The relay buffer: what the half towards the mobile has not had acknowledged.
    fn held_bytes(&self) -> u64 {
        self.wireless.unacknowledged_bytes()
    }
}

impl Split {
    /// Closes the mobile half after the fixed host's FIN, and updates the window the fixed
    /// host sees from the relay buffer.
    fn relay(&mut self, cx: &mut Cx<'_>, now: SimTime) {
        let mut to_mobile = TcpOutbox::default();
        if self.wired.peer_closed() && !self.closing {
            self.closing = true;
            self.wireless.app_close(now, &mut to_mobile);
        }
        let mut to_fh = TcpOutbox::default();
        let backlog = self.wireless.unacknowledged_bytes();
        self.wired.set_receive_backlog(now, backlog, &mut to_fh);
        self.apply(cx, now, Side::Wireless, &to_mobile);
        self.apply(cx, now, Side::Wired, &to_fh);
    }

    /// Turns one half's outbox into packets; `side` names the half (`Wired`: towards the
    /// fixed host). Deliveries of the wired half are written to the wireless half.
    fn apply(&mut self, cx: &mut Cx<'_>, now: SimTime, side: Side, tcp_out: &TcpOutbox) {
        let (from, to) = match side {
            Side::Wired => (self.key.mh, self.key.fh),
            Side::Wireless => (self.key.fh, self.key.mh),
        };
        for s in &tcp_out.segments {
            let origin = match side {
                Side::Wired => s.origin_time,
                Side::Wireless => self.origin_of(&s.segment).unwrap_or(s.origin_time),
            };
            if side == Side::Wired && s.segment.header.window == 0 {
                *cx.zero_windows += 1;
            }
            cx.out
                .packets
                .push(packet(from.0, to.0, s.segment, origin, self.flow));
        }
        for ev in &tcp_out.trace {
            if let (Side::Wireless, TcpTraceEvent::Rtt { srtt, rto, .. }) = (side, ev) {
                *cx.rtt_samples += 1;
                cx.out.trace.push(AgentTrace::Rtt {
                    flow: self.flow,
                    rtt: *srtt,
                    timeout: *rto,
                });
            }
        }
        if side == Side::Wired && !tcp_out.delivered.is_empty() {
            let mut more = TcpOutbox::default();
            for d in &tcp_out.delivered {
                self.origins.push_back((self.relayed, d.origin_time));
                self.relayed += u64::from(d.len);
                self.wireless.app_write(now, u64::from(d.len), &mut more);
            }
            self.apply(cx, now, Side::Wireless, &more);
        }
        if side == Side::Wireless && !tcp_out.delivered.is_empty() {
            // The mobile's bytes (a request) go on to the fixed host.
            let mut more = TcpOutbox::default();
            for d in &tcp_out.delivered {
                self.wired.app_write(now, u64::from(d.len), &mut more);
            }
            self.apply(cx, now, Side::Wired, &more);
        }
    }

    /// The halves whose timers are due, then the relay.
    fn on_timer(&mut self, cx: &mut Cx<'_>, now: SimTime) {
        for side in [Side::Wired, Side::Wireless] {
            let conn = match side {
                Side::Wired => &mut self.wired,
                Side::Wireless => &mut self.wireless,
            };
            if conn.poll_timeout().is_some_and(|t| t <= now) {
                let mut tcp_out = TcpOutbox::default();
                conn.on_timeout(now, &mut tcp_out);
                self.apply(cx, now, side, &tcp_out);
            }
        }
        self.relay(cx, now);
    }

    /// The fixed host's origin time of the first byte of `seg` (a segment of the wireless
    /// half).
    fn origin_of(&mut self, seg: &TcpSegment) -> Option<SimTime> {
        if seg.payload_len == 0 {
            return None;
        }
        let offset = u64::from(
            seg.header
                .seq
                .0
                .wrapping_sub(self.wireless_isn.wrapping_add(1)),
        );
        let acked = self.relayed - self.wireless.unacknowledged_bytes().min(self.relayed);
        // Forget the pieces wholly acknowledged (keep the one containing `acked`).
        while self.origins.len() > 1 && self.origins[1].0 <= acked {
            self.origins.pop_front();
        }
        let i = self.origins.partition_point(|(o, _)| *o <= offset);
        i.checked_sub(1).map(|i| self.origins[i].1)
    }
}

fn packet(
    src: Ipv4Addr,
    dst: Ipv4Addr,
    segment: TcpSegment,
    origin_time: SimTime,
    flow: FlowId,
) -> Packet {
    let mut p = Packet {
        id: PacketId(0),
        origin_time,
        ip: Ipv4Header {
            src,
            dst,
            protocol: PROTO_TCP,
            ttl: DEFAULT_TTL,
            total_len: 0,
            ident: 0,
            ecn: crate::packet::Ecn::NotEct,
        },
        transport: Transport::Tcp(segment),
        flow,
        service: if segment.payload_len > 0 {
            Service::Reliable
        } else {
            Service::Unreliable
        },
    };
    p.fix_length();
    p
}
