//! External ports: endpoint nodes whose traffic comes from, and goes to, real hosts
//! (`lastmile emulate`). The simulator stays free of I/O: a driver outside it (the
//! `lastmile-emu` crate: TUN devices, the wall clock) hands it datagrams and steps it.
//!
//! - **Ports.** Every node that is the source or destination of a scenario flow becomes a
//!   port. The flows' own simulated endpoints and applications never start; the flows
//!   still name the traffic (a packet between two ports counts for the flow between their
//!   nodes, for the per-flow accounting of links and agents).
//! - **In** (`Emulation::inject`): a datagram a real host sent is read (`packet::wire`),
//!   given an id, the time it entered as its origin time, its flow and its link-layer
//!   service (TCP data reliable, the rest not), its TCP window scaled by what the
//!   handshake seen at that port announced (`WindowShifts`); it is then shown to the
//!   node's local agent (LLE-TCP's client suppresses the mobile's ACKs) and routed, as
//!   if the node's own TCP had sent it. Its payload goes to the `PayloadStore`. Refused,
//!   and counted per port: datagrams that are not IPv4 (IPv6), neither TCP nor UDP (ICMP),
//!   fragments, malformed, failing a checksum, or from an address other than the port's
//!   own.
//! - **Out**: a packet delivered to a port node leaves the simulation instead of reaching
//!   a simulated endpoint: it is written as a datagram (its headers as the simulation
//!   left them, TTL included, the window scaled back, the checksums recomputed) with its
//!   payload from the store, and queued as a `Departure` for the driver.
//! - **Stepping** (`Emulation::step`): one event at a time, only if it is due by a given
//!   time, so that a driver can keep the simulated clock behind the wall clock and inject
//!   between events.
//!
//! The run does not end by itself: `stop_time` and the flows' completion are the driver's
//! business (the real traffic's end). Determinism does not hold across runs: when real
//! packets enter depends on the real hosts.

mod payload;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::agents::LocalDir;
use crate::engine::SimTime;
use crate::ids::{FlowId, NodeId};
use crate::metrics::pcap::WindowShifts;
use crate::metrics::RunSummary;
use crate::packet::wire::{encode_ipv4_with_payload, parse_ipv4, WireError};
use crate::packet::{Ipv4Addr, Packet, PacketId, Service, Transport};
use crate::scenario::Scenario;
use crate::transport::TransportKind;

pub use payload::{PayloadStats, PayloadStore, DATAGRAM_TTL};

use super::world::{StopReason, World};
use super::{RunOptions, SimError};

/// A datagram leaving the simulation at a port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Departure {
    /// Index into `Emulation::ports`.
    pub port: usize,
    /// When it left (simulated time).
    pub time: SimTime,
    pub datagram: Vec<u8>,
}

/// What crossed a port, and what it refused or could not carry whole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PortCounters {
    /// Datagrams taken in from the real host, and their bytes.
    pub packets_in: u64,
    pub bytes_in: u64,
    /// Datagrams handed to the real host, and their bytes.
    pub packets_out: u64,
    pub bytes_out: u64,
    /// Refused: IPv6 and other IP versions.
    pub dropped_not_ipv4: u64,
    /// Refused: neither TCP nor UDP (ICMP, ...).
    pub dropped_protocol: u64,
    /// Refused: fragments.
    pub dropped_fragment: u64,
    /// Refused: shorter than their headers, or with malformed TCP options.
    pub dropped_malformed: u64,
    /// Refused: a checksum that does not verify.
    pub dropped_checksum: u64,
    /// Refused: a source address other than the port's.
    pub dropped_foreign_source: u64,
    /// Carried without what the model cannot hold (`packet::wire::Dropped`): datagrams
    /// that lost TCP flags (URG, AE, PSH beside SYN/FIN/RST), TCP options of other
    /// kinds, or IP options.
    pub lost_tcp_flags: u64,
    pub lost_tcp_options: u64,
    pub lost_ip_options: u64,
}

impl PortCounters {
    fn refuse(&mut self, e: WireError) {
        match e {
            WireError::Version(_) => self.dropped_not_ipv4 += 1,
            WireError::Protocol(_) => self.dropped_protocol += 1,
            WireError::Fragment => self.dropped_fragment += 1,
            WireError::Truncated(_) | WireError::Options => self.dropped_malformed += 1,
            WireError::HeaderChecksum | WireError::TransportChecksum => self.dropped_checksum += 1,
        }
    }
}

/// One port: an endpoint node of the scenario standing for a real host.
#[derive(Debug)]
pub struct Port {
    pub name: String,
    pub node: NodeId,
    pub addr: Ipv4Addr,
    /// The window-scale shifts of the connections through this port, learnt from the SYNs
    /// that enter and leave here (a split connection negotiates each half apart).
    shifts: WindowShifts,
    pub counters: PortCounters,
}

/// Everything a run with ports keeps beside the world (`World::external`).
#[derive(Debug)]
pub(super) struct External {
    /// The port of each node, by node index.
    port_of: Vec<Option<u32>>,
    ports: Vec<Port>,
    payloads: Arc<Mutex<PayloadStore>>,
    departures: Vec<Departure>,
    /// (one end, other end, flow) of each flow, to name a packet's flow.
    flows: Vec<(NodeId, NodeId, FlowId)>,
    scratch: Vec<u8>,
}

impl External {
    #[inline]
    pub(super) fn port_at(&self, node: NodeId) -> Option<usize> {
        self.port_of
            .get(node.index())
            .copied()
            .flatten()
            .map(|p| p as usize)
    }

    /// The flow between `a` and `b` in either direction, else the first.
    fn flow_between(&self, a: NodeId, b: Option<NodeId>) -> FlowId {
        self.flows
            .iter()
            .find(|&&(x, y, _)| Some(y) == b && x == a || Some(x) == b && y == a)
            .map_or(FlowId(0), |&(_, _, f)| f)
    }

    /// `packet` is delivered to port `port`'s node at `now`: it leaves.
    pub(super) fn depart(&mut self, now: SimTime, port: usize, packet: &Packet) {
        let p = &mut self.ports[port];
        let shift = p.shifts.shift_for(packet);
        self.payloads
            .lock()
            .expect("payload store")
            .on_leave(packet, &mut self.scratch);
        let datagram = encode_ipv4_with_payload(packet, shift, &self.scratch);
        p.counters.packets_out += 1;
        p.counters.bytes_out += datagram.len() as u64;
        self.departures.push(Departure {
            port,
            time: now,
            datagram,
        });
    }
}

/// What the ports saw, for the run's summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExternalReport {
    pub ports: Vec<PortReport>,
    pub payload: PayloadStats,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PortReport {
    pub node: String,
    pub address: String,
    #[serde(flatten)]
    pub counters: PortCounters,
}

impl World {
    /// A datagram from port `port`'s real host enters at `now` (module notes).
    fn inject_external(
        &mut self,
        now: SimTime,
        port: usize,
        datagram: &[u8],
    ) -> Result<(), SimError> {
        let next_id = PacketId(self.next_packet_id);
        let Some(node_of) = self.external.as_ref().map(|e| e.ports[port].node) else {
            return Err(SimError::Invariant("no external ports".into()));
        };
        let dst_node = self.node_index_of(datagram);
        let ext = self.external.as_deref_mut().expect("checked");
        let flow = ext.flow_between(node_of, dst_node);
        let p = &mut ext.ports[port];
        let parsed = match parse_ipv4(datagram) {
            Ok(parsed) => parsed,
            Err(e) => {
                p.counters.refuse(e);
                return Ok(());
            }
        };
        if parsed.packet.ip.src != p.addr {
            p.counters.dropped_foreign_source += 1;
            return Ok(());
        }
        p.counters.packets_in += 1;
        p.counters.bytes_in += datagram.len() as u64;
        p.counters.lost_tcp_flags += u64::from(parsed.dropped.tcp_flags);
        p.counters.lost_tcp_options += u64::from(parsed.dropped.tcp_options);
        p.counters.lost_ip_options += u64::from(parsed.dropped.ip_options);
        let mut packet = parsed.packet;
        packet.id = next_id;
        packet.origin_time = now;
        packet.flow = flow;
        packet.service = match &packet.transport {
            Transport::Tcp(s) if s.payload_len > 0 => Service::Reliable,
            _ => Service::Unreliable,
        };
        let shift = p.shifts.shift_for(&packet);
        if let Some(s) = packet.tcp_mut() {
            s.header.window <<= shift;
        }
        ext.payloads
            .lock()
            .expect("payload store")
            .on_enter(now, &packet, parsed.payload);
        self.next_packet_id += 1;
        if let Some(agent) = self.agents.local_at(node_of) {
            if !self.on_agent_local(now, agent, LocalDir::Sent, &mut packet)? {
                return Ok(());
            }
        }
        let slot = self.packets.insert(packet);
        self.route_from(now, node_of, slot)
    }

    /// The node a datagram is addressed to, if it is one of ours.
    fn node_index_of(&self, datagram: &[u8]) -> Option<NodeId> {
        let dst = datagram.get(16..20)?;
        let addr = u32::from_be_bytes([dst[0], dst[1], dst[2], dst[3]]);
        let index = addr.checked_sub(Ipv4Addr::for_node(0).0)? as usize;
        (index < self.nodes.len()).then_some(NodeId(index as u32))
    }
}

/// A scenario run against real hosts: built like `sim::run` builds it, with every flow
/// endpoint a port, and stepped by a driver.
pub struct Emulation {
    world: World,
    name: String,
    seed: u64,
}

impl Emulation {
    /// Builds the world of `scenario` with ports at its flows' endpoints, and opens the
    /// captures `options` asks for. Refuses flows that are not TCP (real hosts speak TCP;
    /// WTP and WTCP-Sinha are simulated protocols).
    pub fn new(scenario: &Scenario, options: &RunOptions) -> Result<Self, SimError> {
        super::check_options(options)?;
        let seed = options.seed.unwrap_or(scenario.seed);
        let plan = crate::scenario::plan(scenario)?;
        let mut world = super::build::build(&plan, options, seed)?;
        super::check_capture_names(&world, &options.pcap)?;
        let expanded = &plan.flows;
        let mut port_of = vec![None; world.nodes.len()];
        let mut ports = Vec::new();
        let mut flows = Vec::new();
        for (i, f) in expanded.flows.iter().enumerate() {
            if f.spec.transport != TransportKind::Tcp {
                return Err(SimError::Invalid(format!(
                    "flow {} ({}): transport \"{}\" cannot be emulated: real hosts speak TCP",
                    i,
                    f.name,
                    f.spec.transport.name()
                )));
            }
            for n in [f.src, f.dst] {
                if port_of[n].is_none() {
                    port_of[n] = Some(ports.len() as u32);
                    let node = &world.nodes[n];
                    ports.push(Port {
                        name: node.name.clone(),
                        node: NodeId(n as u32),
                        addr: node.addr,
                        shifts: WindowShifts::default(),
                        counters: PortCounters::default(),
                    });
                }
            }
            flows.push((NodeId(f.src as u32), NodeId(f.dst as u32), FlowId(i as u32)));
        }
        // The flows' simulated applications never start.
        for f in &world.flows {
            world.timers.retire(f.app_timer);
        }
        let payloads = Arc::new(Mutex::new(PayloadStore::default()));
        if let (false, Some(dir)) = (options.pcap.is_empty(), options.out_dir.as_deref()) {
            let captures = super::capture::Captures::open(&world, &options.pcap, dir)?;
            world.captures = Some(captures.with_payloads(Arc::clone(&payloads)));
        }
        world.external = Some(Box::new(External {
            port_of,
            ports,
            payloads,
            departures: Vec::new(),
            flows,
            scratch: Vec::new(),
        }));
        Ok(Emulation {
            world,
            name: scenario.name.clone(),
            seed,
        })
    }

    fn external(&self) -> &External {
        self.world
            .external
            .as_deref()
            .expect("an emulation has ports")
    }

    /// The ports, in the order of the flows' endpoints.
    pub fn ports(&self) -> &[Port] {
        &self.external().ports
    }

    /// When the next event is due, if any is pending.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.world.queue.peek_time()
    }

    /// The simulated time of the last event processed.
    pub fn now(&self) -> SimTime {
        self.world.queue.now()
    }

    /// Processes the next event if it is due at or before `until`; returns its time.
    pub fn step(&mut self, until: SimTime) -> Result<Option<SimTime>, SimError> {
        match self.world.queue.peek_time() {
            Some(t) if t <= until => {
                let (now, event) = self.world.queue.pop().expect("peeked");
                self.world.dispatch(now, event)?;
                Ok(Some(now))
            }
            _ => Ok(None),
        }
    }

    /// A datagram from port `port`'s real host enters at `now` (no earlier than the last
    /// event processed; an earlier time is taken as that event's).
    pub fn inject(&mut self, now: SimTime, port: usize, datagram: &[u8]) -> Result<(), SimError> {
        if port >= self.ports().len() {
            return Err(SimError::Option(format!(
                "port {port}: the emulation has {} ports",
                self.ports().len()
            )));
        }
        let now = now.max(self.world.queue.now());
        self.world.inject_external(now, port, datagram)
    }

    /// Moves the datagrams that left since the last call into `into` (appended, in the
    /// order they left).
    pub fn take_departures(&mut self, into: &mut Vec<Departure>) {
        let ext = self.world.external.as_deref_mut().expect("ports");
        into.append(&mut ext.departures);
    }

    /// What the ports saw so far.
    pub fn report(&self) -> ExternalReport {
        let ext = self.external();
        ExternalReport {
            ports: ext
                .ports
                .iter()
                .map(|p| PortReport {
                    node: p.name.clone(),
                    address: p.addr.to_string(),
                    counters: p.counters,
                })
                .collect(),
            payload: ext.payloads.lock().expect("payload store").stats,
        }
    }

    /// Bytes of real payload held for packets in flight.
    pub fn payload_bytes_held(&self) -> usize {
        self.external()
            .payloads
            .lock()
            .expect("payload store")
            .bytes_held()
    }

    /// Ends the run at `end` for `reason`: closes the captures and returns the run's
    /// summary (its flows' simulated endpoints never ran: their rows are empty) and the
    /// ports' report. `wall_s` is the run's wall-clock time.
    pub fn finish(
        mut self,
        end: SimTime,
        reason: StopReason,
        wall_s: f64,
    ) -> Result<(RunSummary, ExternalReport), SimError> {
        if let Some(captures) = self.world.captures.take() {
            captures.finish()?;
        }
        let report = self.report();
        let summary =
            super::report::summarize(&self.world, &self.name, self.seed, end, reason, wall_s);
        Ok((summary, report))
    }
}
