//! A WAP gateway (survey §2.3, Figures 1-2: "all connections between a mobile host and a
//! fixed one have to go through a proxy, the WAP gateway"), placed on a base station: it
//! splits the path, speaking WTP class 2 transactions over UDP with the mobile
//! (`transport::wtp`) and TCP with the origin server (the flow's source).
//!
//! * The origin server's SYN towards the mobile is intercepted (as I-TCP does,
//!   `agents::itcp`): a TCP half listening in the mobile's name accepts it and stays open
//!   for the flow, a persistent connection (`agents::split`).
//! * Each Invoke from the mobile is indicated by the gateway's WTP responder; the gateway
//!   writes the request's bytes to the origin server at once (the survey: "translate it
//!   into an HTTP request") and waits for the response. Responses come back in order on the
//!   TCP connection; when the bytes of the object the request asked for are all in, the
//!   gateway hands them to WTP as the Result (TR-Result.req): store and forward, as the
//!   gateway must have the whole response to encode it ("encoding the responses of the
//!   origin server into a compact binary format"). WTP sends it in segments and groups,
//!   with its own acknowledgements and retransmissions.
//! * The gateway consumes every packet of the connections it holds; its packets go out in
//!   the names of the mobile (towards the server) and of the server (towards the mobile).
//!
//! The content encoding itself is not modelled: objects keep their size through the
//! gateway (the request and object sizes of the application are what crosses each side).
//! TCP flows are not split: the gateway holds only connections whose server opened them
//! towards a mobile across it, and `transport::check` refuses a TCP flow through it.
//!
//! Metrics: WTP's retransmissions of result segments are the local retransmissions, the
//! expiries of its timer R the timer expiries; the occupancy is the response bytes the
//! gateway holds (received from the server and not yet acknowledged by the mobile).
//!
//! Left out: WSP sessions (connectionless WSP over WTP), caching, push, WTLS, handoff.

mod spec;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, VecDeque};

use super::common::{ConnState, Conns, Occupancy};
use super::{Agent, AgentInput, AgentOutbox, ConnKey, Side, Verdict};
use crate::engine::{RngStream, SimTime};
use crate::ids::FlowId;
use crate::metrics::{AgentOwnMetrics, AgentSummary};
use crate::packet::{Control, Packet, Transport, WtpPdu};
use crate::tcp::Delivery;
use crate::transport::build_packet;

use super::split::WiredHalf;
use crate::transport::wtp::{ResponderEvent, WtpResponder, WtpResponderStats};
use crate::transport::TransportOutbox;

pub use spec::{WapSpec, WtpSpec};

/// A request forwarded to the origin server, waiting for its response.
#[derive(Clone, Copy, Debug)]
struct Pending {
    tid: u16,
    reply_bytes: u64,
    /// The transaction was aborted: its response is read and dropped.
    aborted: bool,
}

/// One mobile's connection through the gateway.
#[derive(Clone, Debug)]
struct Gateway {
    key: ConnKey,
    flow: FlowId,
    wired: WiredHalf,
    responder: WtpResponder,
    pending: VecDeque<Pending>,
    /// Response bytes received and not yet handed to WTP.
    response_bytes: u64,
    /// The origin time of the oldest of them.
    response_origin: Option<SimTime>,
}

impl ConnState for Gateway {
    fn deadline(&self) -> Option<SimTime> {
        [
            self.wired.conn().poll_timeout(),
            self.responder.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }
    fn held_bytes(&self) -> u64 {
        self.response_bytes + self.responder.held_bytes()
    }
}

/// The WAP gateway agent.
#[derive(Clone, Debug)]
pub struct WapAgent {
    spec: WapSpec,
    isn: RngStream,
    gateways: Conns<ConnKey, Gateway>,
    finished: BTreeSet<ConnKey>,
    occupancy: Occupancy,
    /// The counters of gateways already forgotten.
    past: WtpResponderStats,
}

/// The key of a WTP PDU from the mobile (wireless side).
fn wtp_key(packet: &Packet) -> Option<(ConnKey, WtpPdu)> {
    let Transport::Wtp(pdu) = packet.transport else {
        return None;
    };
    let key = ConnKey {
        fh: (packet.ip.dst, pdu.dst_port),
        mh: (packet.ip.src, pdu.src_port),
    };
    Some((key, pdu))
}

impl WapAgent {
    pub fn new(spec: WapSpec, isn: RngStream) -> Self {
        WapAgent {
            spec,
            isn,
            gateways: Conns::default(),
            finished: BTreeSet::new(),
            occupancy: Occupancy::default(),
            past: WtpResponderStats::default(),
        }
    }

    /// WTP's counters over every connection.
    pub fn wtp_stats(&self) -> WtpResponderStats {
        let mut s = self.past.clone();
        for g in self.gateways.values() {
            add(&mut s, g.responder.stats());
        }
        s
    }

    /// Requests forwarded to the server whose response is not yet complete.
    pub fn pending_requests(&self, key: &ConnKey) -> Option<usize> {
        self.gateways.get(key).map(|g| g.pending.len())
    }

    fn open(&mut self, key: ConnKey, flow: FlowId) {
        let isn = self.isn.next_u64() as u32;
        let wired = WiredHalf::listening(key, flow, &self.spec.tcp, isn, self.spec.buffer.bytes());
        let responder = WtpResponder::new(self.spec.wtp.config(), key.fh.1, key.mh.1);
        self.gateways.insert(
            key,
            Gateway {
                key,
                flow,
                wired,
                responder,
                pending: VecDeque::new(),
                response_bytes: 0,
                response_origin: None,
            },
        );
    }

    fn on_packet(&mut self, now: SimTime, side: Side, packet: &Packet, out: &mut AgentOutbox) {
        match side {
            Side::Wired => {
                let Some((key, seg)) = ConnKey::of(side, packet) else {
                    return;
                };
                if !self.gateways.contains(&key) {
                    if seg.header.control != Control::Syn || seg.header.ack.is_some() {
                        return; // Not a connection we hold: forwarded.
                    }
                    self.open(key, packet.flow);
                }
                out.verdict = Verdict::Consume;
                let origin = packet.origin_time;
                self.with(&key, out, |g, out| {
                    let mut delivered = Vec::new();
                    g.wired
                        .on_segment(now, &seg, origin, &mut out.packets, &mut delivered);
                    g.on_response(now, &delivered, out);
                });
            }
            Side::Wireless => {
                let Some((key, pdu)) = wtp_key(packet) else {
                    return;
                };
                if !self.gateways.contains(&key) {
                    self.open(key, packet.flow);
                }
                out.verdict = Verdict::Consume;
                self.with(&key, out, |g, out| g.on_wtp(now, &pdu, out));
            }
        }
    }

    /// Runs `f` on gateway `key` and notes it for removal once it is done.
    fn with(
        &mut self,
        key: &ConnKey,
        out: &mut AgentOutbox,
        f: impl FnOnce(&mut Gateway, &mut AgentOutbox),
    ) {
        let finished = &mut self.finished;
        self.gateways.update(key, |g| {
            f(g, out);
            if g.wired.conn().is_finished() && g.responder.poll_timeout().is_none() {
                finished.insert(*key);
            }
        });
    }

    fn on_timer(&mut self, now: SimTime, out: &mut AgentOutbox) {
        for key in self.gateways.due(now) {
            self.with(&key, out, |g, out| g.on_timer(now, out));
        }
        for key in std::mem::take(&mut self.finished) {
            if let Some(g) = self.gateways.get(&key) {
                let stats = g.responder.stats().clone();
                add(&mut self.past, &stats);
            }
            self.gateways.remove(&key);
        }
    }
}

fn add(total: &mut WtpResponderStats, s: &WtpResponderStats) {
    total.invokes += s.invokes;
    total.acks_sent += s.acks_sent;
    total.segments_sent += s.segments_sent;
    total.retransmissions += s.retransmissions;
    total.timer_expiries += s.timer_expiries;
    total.confirmed += s.confirmed;
    total.aborts += s.aborts;
}

impl Gateway {
    /// A WTP PDU from the mobile.
    fn on_wtp(&mut self, now: SimTime, pdu: &WtpPdu, out: &mut AgentOutbox) {
        let mut wtp_out = TransportOutbox::default();
        let mut events = Vec::new();
        self.responder.on_pdu(now, pdu, &mut wtp_out, &mut events);
        self.on_events(now, &events, out);
        self.emit(&wtp_out, out);
    }

    fn on_events(&mut self, now: SimTime, events: &[ResponderEvent], out: &mut AgentOutbox) {
        for e in events {
            match *e {
                ResponderEvent::Invoke {
                    tid,
                    request_bytes,
                    reply_bytes,
                } => {
                    self.pending.push_back(Pending {
                        tid,
                        reply_bytes: u64::from(reply_bytes),
                        aborted: false,
                    });
                    self.wired
                        .write(now, u64::from(request_bytes), &mut out.packets);
                }
                ResponderEvent::Aborted { tid } => {
                    if let Some(p) = self.pending.iter_mut().find(|p| p.tid == tid) {
                        p.aborted = true;
                    }
                }
                ResponderEvent::Confirmed { .. } => {}
            }
        }
    }

    /// Response bytes from the server: each complete response becomes a Result.
    fn on_response(&mut self, now: SimTime, delivered: &[Delivery], out: &mut AgentOutbox) {
        for d in delivered {
            if self.response_bytes == 0 {
                self.response_origin = Some(d.origin_time);
            }
            self.response_bytes += u64::from(d.len);
        }
        let mut wtp_out = TransportOutbox::default();
        let mut events = Vec::new();
        while let Some(&p) = self.pending.front() {
            if self.response_bytes < p.reply_bytes {
                break;
            }
            self.pending.pop_front();
            self.response_bytes -= p.reply_bytes;
            let origin = self.response_origin.unwrap_or(now);
            if !p.aborted {
                self.responder
                    .result(now, p.tid, p.reply_bytes, origin, &mut wtp_out, &mut events);
            }
            if self.response_bytes == 0 {
                self.response_origin = None;
            }
        }
        self.on_events(now, &events, out);
        self.emit(&wtp_out, out);
    }

    fn on_timer(&mut self, now: SimTime, out: &mut AgentOutbox) {
        let mut delivered = Vec::new();
        self.wired.on_timeout(now, &mut out.packets, &mut delivered);
        self.on_response(now, &delivered, out);
        if self.responder.poll_timeout().is_some_and(|t| t <= now) {
            let mut wtp_out = TransportOutbox::default();
            let mut events = Vec::new();
            self.responder.on_timeout(now, &mut wtp_out, &mut events);
            self.on_events(now, &events, out);
            self.emit(&wtp_out, out);
        }
    }

    /// WTP's PDUs, towards the mobile in the server's name.
    fn emit(&self, wtp_out: &TransportOutbox, out: &mut AgentOutbox) {
        for p in &wtp_out.packets {
            out.packets
                .push(build_packet(self.key.fh.0, self.key.mh.0, *p, self.flow));
        }
    }
}

impl Agent for WapAgent {
    fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        match input {
            AgentInput::Packet { side, packet } => self.on_packet(now, side, packet, out),
            AgentInput::Timer => self.on_timer(now, out),
            AgentInput::Link { .. }
            | AgentInput::Local { .. }
            | AgentInput::Mobility(_)
            | AgentInput::Handover(_) => {}
        }
        self.occupancy.set(now, self.gateways.held_bytes());
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.gateways.earliest()
    }

    /// A transaction in progress has a WTP timer; bytes sent to the server and not yet
    /// acknowledged have a TCP timer.
    fn check(&self) -> Result<(), String> {
        for (key, g) in self.gateways.iter() {
            if g.responder.open_transactions() > 0 && g.responder.poll_timeout().is_none() {
                return Err(format!("wap {key:?}: a WTP transaction without a timer"));
            }
            let conn = g.wired.conn();
            if conn.unacknowledged_bytes() > 0 && conn.poll_timeout().is_none() {
                return Err(format!(
                    "wap {key:?}: {} request bytes unacknowledged and no TCP timer",
                    conn.unacknowledged_bytes()
                ));
            }
        }
        Ok(())
    }

    fn summary(&self, end: SimTime) -> AgentSummary {
        let s = self.wtp_stats();
        AgentSummary {
            kind: "wap".into(),
            local_retransmissions: s.retransmissions,
            suppressed_dupacks: 0,
            timer_expiries: s.timer_expiries,
            rtt_samples: 0,
            occupancy_max_bytes: self.occupancy.max(),
            occupancy_mean_bytes: self.occupancy.mean(end),
            own: AgentOwnMetrics::None,
        }
    }
}
