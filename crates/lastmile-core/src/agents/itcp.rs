//! I-TCP (Bakre & Badrinath 1995; notes §4.2), as the WTCP paper simulated it (§4): the base
//! station **splits the connection and breaks TCP's end-to-end semantics** — the fixed
//! host's data is acknowledged as soon as the base station has buffered it, whether or not
//! the mobile ever gets it.
//!
//! * The fixed host's SYN to the mobile is intercepted: a `TcpConnection` at the base
//!   station, listening with the mobile's address and port, accepts it transparently, and
//!   a second one, with the fixed host's address and port, opens a connection to the
//!   mobile. Both use `tcp` (default Tahoe with a 10 ms clock, WTCP §4).
//! * Bytes delivered in order by the first are written to the second. The relay buffer is
//!   what the second has not had acknowledged by the mobile; the first advertises what is
//!   free of `buffer` as its window (zero when full, reopened — with a window update —
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
//! Left out: handoff (state migration), the mobile as sender.

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, VecDeque};

use super::common::{AgentTrace, Occupancy};
use super::config::ItcpSpec;
use super::{AgentInput, AgentOutbox, ConnKey, Side, Verdict};
use crate::engine::{RngStream, SimTime};
use crate::ids::FlowId;
use crate::metrics::AgentSummary;
use crate::packet::{
    Control, Ipv4Addr, Ipv4Header, Packet, PacketId, Service, TcpSegment, Transport, DEFAULT_TTL,
    PROTO_TCP,
};
use crate::tcp::{TcpConfig, TcpConnection, TcpOutbox, TcpState, TcpTraceEvent};

/// One split connection.
#[derive(Clone, Debug)]
struct Split {
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

/// The I-TCP agent.
#[derive(Clone, Debug)]
pub struct ItcpAgent {
    spec: ItcpSpec,
    isn: RngStream,
    splits: BTreeMap<ConnKey, Split>,
    occupancy: Occupancy,
    zero_windows: u64,
    rtt_samples: u64,
}

impl ItcpAgent {
    pub fn new(spec: ItcpSpec, isn: RngStream) -> Self {
        ItcpAgent {
            spec,
            isn,
            splits: BTreeMap::new(),
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

    /// The liveness invariant (the world checks it after every input in debug builds):
    /// each half with bytes its peer has not acknowledged has a timer running
    /// (retransmission or persist), so relayed data is never left without a way forward.
    pub fn check(&self) -> Result<(), String> {
        for (key, s) in &self.splits {
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

    pub fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        match input {
            AgentInput::Packet { side, packet } => self.on_packet(now, side, packet, out),
            AgentInput::Timer => self.on_timer(now, out),
            AgentInput::Link { .. } | AgentInput::Local { .. } => {}
        }
        let bytes = self
            .splits
            .values()
            .map(|s| s.wireless.unacknowledged_bytes())
            .sum();
        self.occupancy.set(now, bytes);
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.splits
            .values()
            .flat_map(|s| [s.wired.poll_timeout(), s.wireless.poll_timeout()])
            .flatten()
            .min()
    }

    pub fn summary(&self, end: SimTime) -> AgentSummary {
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
            persist_retransmissions: None,
            rtt_samples: self.rtt_samples,
            occupancy_max_bytes: self.occupancy.max(),
            occupancy_mean_bytes: self.occupancy.mean(end),
            residence_mean_s: None,
            residence_max_s: None,
            zero_window_advertisements: Some(self.zero_windows),
            lle: None,
        }
    }

    fn on_packet(&mut self, now: SimTime, side: Side, packet: &mut Packet, out: &mut AgentOutbox) {
        let Some(key) = ConnKey::of(side, packet) else {
            return;
        };
        let seg = *packet.tcp().expect("keyed packets are TCP");
        if !self.splits.contains_key(&key) {
            let is_open = side == Side::Wired
                && seg.header.control == Control::Syn
                && seg.header.ack.is_none();
            if !is_open {
                return; // Not a connection we split: forwarded.
            }
            self.open(now, key, packet.flow, out);
        }
        out.verdict = Verdict::Consume;
        let mut tcp_out = TcpOutbox::default();
        let split = self.splits.get_mut(&key).expect("ensured");
        match side {
            Side::Wired => {
                split
                    .wired
                    .on_segment(now, &seg, packet.origin_time, &mut tcp_out);
            }
            Side::Wireless => {
                split
                    .wireless
                    .on_segment(now, &seg, packet.origin_time, &mut tcp_out);
            }
        }
        self.apply(now, key, side, &tcp_out, out);
        self.relay(now, key, out);
    }

    /// The fixed host's SYN: set up both halves and open the one towards the mobile.
    fn open(&mut self, now: SimTime, key: ConnKey, flow: FlowId, out: &mut AgentOutbox) {
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
        self.splits.insert(
            key,
            Split {
                flow,
                wired,
                wireless,
                wireless_isn,
                relayed: 0,
                origins: VecDeque::new(),
                closing: false,
            },
        );
        let mut tcp_out = TcpOutbox::default();
        let split = self.splits.get_mut(&key).expect("just inserted");
        split.wireless.connect(now, &mut tcp_out);
        self.apply(now, key, Side::Wireless, &tcp_out, out);
    }

    /// Closes the mobile half after the fixed host's FIN, and updates the window the fixed
    /// host sees from the relay buffer.
    fn relay(&mut self, now: SimTime, key: ConnKey, out: &mut AgentOutbox) {
        let split = self.splits.get_mut(&key).expect("caller checked");
        let mut to_mobile = TcpOutbox::default();
        if split.wired.peer_closed() && !split.closing {
            split.closing = true;
            split.wireless.app_close(now, &mut to_mobile);
        }
        let mut to_fh = TcpOutbox::default();
        let backlog = split.wireless.unacknowledged_bytes();
        split.wired.set_receive_backlog(now, backlog, &mut to_fh);
        self.apply(now, key, Side::Wireless, &to_mobile, out);
        self.apply(now, key, Side::Wired, &to_fh, out);
    }

    /// Turns one half's outbox into packets; `side` names the half (`Wired`: towards the
    /// fixed host). Deliveries of the wired half are written to the wireless half.
    fn apply(
        &mut self,
        now: SimTime,
        key: ConnKey,
        side: Side,
        tcp_out: &TcpOutbox,
        out: &mut AgentOutbox,
    ) {
        let split = self.splits.get_mut(&key).expect("caller checked");
        let (from, to) = match side {
            Side::Wired => (key.mh, key.fh),
            Side::Wireless => (key.fh, key.mh),
        };
        for s in &tcp_out.segments {
            let origin = match side {
                Side::Wired => s.origin_time,
                Side::Wireless => origin_of(split, &s.segment).unwrap_or(s.origin_time),
            };
            if side == Side::Wired && s.segment.header.window == 0 {
                self.zero_windows += 1;
            }
            out.packets
                .push(packet(from.0, to.0, s.segment, origin, split.flow));
        }
        for ev in &tcp_out.trace {
            if let (Side::Wireless, TcpTraceEvent::Rtt { srtt, rto, .. }) = (side, ev) {
                self.rtt_samples += 1;
                out.trace.push(AgentTrace::Rtt {
                    flow: split.flow,
                    rtt: *srtt,
                    timeout: *rto,
                });
            }
        }
        if side == Side::Wired && !tcp_out.delivered.is_empty() {
            let mut more = TcpOutbox::default();
            for d in &tcp_out.delivered {
                split.origins.push_back((split.relayed, d.origin_time));
                split.relayed += u64::from(d.len);
                split.wireless.app_write(now, u64::from(d.len), &mut more);
            }
            self.apply(now, key, Side::Wireless, &more, out);
        }
    }

    fn on_timer(&mut self, now: SimTime, out: &mut AgentOutbox) {
        let keys: Vec<ConnKey> = self.splits.keys().copied().collect();
        for key in keys {
            for side in [Side::Wired, Side::Wireless] {
                let split = self.splits.get_mut(&key).expect("from the map");
                let conn = match side {
                    Side::Wired => &mut split.wired,
                    Side::Wireless => &mut split.wireless,
                };
                if conn.poll_timeout().is_some_and(|t| t <= now) {
                    let mut tcp_out = TcpOutbox::default();
                    conn.on_timeout(now, &mut tcp_out);
                    self.apply(now, key, side, &tcp_out, out);
                }
            }
            self.relay(now, key, out);
        }
        self.splits
            .retain(|_, s| !(s.wired.state() == TcpState::Closed && s.wireless.is_finished()));
    }
}

/// The fixed host's origin time of the first byte of `seg` (a segment of the wireless half).
fn origin_of(split: &mut Split, seg: &TcpSegment) -> Option<SimTime> {
    if seg.payload_len == 0 {
        return None;
    }
    let offset = u64::from(
        seg.header
            .seq
            .0
            .wrapping_sub(split.wireless_isn.wrapping_add(1)),
    );
    let acked = split.relayed - split.wireless.unacknowledged_bytes().min(split.relayed);
    // Forget the pieces wholly acknowledged (keep the one containing `acked`).
    while split.origins.len() > 1 && split.origins[1].0 <= acked {
        split.origins.pop_front();
    }
    let i = split.origins.partition_point(|(o, _)| *o <= offset);
    i.checked_sub(1).map(|i| split.origins[i].1)
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
