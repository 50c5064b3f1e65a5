//! The world's side of applications (`apps`): it wakes a flow's application at its
//! `poll_timeout` (the first time at the flow's start) and when one of its datagrams leaves
//! its interface queue, and applies what it asks for — opening the connection, writes and
//! the close on the flow's source endpoint, datagrams routed from the source node, the end
//! of a flow without TCP, a request written at the flow's destination (a request/response
//! client) — then re-arms its timer. The sink side counts datagrams. Bytes delivered at
//! either end reach the applications that want them from `World::with_endpoint`.
//!
//! Consecutive writes and a close go to the endpoint in one call, so a bulk transfer hands
//! TCP everything and its FIN at once, as an application writing and closing would.

use crate::apps::{AppAction, AppInput};
use crate::engine::{Lane, SimTime};
use crate::ids::FlowId;
use crate::packet::{Ipv4Header, Packet, PacketId, Service, Transport, UdpDatagram, DEFAULT_TTL};

use super::build::{SINK_PORT, SOURCE_PORT_BASE};
use super::world::World;
use super::SimError;

/// IP protocol number of UDP (RFC 768).
const PROTO_UDP: u8 = 17;

impl World {
    /// Calls flow `flow`'s application, applies its actions, re-arms its timer.
    pub(super) fn app_call(
        &mut self,
        now: SimTime,
        flow: FlowId,
        input: AppInput,
    ) -> Result<(), SimError> {
        let mut out = std::mem::take(&mut self.app_outbox);
        out.actions.clear();
        let f = &mut self.flows[flow.index()];
        f.app.handle(now, input, &mut out);
        let result = self.apply_app_actions(now, flow, &out.actions);
        self.app_outbox = out;
        result?;
        let f = &self.flows[flow.index()];
        self.arm_in(Lane::Timers, now, f.app_timer, f.app.poll_timeout())
    }

    fn apply_app_actions(
        &mut self,
        now: SimTime,
        flow: FlowId,
        actions: &[AppAction],
    ) -> Result<(), SimError> {
        let source = self.flows[flow.index()].source;
        let mut rest = actions;
        while let Some((first, tail)) = rest.split_first() {
            match *first {
                AppAction::Connect => {
                    self.with_endpoint(now, source, |c, now, out| c.connect(now, out))?;
                    rest = tail;
                }
                AppAction::Write(_) | AppAction::Close => {
                    let n = rest
                        .iter()
                        .take_while(|a| matches!(a, AppAction::Write(_) | AppAction::Close))
                        .count();
                    let (batch, tail) = rest.split_at(n);
                    for a in batch {
                        if let AppAction::Write(bytes) = a {
                            self.flows[flow.index()].on_write(now, *bytes);
                        }
                    }
                    self.with_endpoint(now, source, |c, now, out| {
                        for a in batch {
                            match *a {
                                AppAction::Write(bytes) => c.app_write(now, bytes, out),
                                _ => c.app_close(now, out),
                            }
                        }
                    })?;
                    rest = tail;
                }
                AppAction::Datagram { payload_bytes } => {
                    self.send_datagram(now, flow, payload_bytes)?;
                    rest = tail;
                }
                AppAction::Request { bytes, reply_bytes } => {
                    let sink = self.flows[flow.index()].sink;
                    self.with_endpoint(now, sink, |c, now, out| {
                        c.request(now, bytes, reply_bytes, out)
                    })?;
                    rest = tail;
                }
                AppAction::Finish => {
                    self.finish_flow(flow);
                    rest = tail;
                }
            }
        }
        Ok(())
    }

    /// A flow without TCP ends: what was sent is its total.
    fn finish_flow(&mut self, flow: FlowId) {
        let f = &mut self.flows[flow.index()];
        if !f.done {
            f.done = true;
            f.total_bytes = f.written;
            self.flows_done += usize::from(f.ends_run);
        }
    }

    /// One datagram from the flow's source node to its destination's sink port.
    fn send_datagram(
        &mut self,
        now: SimTime,
        flow: FlowId,
        payload_bytes: u32,
    ) -> Result<(), SimError> {
        let f = &mut self.flows[flow.index()];
        f.on_data_sent(now);
        f.written += u64::from(payload_bytes);
        let source = &self.endpoints[f.source.index()];
        let (src, remote) = (source.node, source.remote);
        let mut packet = Packet {
            id: PacketId(self.next_packet_id),
            origin_time: now,
            ip: Ipv4Header {
                src: self.nodes[src.index()].addr,
                dst: remote,
                protocol: PROTO_UDP,
                ttl: DEFAULT_TTL,
                total_len: 0,
                ident: 0,
                ecn: crate::packet::Ecn::NotEct,
            },
            transport: Transport::Udp(UdpDatagram {
                src_port: SOURCE_PORT_BASE + flow.0 as u16,
                dst_port: SINK_PORT,
                payload_len: payload_bytes,
            }),
            flow,
            service: Service::Unreliable,
        };
        self.next_packet_id += 1;
        packet.fix_length();
        let slot = self.packets.insert(packet);
        self.route_from(now, src, slot)
    }

    /// A datagram left its station's interface queue: its application may send the next.
    pub(super) fn on_datagram_left(
        &mut self,
        now: SimTime,
        packet: &Packet,
    ) -> Result<(), SimError> {
        let wants = matches!(packet.transport, Transport::Udp(_))
            && self
                .flows
                .get(packet.flow.index())
                .is_some_and(|f| !f.app.uses_tcp());
        if wants {
            self.app_call(now, packet.flow, AppInput::DatagramLeft)?;
        }
        Ok(())
    }

    /// A datagram reached its destination: the sink counts it.
    pub(super) fn on_udp_datagram(&mut self, now: SimTime, packet: &Packet) {
        if let Some(f) = self.flows.get_mut(packet.flow.index()) {
            f.delivered += u64::from(packet.payload_len());
            f.last_delivery = Some(now);
        }
    }
}
