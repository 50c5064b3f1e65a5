//! From a scenario's `Plan` to a ready `World`: nodes with addresses 10.0.0.1.., links with
//! their channels and error models (each with its own named random stream), the plan's
//! routes, its agents on their nodes, and for each of its flows a listening sink, a source
//! and the application's start event, then its mobiles. Nothing is worked out or checked
//! again here: the plan did it.

use crate::engine::FxHashMap;

use crate::agents::AgentSpec;
use crate::agents::{AgentSetup, AgentTraceColumns, AnyAgent};
use crate::engine::{Lane, RngStream, SimDuration, SimTime};
use crate::ids::{AgentId, EndpointId, FlowId, NodeId};
use crate::net::{Channel, Queue};
use crate::packet::Ipv4Addr;
use crate::scenario::{FlowInstance, Plan};
use crate::tcp::{TcpConfig, TcpConnection};
use crate::transport::wtcp_sinha::{WtcpSinhaConfig, WtcpSinhaConnection};
use crate::transport::wtp::{WtpConfig, WtpInitiator};
use crate::transport::{AnyEndpoint, TransportKind};

use super::cell::Cell;
use super::flow::Flow;
use super::observe::{DataAccounting, Traces};
use super::world::{Endpoint, Link, Node, TimerOwner, World};
use super::{RunOptions, SimError};

/// The port every sink listens on; sources use 49152 + flow index (IANA dynamic range).
pub const SINK_PORT: u16 = 5001;
pub(super) const SOURCE_PORT_BASE: u16 = 49152;

/// The world of `plan`, ready to run. It fails only where a component refuses settings
/// the plan's checks let through (an internal error).
pub fn build(plan: &Plan<'_>, options: &RunOptions, seed: u64) -> Result<World, SimError> {
    let (scenario, topology) = (plan.scenario, &plan.topology);
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
    world.energy = super::energy::EnergySettings {
        profile: scenario.energy.profile.name().to_string(),
        powers: scenario.energy.powers(),
    };
    let flows = &plan.flows;
    let flow_count = flows.flows.len();
    // Only the first wireless-marked link's data-bound direction is reported (the
    // summary's `wireless`): the others keep no per-flow accounting, which would cost a
    // cache miss per flow and packet on every hop and memory per flow and link.
    let mut reported_done = false;
    for l in &topology.links {
        let reported = l.wireless && !reported_done;
        let s = &l.spec;
        let channel =
            |from: usize, to: usize, errors: &crate::error_model::ErrorModelSpec, dir: &str| {
                let rng = RngStream::derive(seed, &format!("link/{}/{dir}/errors", l.name));
                // Link FEC: coded airtime and block decoding; its decoding delay adds to
                // the propagation delay.
                let decode = s
                    .fec
                    .as_ref()
                    .map_or(SimDuration::ZERO, |f| f.decode_delay.sim());
                let aqm_rng = RngStream::derive(seed, &format!("link/{}/{dir}/aqm", l.name));
                Channel::new(
                    NodeId(from as u32),
                    NodeId(to as u32),
                    s.rate.bps(),
                    s.delay.sim() + decode,
                    s.overhead.bytes() as u32,
                    Queue::new(s.queue, s.aqm.as_ref(), s.rate.bps(), aqm_rng),
                    errors.build(s.rate.bps(), rng),
                )
                .with_code(s.fec_code())
            };
        world.links.push(Link {
            name: l.name.clone(),
            wireless: l.wireless,
            dirs: [
                channel(l.from, l.to, &s.errors, "fwd"),
                channel(l.to, l.from, &s.reverse_errors, "rev"),
            ],
            accounting: DataAccounting::new(if reported { flow_count } else { 0 }),
            accounted: reported,
            propagating: Default::default(),
            radios: l.wireless.then(super::energy::LinkRadios::new),
            up: true,
            quiet: Default::default(),
        });
        reported_done |= reported;
    }
    let mut cell_members = Vec::with_capacity(topology.cells.len());
    for c in &topology.cells {
        let members: Vec<NodeId> = c.members.iter().map(|&i| NodeId(i as u32)).collect();
        let id = crate::net::CellId(world.cells.len() as u32);
        let cell = Cell::new(
            id,
            &c.name,
            &c.spec,
            &members,
            flow_count,
            seed,
            &mut world.timers,
        )?;
        world.cells.push(cell);
        cell_members.push(members);
    }
    drop(cell_members);
    world.routes = plan.routes.clone();
    add_agents(&mut world, plan, options, seed);
    world.groups = flows.groups.clone();
    world.flows.reserve_exact(flow_count);
    world.endpoints.reserve_exact(2 * flow_count);
    for (i, (f, gateway)) in flows.flows.iter().zip(&plan.gateways).enumerate() {
        add_flow(
            &mut world,
            FlowId(i as u32),
            (f, gateway.as_ref()),
            seed,
            !options.traces.is_empty(),
        )?;
    }
    world.prefetch_endpoints = world.endpoints.len() * std::mem::size_of::<Endpoint>()
        >= super::world::ENDPOINT_PREFETCH_BYTES;
    // The run waits for every flow but background traffic; for every flow if all are.
    let all_background = world.flows.iter().all(|f| f.background);
    for f in &mut world.flows {
        f.ends_run = !f.background || all_background;
    }
    world.flows_to_finish = world.flows.iter().filter(|f| f.ends_run).count();
    let trace_handoffs = options.traces.iter().any(|t| t == "handoff");
    super::mobility::add_mobiles(&mut world, &plan.mobiles, seed, trace_handoffs)?;
    Ok(world)
}

/// Places every base station's agent on its node and, for an agent with a receiver client
/// (LLE-TCP), one on each receiving node the plan gave it.
fn add_agents(world: &mut World, plan: &Plan<'_>, options: &RunOptions, seed: u64) {
    world.agents.trace = AgentTraceColumns::new(options.traces.iter().any(|t| t == "agent_rtt"));
    let nodes = &plan.topology.nodes;
    for site in &plan.agents {
        let setup = AgentSetup {
            seed,
            index: site.index,
            node: &nodes[site.node],
            nodes,
        };
        if let Some(agent) = site.spec.build(&setup) {
            place_agent(world, NodeId(site.node as u32), agent);
        }
    }
    for site in &plan.agents {
        for &receiver in &site.clients {
            if let Some(client) = site.spec.receiver_client() {
                place_agent(world, NodeId(receiver as u32), client);
            }
        }
    }
}

/// Puts `agent` on `node`, with its timer.
fn place_agent(world: &mut World, node: NodeId, agent: AnyAgent) {
    let id = AgentId(world.agents.hosts.len() as u32);
    let timer = world.timers.add(TimerOwner::Agent(id));
    world.agents.place(node, agent, timer);
}

/// The endpoint at a flow's destination: TCP listening, a WTP initiator, or WTCP-Sinha
/// listening with the knobs of the proxy on the path.
fn sink_endpoint(
    f: &crate::scenario::FlowSpec,
    gateway: Option<&AgentSpec>,
    conn: TcpConnection,
    src_port: u16,
) -> AnyEndpoint {
    match f.transport {
        TransportKind::Tcp => {
            let mut conn = conn;
            conn.listen();
            AnyEndpoint::Tcp(conn)
        }
        TransportKind::Wap => AnyEndpoint::Wtp(Box::new(WtpInitiator::new(
            WtpConfig::default(),
            SINK_PORT,
            src_port,
        ))),
        TransportKind::WtcpSinha => {
            let cfg = match gateway {
                Some(AgentSpec::WtcpSinha(p)) => {
                    p.wtcp.config(f.tcp.mss.bytes(), f.tcp.rwnd.bytes())
                }
                _ => WtcpSinhaConfig::new(
                    f.tcp.mss.bytes().min(u64::from(u32::MAX)) as u32,
                    f.tcp.rwnd.bytes().min(u64::from(u32::MAX)) as u32,
                ),
            };
            let mut conn = WtcpSinhaConnection::new(cfg, SINK_PORT, src_port);
            conn.listen();
            AnyEndpoint::WtcpSinha(Box::new(conn))
        }
    }
}

/// Flow `id` (the `id`-th of the run): its source and listening sink, its application and
/// the application's first wake-up at the flow's start (`start_jitter` drawn from the
/// flow's own stream).
fn add_flow(
    world: &mut World,
    id: FlowId,
    (flow, gateway): (&FlowInstance, Option<&AgentSpec>),
    seed: u64,
    trace: bool,
) -> Result<(), SimError> {
    let (f, i) = (flow.spec, id.index());
    let (src, dst) = (NodeId(flow.src as u32), NodeId(flow.dst as u32));
    let src_addr = world.nodes[src.index()].addr;
    let dst_addr = world.nodes[dst.index()].addr;
    let src_port = u16::try_from(i)
        .ok()
        .and_then(|i| SOURCE_PORT_BASE.checked_add(i))
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
    let sink_conn = sink_endpoint(
        f,
        gateway,
        TcpConnection::new(TcpConfig::from_spec(
            &f.tcp,
            (dst_addr, SINK_PORT),
            (src_addr, src_port),
            sink_isn,
            false,
        )),
        src_port,
    );
    let source_key = (src_port, dst_addr, SINK_PORT);
    let sink_key = (SINK_PORT, src_addr, src_port);
    for (conn, node, remote, demux_key, is_source) in [
        (
            AnyEndpoint::Tcp(source_conn),
            src,
            dst_addr,
            source_key,
            true,
        ),
        (sink_conn, dst, src_addr, sink_key, false),
    ] {
        let endpoint = EndpointId(world.endpoints.len() as u32);
        world.endpoints.push(Endpoint {
            conn,
            node,
            remote,
            demux_key,
            flow: id,
            is_source,
            sent_data: false,
            timer: world.timers.add(TimerOwner::Endpoint(endpoint)),
        });
    }
    debug_assert_eq!(world.flow_ends.len(), i, "flows are added in order");
    world.flow_ends.push([(src, source), (dst, sink)]);
    for (node, key, endpoint) in [(src, source_key, source), (dst, sink_key, sink)] {
        let taken = world.nodes[node.index()].demux.insert(key, endpoint);
        // `World::deliver_in_place` trusts an endpoint whose key is a packet's.
        debug_assert!(taken.is_none(), "demultiplexing keys are unique on a node");
    }

    let jitter = f.start_jitter.sim();
    let jitter = if jitter.is_zero() {
        SimDuration::ZERO
    } else {
        let mut rng = RngStream::derive(seed, &format!("flow/{i}/start"));
        SimDuration::from_nanos(rng.below(jitter.as_nanos()))
    };
    let start = flow.start + jitter;
    let app = f.app.build(SimTime::ZERO + start, seed, i);
    let app_timer = world.timers.add(TimerOwner::App(id));
    let measure_from = f.measure_from.map_or(SimDuration::ZERO, |m| m.sim());
    world.flows.push(Flow {
        name: flow.name.clone(),
        group: flow.group as u32,
        background: f.background,
        ends_run: true,
        src: world.nodes[src.index()].name.clone(),
        dst: world.nodes[dst.index()].name.clone(),
        variant: match f.transport {
            TransportKind::Tcp => f.tcp.recovery_kind().name(),
            other => other.name(),
        },
        app,
        app_timer,
        source,
        sink,
        total_bytes: f.app.total_bytes(),
        rwnd_bytes: f.tcp.rwnd.bytes(),
        written: 0,
        delivered: 0,
        first_data_sent: None,
        last_delivery: None,
        window_start: SimTime::ZERO + start.max(measure_from),
        delivered_before_window: 0,
        stall_since: None,
        longest_stall: SimDuration::ZERO,
        delay: Default::default(),
        done: false,
    });
    let deadline = world.flows[i].app.poll_timeout();
    world.arm_in(Lane::Timers, SimTime::ZERO, app_timer, deadline)
}
