//! From a `Scenario` to a ready `World`: nodes with addresses 10.0.0.1.., links with their
//! channels and error models (each with its own named random stream), routes, and for each
//! flow a listening sink, a source and the application's start event.

use crate::engine::FxHashMap;

use crate::agents::{
    AgentTraceColumns, AnyAgent, ItcpAgent, LleAgent, LleRole, SnoopAgent, WtcpAgent,
};
use crate::engine::{RngStream, SimDuration, SimTime, TimerSlot};
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::net::{Channel, Queue, RoutingTable};
use crate::packet::Ipv4Addr;
use crate::scenario::{resolve_topology, AgentKind, AppSpec, FlowSpec, ResolvedTopology, Scenario};
use crate::tcp::{TcpConfig, TcpConnection};

use super::agent_hook::AgentHost;
use super::cell::Cell;
use super::flow::{AppState, Flow};
use super::observe::{DataAccounting, Traces};
use super::world::{Endpoint, Event, Link, Node, World};
use super::{RunOptions, SimError};

/// The port every sink listens on; sources use 49152 + flow index (IANA dynamic range).
pub const SINK_PORT: u16 = 5001;
const SOURCE_PORT_BASE: u16 = 49152;

/// The world of `scenario`, ready to run, and the topology it was built from.
pub fn build(
    scenario: &Scenario,
    options: &RunOptions,
    seed: u64,
) -> Result<(World, ResolvedTopology), SimError> {
    let topology = resolve_topology(scenario).map_err(|e| SimError::Invalid(e.to_string()))?;
    let mut world = World::new(
        SimTime::ZERO + scenario.stop_time.sim(),
        Traces::new(&options.traces),
    );
    for (i, name) in topology.nodes.iter().enumerate() {
        world.nodes.push(Node {
            name: name.clone(),
            addr: Ipv4Addr::for_node(i as u32),
            demux: FxHashMap::default(),
        });
    }
    let flow_count = scenario.flows.len();
    for l in &topology.links {
        let s = &l.spec;
        let channel =
            |from: usize, to: usize, errors: &crate::error_model::ErrorModelSpec, dir: &str| {
                let rng = RngStream::derive(seed, &format!("link/{}/{dir}/errors", l.name));
                let aqm_rng = RngStream::derive(seed, &format!("link/{}/{dir}/aqm", l.name));
                Channel::new(
                    NodeId(from as u32),
                    NodeId(to as u32),
                    s.rate.bps(),
                    s.delay.sim(),
                    s.overhead.bytes() as u32,
                    Queue::new(s.queue, s.aqm.as_ref(), s.rate.bps(), aqm_rng),
                    errors.build(s.rate.bps(), rng),
                )
            };
        world.links.push(Link {
            name: l.name.clone(),
            wireless: l.wireless,
            dirs: [
                channel(l.from, l.to, &s.errors, "fwd"),
                channel(l.to, l.from, &s.reverse_errors, "rev"),
            ],
            accounting: [
                DataAccounting::new(flow_count),
                DataAccounting::new(flow_count),
            ],
        });
    }
    let mut cell_members = Vec::with_capacity(topology.cells.len());
    for c in &topology.cells {
        let members: Vec<NodeId> = c.members.iter().map(|&i| NodeId(i as u32)).collect();
        world
            .cells
            .push(Cell::new(&c.name, &c.spec, &members, flow_count, seed)?);
        cell_members.push(members);
    }
    let pairs: Vec<(NodeId, NodeId)> = topology
        .links
        .iter()
        .map(|l| (NodeId(l.from as u32), NodeId(l.to as u32)))
        .collect();
    world.routes = RoutingTable::shortest_paths(topology.nodes.len(), &pairs, &cell_members);
    let node_index = |name: &str| {
        topology
            .node_index(name)
            .map(|i| NodeId(i as u32))
            .ok_or_else(|| SimError::Invalid(format!("no node named \"{name}\"")))
    };
    add_agent(&mut world, scenario, options, seed, &node_index)?;
    add_lle_clients(&mut world, scenario, &topology.cells, &node_index)?;
    for (i, f) in scenario.flows.iter().enumerate() {
        let src = node_index(&f.src)?;
        let dst = node_index(&f.dst)?;
        add_flow(
            &mut world,
            FlowId(i as u32),
            f,
            src,
            dst,
            seed,
            !options.traces.is_empty(),
        )?;
    }
    Ok((world, topology))
}

/// Places the scenario's base-station agent (if any) on its node.
fn add_agent(
    world: &mut World,
    scenario: &Scenario,
    options: &RunOptions,
    seed: u64,
    node_index: &dyn Fn(&str) -> Result<NodeId, SimError>,
) -> Result<(), SimError> {
    let bs = &scenario.base_station;
    let agent = match bs.agent {
        AgentKind::None => return Ok(()),
        AgentKind::Snoop => AnyAgent::Snoop(SnoopAgent::new(bs.snoop.clone().unwrap_or_default())),
        AgentKind::Wtcp => AnyAgent::Wtcp(WtcpAgent::new(bs.wtcp.clone().unwrap_or_default())),
        AgentKind::Itcp => AnyAgent::Itcp(Box::new(ItcpAgent::new(
            bs.itcp.clone().unwrap_or_default(),
            RngStream::derive(seed, "agent/itcp/isn"),
        ))),
        AgentKind::Lle => AnyAgent::Lle(LleAgent::new(
            LleRole::Agent,
            bs.lle.clone().unwrap_or_default(),
        )),
    };
    let node = node_index(bs.node.as_deref().unwrap_or("bs"))?;
    world.agents.trace = AgentTraceColumns::new(options.traces.iter().any(|t| t == "agent_rtt"));
    world.agents.hosts.push(AgentHost {
        node,
        agent,
        timer: TimerSlot::default(),
    });
    Ok(())
}

/// LLE-TCP's ARQ clients: one on the `dst` of every flow that ends at another member of
/// the ARQ agent's cell (LLE-TCP §3.1, Fig. 2).
fn add_lle_clients(
    world: &mut World,
    scenario: &Scenario,
    cells: &[crate::scenario::ResolvedCell],
    node_index: &dyn Fn(&str) -> Result<NodeId, SimError>,
) -> Result<(), SimError> {
    let bs = &scenario.base_station;
    if bs.agent != AgentKind::Lle {
        return Ok(());
    }
    let agent_node = node_index(bs.node.as_deref().unwrap_or("bs"))?;
    let Some(cell) = cells
        .iter()
        .find(|c| c.members.contains(&agent_node.index()))
    else {
        return Err(SimError::Invalid(
            "base_station.node: LLE-TCP needs a member of a wireless cell".into(),
        ));
    };
    for f in &scenario.flows {
        let dst = node_index(&f.dst)?;
        if dst == agent_node
            || !cell.members.contains(&dst.index())
            || world.agents.at(dst).is_some()
        {
            continue;
        }
        world.agents.hosts.push(AgentHost {
            node: dst,
            agent: AnyAgent::Lle(LleAgent::new(
                LleRole::Client,
                bs.lle.clone().unwrap_or_default(),
            )),
            timer: TimerSlot::default(),
        });
    }
    Ok(())
}

fn add_flow(
    world: &mut World,
    id: FlowId,
    f: &FlowSpec,
    src: NodeId,
    dst: NodeId,
    seed: u64,
    trace: bool,
) -> Result<(), SimError> {
    let i = id.index();
    let src_addr = world.nodes[src.index()].addr;
    let dst_addr = world.nodes[dst.index()].addr;
    let src_port = SOURCE_PORT_BASE
        .checked_add(u16::try_from(i).unwrap_or(u16::MAX))
        .ok_or_else(|| SimError::Invalid("too many flows for the port space".into()))?;
    let mut isn_rng = RngStream::derive(seed, &format!("flow/{i}/isn"));
    let source_isn = f.tcp.isn.unwrap_or_else(|| isn_rng.next_u64() as u32);
    let sink_isn = isn_rng.next_u64() as u32;

    let source = EndpointId(world.endpoints.len() as u32);
    let sink = EndpointId(source.0 + 1);
    let source_conn = TcpConnection::new(TcpConfig::from_spec(
        &f.tcp,
        (src_addr, src_port),
        (dst_addr, SINK_PORT),
        source_isn,
        trace,
    ));
    let mut sink_conn = TcpConnection::new(TcpConfig::from_spec(
        &f.tcp,
        (dst_addr, SINK_PORT),
        (src_addr, src_port),
        sink_isn,
        false,
    ));
    sink_conn.listen();
    for (conn, node, remote, is_source) in [
        (source_conn, src, dst_addr, true),
        (sink_conn, dst, src_addr, false),
    ] {
        world.endpoints.push(Endpoint {
            conn,
            node,
            remote,
            flow: id,
            is_source,
            timer: TimerSlot::default(),
        });
    }
    world.nodes[src.index()]
        .demux
        .insert((src_port, dst_addr, SINK_PORT), source);
    world.nodes[dst.index()]
        .demux
        .insert((SINK_PORT, src_addr, src_port), sink);

    let app = match &f.app {
        AppSpec::Bulk { .. } => AppState::Bulk,
        AppSpec::Poisson {
            rate, packet_size, ..
        } => AppState::Poisson {
            packet_size: packet_size.bytes().max(1),
            mean_gap: SimDuration::transmission(packet_size.bytes() * 8, rate.bps()),
            rng: Box::new(RngStream::derive(seed, &format!("flow/{i}/app"))),
        },
        AppSpec::UdpSaturate {
            packet_size,
            duration,
        } => AppState::UdpSaturate {
            packet_size: packet_size.bytes().min(65_507) as u32,
            duration: duration.sim(),
        },
    };
    world.flows.push(Flow {
        name: f
            .name
            .clone()
            .unwrap_or_else(|| format!("{}-{}-{i}", f.src, f.dst)),
        src: f.src.clone(),
        dst: f.dst.clone(),
        variant: f.tcp.recovery_kind().name(),
        app,
        source,
        sink,
        total_bytes: f.app.total_bytes(),
        written: 0,
        delivered: 0,
        first_data_sent: None,
        last_delivery: None,
        window_start: SimTime::ZERO
            + f.start
                .sim()
                .max(f.measure_from.map_or(SimDuration::ZERO, |m| m.sim())),
        delivered_before_window: 0,
        stall_since: None,
        longest_stall: SimDuration::ZERO,
        delay: Default::default(),
        done: false,
        udp_stop: None,
    });
    world.schedule(SimTime::ZERO + f.start.sim(), Event::FlowStart { flow: id })
}
